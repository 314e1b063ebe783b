// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.verbs4j.Opcode;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.WorkQueue;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The records this side put on the peer's ring and has not yet seen acknowledged: numbers each by the next message
 * sequence number (MSN) and writes the header fields every record shares ({@link #putMessageHeader},
 * {@link #putRequest}), remembers what its acknowledgement does ({@link #track}: the request's position, a kind, an
 * argument), and bounds how many fragment and served-request records may be outstanding ({@link #windowOpen}).
 * <p>
 * Threading: records are numbered and tracked by the send side, under the send-side lock of {@link ShmSender}, which
 * also rewinds the MSN after an RNR NAK; acknowledgements are taken, in MSN order, by progress under the receive
 * lock ({@link ShmSender#processAcks}). The two meet in {@code trackedMsnLimit} (released before a record is
 * committed) and {@code ackedSeen} (released as each acknowledgement is taken, acquired by {@link #windowOpen}).
 */
final class ShmSendWindow
{
    // What the acknowledgement of a record does (kindAt): complete its request; nothing (a fragment that is not the
    // last); end a served WRITE; copy a served READ's chunk from the staging area; take a served atomic's result.
    static final byte KIND_COMPLETE = 0;
    static final byte KIND_NONE = 1;
    static final byte KIND_SERVED_WRITE = 2;
    static final byte KIND_READ_CHUNK = 3;
    static final byte KIND_ATOMIC = 4;
    /** Most records of fragmented or served operations not yet seen acknowledged (bounds the MSN window). */
    static final int FRAGMENT_WINDOW = 32;
    private static final VarHandle ACKED_SEEN;
    private static final VarHandle TRACKED_MSN_LIMIT;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            ACKED_SEEN = lookup.findVarHandle(ShmSendWindow.class, "ackedSeen", long.class);
            TRACKED_MSN_LIMIT = lookup.findVarHandle(ShmSendWindow.class, "trackedMsnLimit", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final WorkQueue sq;
    private final long[] inflightPos;
    private final byte[] inflightKind;
    private final long[] inflightArg;
    private final int inflightMask;

    // Owned by the holder of the send lock.
    private long nextMsn;
    /** One past the highest MSN ever put on the ring: a peer may acknowledge no further (read by progress). */
    private volatile long trackedMsnLimit;

    // Owned by the holder of the device's progress (read by the send side for the MSN window).
    private long ackedSeen;

    /**
     * @param sq       the send queue (immediate data and rkeys of the requests).
     * @param capacity records tracked at most, a power of two above the send depth plus {@link #FRAGMENT_WINDOW}.
     */
    ShmSendWindow(final WorkQueue sq, final int capacity)
    {
        this.sq = sq;
        this.inflightPos = new long[capacity];
        this.inflightKind = new byte[capacity];
        this.inflightArg = new long[capacity];
        this.inflightMask = capacity - 1;
    }

    /** For a new connection (setup path, nothing running): nothing sent, nothing acknowledged. */
    void reset()
    {
        nextMsn = 0;
        trackedMsnLimit = 0;
        ACKED_SEEN.setVolatile(this, 0L);
    }

    // ---------------------------------------------------------------- send side

    /** @return the MSN the next record takes. */
    long nextMsn()
    {
        return nextMsn;
    }

    /**
     * After an RNR NAK: the next record takes {@code msn} again.
     *
     * @param msn the refused MSN, below {@link #nextMsn()}.
     * @return the send-queue position of the request whose record it was (where the pump restarts).
     */
    long rewind(final long msn)
    {
        final long pos = inflightPos[(int)msn & inflightMask];
        nextMsn = msn;
        return pos;
    }

    /**
     * Writes the header of a message record (an inline or rendezvous SEND, a WRITE_WITH_IMM notification) for the
     * request at {@code pos}, numbered by the next MSN; the source count and the body are the protocol's.
     *
     * @return the record's MSN (to {@link #track}).
     */
    long putMessageHeader(
        final AtomicBuffer buffer, final int index, final long pos, final int opcode, final long total)
    {
        final long msn = nextMsn;
        buffer.putShort(index + FrameDescriptor.VERSION_OFFSET, (short)SegmentHeader.VERSION);
        buffer.putShort(index + FrameDescriptor.FLAGS_OFFSET,
            (short)(Opcode.hasImmediate(opcode) ? FrameDescriptor.FLAG_WITH_IMM : 0));
        buffer.putInt(index + FrameDescriptor.IMMEDIATE_OFFSET, sq.immediateData(pos));
        buffer.putLong(index + FrameDescriptor.MSN_OFFSET, msn);
        buffer.putInt(index + FrameDescriptor.MESSAGE_LENGTH_OFFSET, (int)total);
        return msn;
    }

    /**
     * Writes the header of a request record (a fragment or a served request) for the request at {@code pos},
     * numbered by the next MSN.
     *
     * @return the record's MSN (to {@link #track}).
     */
    long putRequest(
        final AtomicBuffer buffer,
        final int index,
        final long pos,
        final int flags,
        final int messageLength,
        final long address,
        final int atomicOpcode,
        final long compareAdd,
        final long swap)
    {
        final long msn = nextMsn;
        buffer.putShort(index + FrameDescriptor.VERSION_OFFSET, (short)SegmentHeader.VERSION);
        buffer.putShort(index + FrameDescriptor.FLAGS_OFFSET, (short)flags);
        buffer.putInt(index + FrameDescriptor.IMMEDIATE_OFFSET, 0);
        buffer.putLong(index + FrameDescriptor.MSN_OFFSET, msn);
        buffer.putInt(index + FrameDescriptor.MESSAGE_LENGTH_OFFSET, messageLength);
        buffer.putInt(index + FrameDescriptor.SOURCE_COUNT_OFFSET, 0);
        buffer.putInt(index + FrameDescriptor.REQUEST_RKEY_OFFSET, sq.rkey(pos));
        buffer.putInt(index + FrameDescriptor.REQUEST_OPCODE_OFFSET, atomicOpcode);
        buffer.putLong(index + FrameDescriptor.REQUEST_ADDRESS_OFFSET, address);
        buffer.putLong(index + FrameDescriptor.REQUEST_COMPARE_ADD_OFFSET, compareAdd);
        buffer.putLong(index + FrameDescriptor.REQUEST_SWAP_OFFSET, swap);
        return msn;
    }

    /**
     * Records what the acknowledgement of record {@code msn} does, before the record is committed, and moves the
     * MSN on.
     */
    void track(final long msn, final long pos, final byte kind, final long arg)
    {
        final int i = (int)msn & inflightMask;
        inflightPos[i] = pos;
        inflightKind[i] = kind;
        inflightArg[i] = arg;
        nextMsn = msn + 1;
        if (msn + 1 > (long)TRACKED_MSN_LIMIT.getOpaque(this))
        {
            // Published (release) before the record is committed to the ring (a later release store), so before
            // the peer can see the record, let alone acknowledge it; no full fence needed.
            TRACKED_MSN_LIMIT.setRelease(this, msn + 1);
        }
    }

    /** @return true while fewer than FRAGMENT_WINDOW records are unacknowledged (the MSN tracking arrays hold them). */
    boolean windowOpen()
    {
        return nextMsn - (long)ACKED_SEEN.getAcquire(this) < FRAGMENT_WINDOW;
    }

    // ---------------------------------------------------------------- acknowledgement side

    /** @return one past the highest MSN ever put on the ring (a peer may acknowledge no further). */
    long trackedMsnLimit()
    {
        return trackedMsnLimit;
    }

    /** @return the MSNs taken as acknowledged so far (plain read, by their owner). */
    long ackedSeen()
    {
        return ackedSeen;
    }

    /** @return the MSNs taken as acknowledged so far (acquire: for a look from outside the progress). */
    long ackedSeenAcquire()
    {
        return (long)ACKED_SEEN.getAcquire(this);
    }

    /**
     * Widens an acknowledgement a record carried as its low 32 bits ({@code FrameDescriptor.FLAG_ACK}) to the MSN it
     * stands for: the one nearest above the acknowledgements taken so far. A value at or below them (older than what
     * the control block gave) stands for nothing new. The caller checks the result against {@link #trackedMsnLimit()}
     * as it checks the control block's. Owner: the device's progress (the receive round).
     *
     * @param low the carried low 32 bits.
     * @return the acknowledged MSN, at least {@link #ackedSeen()}.
     */
    long widenAck(final int low)
    {
        final long seen = ackedSeen;
        final int ahead = low - (int)seen;
        return ahead > 0 ? seen + ahead : seen;
    }

    /** Takes the acknowledgement of one more record (release: the send side may reuse its tracking slot). */
    void ackedOne()
    {
        ACKED_SEEN.setRelease(this, ackedSeen + 1);
    }

    /** @return the tracking slot of record {@code msn}. */
    int slot(final long msn)
    {
        return (int)msn & inflightMask;
    }

    /** @return the send-queue position of record {@code msn}'s request. */
    long posOf(final long msn)
    {
        return inflightPos[(int)msn & inflightMask];
    }

    long posAt(final int slot)
    {
        return inflightPos[slot];
    }

    byte kindAt(final int slot)
    {
        return inflightKind[slot];
    }

    long argAt(final int slot)
    {
        return inflightArg[slot];
    }
}
