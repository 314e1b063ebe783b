// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.buffer.ByteBuf;
import io.verbs4j.Access;
import io.verbs4j.CompletionHandler;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.WcStatus;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.KeyTable;
import io.verbs4j.spi.WorkQueue;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import org.agrona.UnsafeApi;

/**
 * The target side of a connection (siw's {@code qp_rx}): carries out the peer's requests on the I/O thread with no
 * action from the application. One-sided requests are checked first, in libfabric's order: key lookup, then access
 * bits, then bounds ({@link KeyTable#verifyRemote}); a failure answers NAK(REM_ACCESS_ERR) and leaves the memory
 * untouched. Atomics use CPU atomics on the region's memory, so they are atomic with respect to local
 * {@code getAndAddLong}/{@code compareAndSetLong}.
 * <p>
 * After an RNR NAK the responder drops every request until the NAKed one comes again; after a NAK it drops
 * everything (the initiator's queue pair is in ERROR and disconnects). Successful SEND/WRITE requests are
 * acknowledged cumulatively, once per socket read batch.
 */
final class TcpResponder
{
    /**
     * Payload bytes up to which a request counts as small (latency-bound traffic): above it a request is bulk, whose
     * ACK is not held ({@link TcpAckHold}) and which its poster writes itself only into a mostly empty window
     * ({@link TcpDirectPump#BULK_DIRECT_SHARE}).
     */
    static final int SMALL_FRAME_BYTES = 16 * 1024;
    private static final int ACTION_DROP = 0;
    private static final int ACTION_RECV = 1;
    private static final int ACTION_WRITE = 2;
    private static final int ACTION_WRITE_IMM = 3;
    private static final int ACTION_ATOMIC = 4;
    private static final int ACTION_DONE = 5;

    private final TcpConnection connection;
    private final TcpCounters counters;
    private final TcpFrameDecoder decoder;
    private final TcpFrameWriter frames;
    private TcpQueuePair qp;
    private KeyTable keys;
    private long expected;
    private boolean rnrDropping;
    private boolean nakDropping;
    private long ackPending;
    private long lastAcked;
    private boolean ackRequested;

    private int action;
    private long sequence;
    private int flags;
    private int length;
    private boolean ackRequestedByLarge;
    private long address;
    private int rkey;
    private int argument;
    private long recvPos;

    TcpResponder(final TcpConnection connection)
    {
        this.connection = connection;
        this.counters = connection.counters();
        this.decoder = connection.decoder();
        this.frames = connection.writer();
    }

    void start(final TcpQueuePair queuePair, final long peerInitialSequence)
    {
        qp = queuePair;
        keys = queuePair.domain().keys();
        expected = peerInitialSequence;
        ackPending = peerInitialSequence - 1;
        lastAcked = peerInitialSequence - 1;
    }

    /**
     * A request header arrived; decide where its payload goes.
     */
    void onRequest(
        final int type,
        final int flags,
        final int length,
        final long sequence,
        final long address,
        final int rkey,
        final int argument)
    {
        action = ACTION_DROP;
        this.sequence = sequence;
        this.flags = flags;
        this.length = length;
        this.address = address;
        this.rkey = rkey;
        this.argument = argument;
        if (nakDropping || (rnrDropping && sequence != expected) || QpState.ERROR == qp.state())
        {
            decoder.discardPayload();
            return;
        }
        if (sequence != expected)
        {
            connection.protocolError(FrameType.name(type) + " with sequence " + sequence + " where " + expected +
                " was expected");
            return;
        }
        rnrDropping = false;
        switch (type)
        {
            case FrameType.SEND:
                onSend();
                break;
            case FrameType.WRITE:
            case FrameType.WRITE_WITH_IMM:
                onWrite(FrameType.WRITE_WITH_IMM == type);
                break;
            case FrameType.READ_REQUEST:
                onRead();
                break;
            default:
                action = ACTION_ATOMIC;
                decoder.payloadIntoSmall();
                break;
        }
    }

