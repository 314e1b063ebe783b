// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.RegionMemory;
import io.verbs4j.spi.WorkQueue;
import io.verbs4j.stat.SingleWriterCounters;
import org.agrona.BitUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The send side of a shm queue pair: ordering, MSN tracking, RNR replay and acknowledgements.
 * <p>
 * <b>The pump</b> ({@link #pump()}) carries work requests out strictly in posting order. WRITE, READ and atomics on a
 * mapped peer region are done right there, with the checks of {@link ShmDirectRma#targetOffset}. SEND, SEND_WITH_IMM
 * and the notification of WRITE_WITH_IMM become ring records, written by the protocol their size and memory call for
 * ({@link #sendRecord}, this provider's {@code send_ops} table): {@link ShmEagerMessages} (inline records and
 * fragments), {@link ShmRendezvousPull} (a list of sources the peer copies from); one-sided work on a peer's
 * registered buffer goes to {@link ShmServedRequests}. Every record is numbered by a message sequence number (MSN)
 * and tracked ({@link #track}) until the peer acknowledges it through its control block; a full ring stops the pump,
 * progress resumes it (back-pressure never surfaces as an exception).
 * <p>
 * <b>Acknowledgements</b> ({@link #processAcks}): completes what the peer acknowledged, fails the request the peer
 * reported an error for, and on an RNR NAK asks the pump to rewind: after {@code rnrTimerNs} it retransmits from the
 * refused MSN (go-back-N, as RC does), skipping the one-sided work already done.
 * <p>
 * Threading: the pump and the send-side state (cursor, MSN, tracking arrays, region cache) are owned by the holder of
 * the send-side try-lock ({@link #tryLock}): the posting thread, the device's progress, or the direct path
 * ({@link ShmDirectRma}). The acknowledgement state is owned by progress under the queue pair's receive lock
 * ({@link ShmReceiver}). They meet in three volatile fields: the rewind request, the highest MSN put on the ring and
 * the last MSN seen acknowledged (which bounds the MSN window).
 */
final class ShmSender
{
    /** What an acknowledged record does: complete its request. */
    static final byte KIND_COMPLETE = 0;
    /** What an acknowledged record does: nothing (a fragment that is not the last). */
    static final byte KIND_NONE = 1;
    /** What an acknowledged record does: the last fragment of a served WRITE. */
    static final byte KIND_SERVED_WRITE = 2;
    /** What an acknowledged record does: a chunk of a served READ is in the staging area. */
    static final byte KIND_READ_CHUNK = 3;
    /** What an acknowledged record does: the old value of a served atomic is in the staging area. */
    static final byte KIND_ATOMIC = 4;
    /** oneSided(): the request went to the peer, completion comes with its acknowledgement. */
    static final int SERVED = -1;
    /** Most records of fragmented or served operations not yet seen acknowledged (bounds the MSN window). */
    static final int FRAGMENT_WINDOW = 32;
    private static final VarHandle SEND_LOCK;
    private static final VarHandle REWIND_MSN;
    private static final VarHandle ACKED_SEEN;
    private static final VarHandle TRACKED_MSN_LIMIT;
    private static final long NO_REWIND = -1;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            SEND_LOCK = lookup.findVarHandle(ShmSender.class, "sendLock", int.class);
            REWIND_MSN = lookup.findVarHandle(ShmSender.class, "rewindMsn", long.class);
            ACKED_SEEN = lookup.findVarHandle(ShmSender.class, "ackedSeen", long.class);
            TRACKED_MSN_LIMIT = lookup.findVarHandle(ShmSender.class, "trackedMsnLimit", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final ShmQueuePair qp;
    private final WorkQueue sq;
    private final ShmCounters deviceCounters;
    /** The send-side data-path counters, written under the send lock. */
    private final SingleWriterCounters counters;
    private final int eagerLimit;
    private final long[] inflightPos;
    private final byte[] inflightKind;
    private final long[] inflightArg;
    private final int inflightMask;
    private final int rnrRetry;
    private final long rnrTimerNs;
    private final ShmEagerMessages eager;
    private final ShmRendezvousPull rendezvous;
    private final ShmServedRequests served;

    @SuppressWarnings("unused")
    private volatile int sendLock;
    private volatile long rewindMsn = NO_REWIND;

    // Send side, owned by the holder of sendLock.
    private long nextToTransmit;
    private long highWater;
    private long nextMsn;
    /** One past the highest MSN ever put on the ring: a peer may acknowledge no further (read by progress). */
    private volatile long trackedMsnLimit;
    private long dataWrittenPos = -1;
    private boolean stalled;
    private boolean ringFull;
    private long retryAtNs;
    private int cachedRkey;
    private ShmPeer.Region cachedRegion;

    // Acknowledgement side, owned by progress under the receive lock (ackedSeen is read by the send side for the
    // MSN window).
    private long ackedSeen;
    private long rnrCountSeen;
    private long lastNakMsn = -1;
    private int rnrAttempts;
    private boolean errorSeen;

    /**
     * @param qp             the queue pair (state, send queue, completions, connection).
     * @param deviceCounters the device's counters (rare events: error completions).
     * @param counters       this queue pair's data-path counters.
     * @param eagerLimit     largest SEND copied inline into a record when the peer could pull it.
     * @param config         the queue pair's configuration (send depth, RNR retry and timer).
     */
    ShmSender(
        final ShmQueuePair qp,
        final ShmCounters deviceCounters,
        final SingleWriterCounters counters,
        final int eagerLimit,
        final QueuePairConfig config)
    {
        this.qp = qp;
        this.sq = qp.sendQueue();
        this.deviceCounters = deviceCounters;
        this.counters = counters;
        this.eagerLimit = eagerLimit;
        final int capacity = BitUtil.findNextPositivePowerOfTwo(config.sendDepth() + FRAGMENT_WINDOW);
        this.inflightPos = new long[capacity];
        this.inflightKind = new byte[capacity];
        this.inflightArg = new long[capacity];
        this.inflightMask = capacity - 1;
        this.rnrRetry = config.rnrRetry();
        this.rnrTimerNs = config.rnrTimerNs();
        this.eager = new ShmEagerMessages(this, sq, qp.recvQueue());
        this.rendezvous = new ShmRendezvousPull(this, sq, qp.recvQueue());
        this.served = new ShmServedRequests(this, sq, qp.domain().keys());
    }

    ShmEagerMessages eager()
    {
        return eager;
    }

    ShmRendezvousPull rendezvous()
    {
        return rendezvous;
    }

    ShmServedRequests served()
    {
        return served;
    }

    /** For the connection manager (setup path, nothing running): a fresh send side for a new connection. */
    void reset()
    {
        nextToTransmit = sq.posted();
        highWater = nextToTransmit;
        nextMsn = 0;
        trackedMsnLimit = 0;
        dataWrittenPos = -1;
        stalled = false;
        ringFull = false;
        cachedRkey = 0;
        cachedRegion = null;
        eager.resetSend();
        served.reset();
        ACKED_SEEN.setVolatile(this, 0L);
        rnrCountSeen = 0;
        lastNakMsn = -1;
        rnrAttempts = 0;
        errorSeen = false;
        REWIND_MSN.setVolatile(this, NO_REWIND);
    }

    /** Unbinding (both locks held): drops the cached peer region, whose mapping goes away. */
    void forgetPeer()
    {
        cachedRegion = null;
    }

    // ---------------------------------------------------------------- the send-side lock

    boolean isLocked()
    {
        return ShmQueuePair.LOCKED == (int)SEND_LOCK.getVolatile(this);
    }

    /** Waits until the send side is observed free or retired once (setup path). */
    void awaitUnlocked()
    {
        while (ShmQueuePair.LOCKED == (int)SEND_LOCK.getVolatile(this))
        {
            Thread.onSpinWait();
        }
    }

    /** Takes the send side for good (or until {@link #unlock}), waiting for its holder (setup path). */
    void retire()
    {
        while (!SEND_LOCK.compareAndSet(this, ShmQueuePair.UNLOCKED, ShmQueuePair.RETIRED))
        {
            Thread.onSpinWait();
        }
    }

    void unlock()
    {
        SEND_LOCK.setRelease(this, ShmQueuePair.UNLOCKED);
    }

    // ---------------------------------------------------------------- direct path (ShmDirectRma)

    /**
     * For {@link ShmDirectRma}: takes the send side (try-lock, the same one the pump and region close use) if it is
     * idle at {@code pos}: connected, in RTS, nothing left to transmit, no replay, fragment or served request under
     * way. On success the caller must call {@link #unlockSendSide}.
     *
     * @param pos the send-queue position the direct request takes.
     * @return the connection, or null (nothing held).
     */
    ShmConnection tryLockIdleSendSide(final long pos)
    {
        if (!SEND_LOCK.compareAndSet(this, ShmQueuePair.UNLOCKED, ShmQueuePair.LOCKED))
        {
            return null;
        }
        final ShmConnection c = qp.connection();
        if (null == c || QpState.RTS != qp.state() || nextToTransmit != pos || stalled || eager.isFragmenting() ||
            served.isUnderWay() || NO_REWIND != (long)REWIND_MSN.getVolatile(this) || served.isAwaitingAck())
        {
            SEND_LOCK.setRelease(this, ShmQueuePair.UNLOCKED);
            return null;
        }
        return c;
    }

    /**
     * Releases the send side taken by {@link #tryLockIdleSendSide}.
     *
     * @param pos        the position given to it.
     * @param carriedOut true if the request at {@code pos} was carried out (the pump steps past it).
     */
    void unlockSendSide(final long pos, final boolean carriedOut)
    {
        if (carriedOut)
        {
            nextToTransmit = pos + 1;
            highWater = pos + 1;
        }
        SEND_LOCK.setRelease(this, ShmQueuePair.UNLOCKED);
    }

    // ---------------------------------------------------------------- the pump

    void pump()
    {
        do
        {
            if (!SEND_LOCK.compareAndSet(this, ShmQueuePair.UNLOCKED, ShmQueuePair.LOCKED))
            {
                return;
            }
            try
            {
                pumpLocked();
            }
            finally
            {
                SEND_LOCK.setRelease(this, ShmQueuePair.UNLOCKED);
            }
        }
        while (!stalled && !ringFull && nextToTransmit < sq.posted() && QpState.RTS == qp.state());
    }

    boolean pumpNeeded()
    {
        return (long)REWIND_MSN.getVolatile(this) != NO_REWIND || nextToTransmit < sq.posted();
    }

    private void pumpLocked()
    {
        final ShmConnection c = qp.connection();
        if (null == c)
        {
            return;
        }
        ringFull = false;
        final long rewind = (long)REWIND_MSN.getVolatile(this);
        if (NO_REWIND != rewind)
        {
            REWIND_MSN.setVolatile(this, NO_REWIND);
            if (rewind < nextMsn)
            {
                nextToTransmit = inflightPos[(int)rewind & inflightMask];
                nextMsn = rewind;
                // Fragmented and served operations at or after the refused MSN start over.
                eager.resetSend();
                served.reset();
                stalled = true;
                retryAtNs = System.nanoTime() + rnrTimerNs;
            }
        }
        if (stalled)
        {
            if (System.nanoTime() - retryAtNs < 0)
            {
                return;
            }
            stalled = false;
        }
        final WorkQueue sq = this.sq;
        final long posted = sq.posted();
        while (nextToTransmit < posted)
        {
            if (QpState.RTS != qp.state())
            {
                return;
            }
            final long pos = nextToTransmit;
            final int opcode = sq.opcode(pos);
            if (pos < highWater)
            {
                // Replay after an RNR NAK: one-sided work was done already; resend only what consumes a receive.
                if (Opcode.consumesRemoteRecv(opcode) && sq.isPending(pos))
                {
                    if (!ShmSges.allOpen(sq, pos))
                    {
                        failSend(pos, WcStatus.LOC_PROT_ERR);
                        return;
                    }
                    if (!sendRecord(c, pos, opcode))
                    {
                        return;
                    }
                }
                nextToTransmit = pos + 1;
                continue;
            }
            if (!sq.isPending(pos))
            {
                nextToTransmit = pos + 1;
                highWater = pos + 1;
                continue;
            }
            if (!ShmSges.allOpen(sq, pos))
            {
                // A region named by the request was closed after the post (or its lkey was bad): no copy.
                failSend(pos, WcStatus.LOC_PROT_ERR);
                return;
            }
            switch (opcode)
            {
                case Opcode.SEND:
                case Opcode.SEND_WITH_IMM:
                    if (!sendRecord(c, pos, opcode))
                    {
                        return;
                    }
                    countRequest(opcode, sq.totalLength(pos));
                    break;

                case Opcode.RDMA_WRITE_WITH_IMM:
                    if (dataWrittenPos != pos)
                    {
                        final int status = oneSided(c, pos, opcode);
                        if (SERVED == status)
                        {
                            return;
                        }
                        if (WcStatus.SUCCESS != status)
                        {
                            failSend(pos, status);
                            return;
                        }
                        dataWrittenPos = pos;
                    }
                    if (!sendRecord(c, pos, opcode))
                    {
                        return;
                    }
                    break;

                default:
                {
                    final int status = oneSided(c, pos, opcode);
                    if (SERVED == status)
                    {
                        return;
                    }
                    if (WcStatus.SUCCESS != status)
                    {
                        failSend(pos, status);
                        return;
                    }
                    qp.completeSend(pos, status, (int)sq.totalLength(pos));
                    break;
                }
            }
            nextToTransmit = pos + 1;
            highWater = pos + 1;
        }
    }

    ShmPeer.Region peerRegion(final ShmConnection c, final int rkey)
    {
        final ShmPeer.Region cached = cachedRegion;
        if (null != cached && cachedRkey == rkey && cached.isValid())
        {
            return cached;
        }
        final ShmPeer.Region region = c.peer.region(rkey);
        cachedRkey = rkey;
        cachedRegion = region;
        return region;
    }

    /**
     * The initiator-side execution of WRITE, READ and atomics, with the target-side checks done here from the
     * peer's published region table: key, protection domain, access bits, bounds. The target memory is untouched
     * unless every check passes.
     */
    private int oneSided(final ShmConnection c, final long pos, final int opcode)
    {
        final WorkQueue sq = this.sq;
        final boolean atomic = Opcode.isAtomic(opcode);
        final long length = atomic ? 8 : sq.totalLength(pos);
        if (served.isServing(pos))
        {
            return served.send(c, pos, opcode, length);
        }
        countRequest(opcode, length);
        if (0 == length)
        {
            return WcStatus.SUCCESS;
        }
        final ShmPeer.Region region = peerRegion(c, sq.rkey(pos));
        if (null != region && !region.isShared())
        {
            // A registered buffer of the peer: its progress checks and carries out the request.
            return served.start(c, pos, opcode, length);
        }
        final long offset = ShmDirectRma.targetOffset(
            c, region, ShmDirectRma.requiredAccess(opcode), sq.remoteAddress(pos), length);
        if (offset < 0)
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        final RegionMemory memory = region.memory;
        switch (opcode)
        {
            case Opcode.RDMA_WRITE:
            case Opcode.RDMA_WRITE_WITH_IMM:
                sq.gatherTo(pos, memory, offset);
                return WcStatus.SUCCESS;

            case Opcode.RDMA_READ:
                return sq.scatterFrom(pos, memory, offset, length);

            case Opcode.ATOMIC_FETCH_AND_ADD:
            case Opcode.ATOMIC_CMP_AND_SWP:
                putAtomicResult(sq, pos,
                    ShmDirectRma.atomic(opcode, memory, offset, sq.compareAdd(pos), sq.swap(pos)));
                return WcStatus.SUCCESS;

            default:
                return WcStatus.GENERAL_ERR;
        }
    }

    private static void putAtomicResult(final WorkQueue sq, final long pos, final long old)
    {
        UnsafeApi.putLong(sq.sgeRegion(pos, 0).memory().addressOf(sq.sgeOffset(pos, 0)), old);
    }

    /**
     * Writes the ring record of a SEND or a WRITE_WITH_IMM notification, choosing the protocol (the
     * {@code send_ops} table): the notification and payloads that are inline, small enough or in memory the peer
     * cannot map go eager ({@link ShmEagerMessages}: one inline record, or fragments when too large for one); a
     * larger payload in shared regions goes as a list of sources the peer pulls ({@link ShmRendezvousPull}).
     *
     * @return false if the ring is full (the pump stops and progress resumes it).
     */
    private boolean sendRecord(final ShmConnection c, final long pos, final int opcode)
    {
        final WorkQueue sq = this.sq;
        final long total = sq.totalLength(pos);
        if (Opcode.RDMA_WRITE_WITH_IMM == opcode)
        {
            return eager.sendWriteImmNotice(c, pos, opcode, total);
        }
        final int count = sq.sgeCount(pos);
        final int maxInline = c.out.maxMsgLength() - FrameDescriptor.HEADER_LENGTH;
        if (sq.isInline(pos) || (total <= eagerLimit && total <= maxInline) || !ShmSges.allShared(sq, pos, count))
        {
            if (total > maxInline)
            {
                // Too large for one record, from memory the peer cannot map: fragments.
                return eager.sendFragments(c, pos, opcode, total);
            }
            return eager.sendInline(c, pos, opcode, total);
        }
        return rendezvous.sendSources(c, pos, opcode, total, count);
    }

    // ---------------------------------------------------------------- records, for the protocols

    /**
     * Claims room for a record on the peer's ring; if there is none, the pump stops (see {@link #ringIsFull}).
     *
     * @return the record's index, or negative if the ring is full.
     */
    int claim(final ShmConnection c, final int type, final int recordLength)
    {
        final int index = c.out.tryClaim(type, recordLength);
        if (index < 0)
        {
            ringIsFull();
        }
        return index;
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

    /** The peer's ring has no room for the next record: the pump stops until the peer reads (back-pressure). */
    void ringIsFull()
    {
        ringFull = true;
        counters.increment(ShmCounter.RING_FULL);
    }

    /** Stops the pump until an acknowledgement or progress resumes it (a served request waits for its answer). */
    void stopUntilAcked()
    {
        ringFull = true;
    }

    /** @return true while fewer than FRAGMENT_WINDOW records are unacknowledged (the MSN tracking arrays hold them). */
    boolean windowOpen()
    {
        return nextMsn - (long)ACKED_SEEN.getAcquire(this) < FRAGMENT_WINDOW;
    }

    /** Counts a request the send side takes up (under the send lock; the direct path too). */
    void countRequest(final int opcode, final long length)
    {
        switch (opcode)
        {
            case Opcode.SEND:
            case Opcode.SEND_WITH_IMM:
                counters.increment(ShmCounter.SENDS);
                counters.add(ShmCounter.BYTES_SENT, length);
                break;

            case Opcode.RDMA_WRITE:
            case Opcode.RDMA_WRITE_WITH_IMM:
                counters.increment(ShmCounter.RDMA_WRITES);
                counters.add(ShmCounter.BYTES_SENT, length);
                break;

            case Opcode.RDMA_READ:
                counters.increment(ShmCounter.RDMA_READS);
                counters.add(ShmCounter.BYTES_READ, length);
                break;

            default:
                counters.increment(ShmCounter.ATOMICS);
                break;
        }
    }

    /** Completes a send request. */
    void completeSend(final long pos, final int status, final int byteLength)
    {
        qp.completeSend(pos, status, byteLength);
    }

    /** Completes a send request with an error status; errors are rare, so the device's atomic counts them. */
    void failSend(final long pos, final int status)
    {
        deviceCounters.increment(ShmCounter.ERROR_COMPLETIONS);
        qp.completeSend(pos, status, 0);
    }

    // ---------------------------------------------------------------- acknowledgements (progress)

    /** @return one past the highest MSN ever put on the ring (a peer may acknowledge no further). */
    long trackedMsnLimit()
    {
        return trackedMsnLimit;
    }

    /**
     * The send side's part of {@link ShmReceiver#mayHaveWork}: anything new from the peer's control block
     * (acknowledgement, NAK, error, close), or sends for the pump. Plain loads and volatile reads only.
     */
    boolean mayHaveWork(final ShmConnection c)
    {
        return c.peerAckedMsn() != (long)ACKED_SEEN.getAcquire(this) || c.peerRnrCount() != rnrCountSeen ||
            (!errorSeen && 0 != c.peerErrorMsnPlusOne()) || c.peerClosed() || pumpNeeded();
    }

    int processAcks(final ShmConnection c)
    {
        int work = 0;
        final long acked = c.peerAckedMsn();
        final WorkQueue sq = this.sq;
        while (ackedSeen < acked)
        {
            final int i = (int)ackedSeen & inflightMask;
            final long pos = inflightPos[i];
            ACKED_SEEN.setRelease(this, ackedSeen + 1);
            rnrAttempts = 0;
            switch (inflightKind[i])
            {
                case KIND_COMPLETE:
                    qp.completeSend(pos, WcStatus.SUCCESS, (int)sq.totalLength(pos));
                    break;

                case KIND_SERVED_WRITE:
                    served.writeAcked(pos);
                    break;

                case KIND_READ_CHUNK:
                    served.readChunkAcked(c, pos, inflightArg[i]);
                    break;

                case KIND_ATOMIC:
                    served.atomicAcked(c, pos);
                    break;

                default:
                    break;
            }
            work++;
        }
        final long errorMsnPlusOne = c.peerErrorMsnPlusOne();
        if (!errorSeen && 0 != errorMsnPlusOne)
        {
            errorSeen = true;
            final long pos = inflightPos[(int)(errorMsnPlusOne - 1) & inflightMask];
            failSend(pos, c.peerErrorStatus());
            return work + 1;
        }
        final long rnrCount = c.peerRnrCount();
        if (rnrCount != rnrCountSeen)
        {
            rnrCountSeen = rnrCount;
            final long msn = c.peerRnrMsn();
            rnrAttempts = msn == lastNakMsn ? rnrAttempts + 1 : 1;
            lastNakMsn = msn;
            if (QueuePairConfig.RNR_RETRY_INFINITE != rnrRetry && rnrAttempts > rnrRetry)
            {
                failSend(inflightPos[(int)msn & inflightMask], WcStatus.RNR_RETRY_EXC_ERR);
            }
            else
            {
                REWIND_MSN.setVolatile(this, msn);
            }
            work++;
        }
        return work;
    }
}