    private void onSend()
    {
        final long pos = qp.takeRecv();
        if (pos < 0)
        {
            rnr();
            return;
        }
        final WorkQueue recvQueue = qp.recvQueue();
        if (length > recvQueue.totalLength(pos))
        {
            nak(WcStatus.REM_INV_REQ_ERR);
            qp.completeRecv(pos, WcStatus.LOC_LEN_ERR, Opcode.RECV, length, 0, 0);
            return;
        }
        if (!decoder.sink().addSges(recvQueue, pos, length))
        {
            nak(WcStatus.REM_OP_ERR);
            qp.completeRecv(pos, WcStatus.LOC_PROT_ERR, Opcode.RECV, 0, 0, 0);
            return;
        }
        recvPos = pos;
        action = ACTION_RECV;
        decoder.payloadIntoSink();
    }

    private void onWrite(final boolean withImmediate)
    {
        TcpMemoryRegion region = null;
        if (length > 0)
        {
            // Zero-length writes check no key, as in InfiniBand.
            region = (TcpMemoryRegion)keys.verifyRemote(rkey, address, length, Access.REMOTE_WRITE);
            if (null == region || !region.tryPin())
            {
                nak(WcStatus.REM_ACCESS_ERR);
                return;
            }
        }
        if (withImmediate)
        {
            final long pos = qp.takeRecv();
            if (pos < 0)
            {
                if (null != region)
                {
                    region.unpin();
                }
                rnr();
                return;
            }
            recvPos = pos;
        }
        if (null != region)
        {
            decoder.sink().addPinned(region, address - region.address(), length);
        }
        action = withImmediate ? ACTION_WRITE_IMM : ACTION_WRITE;
        decoder.payloadIntoSink();
    }

    private void onRead()
    {
        final int readLength = argument;
        if (readLength < 0)
        {
            connection.protocolError("READ_REQUEST of " + readLength + " bytes");
            return;
        }
        int pieces = 0;
        if (readLength > 0)
        {
            final AbstractMemoryRegion region = keys.verifyRemote(rkey, address, readLength, Access.REMOTE_READ);
            pieces = null == region ? -1 :
                frames.wrap((TcpMemoryRegion)region, address - region.address(), readLength, 0);
            if (pieces < 0)
            {
                nak(WcStatus.REM_ACCESS_ERR);
                return;
            }
        }
        final ByteBuf buffer = frames.newFrame(0);
        frames.outFrame().encode(FrameType.READ_RESPONSE, 0, readLength, sequence, 0, 0, 0);
        frames.writeFrame(buffer);
        frames.writePieces(pieces);
        counters.add(TcpCounter.BYTES_SENT, readLength);
        answered();
    }

    /** The payload of the current request arrived in full (it was placed by the sink). */
    void onRequestEnd()
    {
        switch (action)
        {
            case ACTION_RECV:
                final boolean imm = 0 != (flags & FrameFlyweight.FLAG_IMMEDIATE);
                completed();
                qp.completeRecv(recvPos, WcStatus.SUCCESS, Opcode.RECV, length, imm ? argument : 0,
                    imm ? CompletionHandler.WITH_IMM : 0);
                break;
            case ACTION_WRITE:
                completed();
                break;
            case ACTION_WRITE_IMM:
                completed();
                qp.completeRecv(recvPos, WcStatus.SUCCESS, Opcode.RECV_RDMA_WITH_IMM, length, argument,
                    CompletionHandler.WITH_IMM);
                break;
            case ACTION_ATOMIC:
                onAtomic();
                break;
            default:
                break;
        }
        action = ACTION_DONE;
    }

    private void onAtomic()
    {
        final AbstractMemoryRegion found = 0 != (address & 7) ? null :
            keys.verifyRemote(rkey, address, 8, Access.REMOTE_ATOMIC);
        final TcpMemoryRegion region = (TcpMemoryRegion)found;
        if (null == region || !region.tryPin())
        {
            nak(WcStatus.REM_ACCESS_ERR);
            return;
        }
        final long original;
        try
        {
            final long target = region.memory().addressOf(address - region.address());
            final long compareAdd = decoder.smallLong(FrameFlyweight.COMPARE_ADD_OFFSET);
            if (0 != (flags & FrameFlyweight.FLAG_CMP_SWAP))
            {
                final long swap = decoder.smallLong(FrameFlyweight.SWAP_OFFSET);
                original = compareAndExchange(target, compareAdd, swap);
            }
            else
            {
                original = UnsafeApi.getAndAddLong(null, target, compareAdd);
            }
        }
        finally
        {
            region.unpin();
        }
        final ByteBuf buffer = frames.newFrame(0);
        frames.outFrame().encode(FrameType.ATOMIC_RESPONSE, 0, 0, sequence, original, 0, 0);
        frames.writeFrame(buffer);
        answered();
    }

    private static long compareAndExchange(final long address, final long expectedValue, final long newValue)
    {
        while (true)
        {
            final long current = UnsafeApi.getLongVolatile(null, address);
            if (current != expectedValue)
            {
                return current;
            }
            if (UnsafeApi.compareAndSetLong(null, address, expectedValue, newValue))
            {
                return expectedValue;
            }
        }
    }

    /**
     * End of a read batch: one cumulative ACK for the SEND/WRITE requests completed since the last answer, if one of
     * them asked for it ({@link FrameFlyweight#FLAG_ACK_REQUEST}); otherwise the ACK waits to ride along with the
     * next frames this side writes ({@link #deferredAck()}, {@link #flushDeferredAck()}).
     */
    void flushAcks()
    {
        if (ackRequested)
        {
            flushDeferredAck();
        }
    }

    /**
     * Event loop: writes the pending cumulative ACK, if any (piggy-backed on other writes, or on a heartbeat tick).
     *
     * @return true if an ACK was written.
     */
    boolean flushDeferredAck()
    {
        ackRequested = false;
        if (ackPending > lastAcked)
        {
            counters.increment(TcpCounter.ACKS_SENT_ALONE);
            frames.writeControl(FrameType.ACK, ackPending, 0);
            lastAcked = ackPending;
            return true;
        }
        return false;
    }

    /**
     * @return true if the request that asked for the pending ACK carried more than {@link #SMALL_FRAME_BYTES}: bulk
     * traffic, whose next frame is a message time away, so the ACK should not wait for one.
     */
    boolean isAckRequestedByLarge()
    {
        return ackRequestedByLarge;
    }

    /** @return true if a completed request asked for an immediate ACK that was not written yet. */
    boolean isAckRequested()
    {
        return ackRequested;
    }

    /** @return the sequence the next ACK acknowledges (driver lock held). */
    long pendingAck()
    {
        return ackPending;
    }

    /** @return the highest sequence an ACK frame has carried so far (driver lock held). */
    long lastAcked()
    {
        return lastAcked;
    }

    /** @return the sequence a deferred ACK would acknowledge, or -1 if none is pending. Driver lock held. */
    long deferredAck()
    {
        return ackPending > lastAcked ? ackPending : -1;
    }

    /**
     * An ACK written by a poster's direct batch.
     *
     * @param acked the sequence it acknowledged.
     */
    void ackSent(final long acked)
    {
        if (acked > lastAcked)
        {
            lastAcked = acked;
        }
        if (lastAcked >= ackPending)
        {
            ackRequested = false;
        }
    }

    private void completed()
    {
        ackPending = sequence;
        expected = sequence + 1;
        if (0 != (flags & FrameFlyweight.FLAG_ACK_REQUEST))
        {
            ackRequested = true;
            ackRequestedByLarge = length > SMALL_FRAME_BYTES;
        }
    }

    private void answered()
    {
        expected = sequence + 1;
        ackPending = sequence;
        lastAcked = sequence;
    }

    private void rnr()
    {
        // An RNR NAK or NAK for sequence n acknowledges everything before n.
        frames.writeControl(FrameType.RNR_NAK, sequence, 0);
        lastAcked = sequence - 1;
        rnrDropping = true;
        counters.increment(TcpCounter.RNR_NAKS_SENT);
        decoder.discardPayload();
        action = ACTION_DROP;
    }

    private void nak(final int status)
    {
        frames.writeControl(FrameType.NAK, sequence, status);
        lastAcked = sequence - 1;
        nakDropping = true;
        counters.increment(TcpCounter.NAKS_SENT);
        decoder.discardPayload();
        action = ACTION_DROP;
    }
}
