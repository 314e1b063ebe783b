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
import io.verbs4j.spi.WorkQueue;
import io.verbs4j.stat.SingleWriterCounters;
import org.agrona.BitUtil;

/**
 * The send side of a shm queue pair: ordering, MSN tracking, RNR replay and acknowledgements.
 * <p>
 * <b>The pump</b> ({@link #pump()}) carries work requests out strictly in posting order. WRITE, READ and atomics on a
 * mapped peer region are done right there ({@link ShmDirectRma#carryOutQueued}). SEND, SEND_WITH_IMM
 * and the notification of WRITE_WITH_IMM become ring records, written by the protocol their size and memory call for
 * ({@link #sendRecord}, this provider's {@code send_ops} table): {@link ShmEagerMessages} (inline records and
 * fragments), {@link ShmRendezvousPull} (a list of sources the peer copies from); one-sided work on a peer's
 * registered buffer goes to {@link ShmServedRequests}. Every record is numbered by a message sequence number (MSN)
 * and tracked ({@link ShmSendWindow}) until the peer acknowledges it, on its control block's acked line or on an
 * inline SEND of its own ({@link ShmOwedAck}; which of the two this side reads while it waits is {@link ShmAckWatch}'s
 * call); a full ring stops the pump, progress resumes it (back-pressure never surfaces as an exception).
 * <p>
 * <b>Acknowledgements</b> ({@link #processAcks}): completes what the peer acknowledged, fails the request the peer
 * reported an error for, and on an RNR NAK asks the pump to rewind: after {@code rnrTimerNs} it retransmits from the
 * refused MSN (go-back-N, as RC does), skipping the one-sided work already done.
 * <p>
 * Threading: the pump and the send-side state (cursor, replay stall, region cache, and the numbering side of the
 * {@link ShmSendWindow}) are owned by the holder of the send-side try-lock: the posting thread, the device's
 * progress, or the direct path ({@link ShmDirectRma#execute}). The acknowledgement state (NAKs and error seen, the
 * acknowledging side of the window) is owned by the holder of the device's progress ({@link ShmReceiver}).
 * They meet in the rewind request (volatile) and in the window's two published MSNs.
 */
final class ShmSender
{
    /** oneSided(): the request went to the peer, completion comes with its acknowledgement. */
    static final int SERVED = -1;
    /** The send-side try-lock: free. */
    private static final int UNLOCKED = 0;
    /** The send-side try-lock: held by a thread working the send side. */
    private static final int LOCKED = 1;
    /** The send-side try-lock: taken for good (the queue pair is closed) or for an unbind. */
    private static final int RETIRED = 2;
    private static final VarHandle SEND_LOCK;
    private static final VarHandle REWIND_MSN;
    private static final long NO_REWIND = -1;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            SEND_LOCK = lookup.findVarHandle(ShmSender.class, "sendLock", int.class);
            REWIND_MSN = lookup.findVarHandle(ShmSender.class, "rewindMsn", long.class);
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
    private final ShmSendWindow window;
    private final ShmOwedAck owedAck = new ShmOwedAck();
    private final ShmAckWatch ackWatch = new ShmAckWatch();
    private final int rnrRetry;
    private final long rnrTimerNs;
    private final ShmEagerMessages eager;
    private final ShmRendezvousPull rendezvous;
    private final ShmServedRequests served;
    /** The device runs single-threaded ({@code SINGLE_THREAD}): the send-side try-lock is a look and a store. */
    private final boolean singleThread;

    @SuppressWarnings("unused")
    private volatile int sendLock;
    private volatile long rewindMsn = NO_REWIND;

    // Send side, owned by the holder of sendLock.
    private long nextToTransmit;
    private long highWater;
    private long dataWrittenPos = -1;
    private boolean stalled;
    private boolean ringFull;
    private long retryAtNs;
    private int cachedRkey;
    private ShmPeer.Region cachedRegion;

    // Acknowledgement side, owned by the holder of the device's progress.
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
        this.window = new ShmSendWindow(sq, BitUtil.findNextPositivePowerOfTwo(
            config.sendDepth() + ShmSendWindow.FRAGMENT_WINDOW));
        this.rnrRetry = config.rnrRetry();
        this.rnrTimerNs = config.rnrTimerNs();
        this.eager = new ShmEagerMessages(this, window, owedAck, sq, qp.recvQueue());
        this.rendezvous = new ShmRendezvousPull(this, window, sq, qp.recvQueue());
        this.served = new ShmServedRequests(this, window, sq, qp.domain().keys());
        this.singleThread = qp.shmDevice().singleThreaded();
    }

    ShmEagerMessages eager()
    {
        return eager;
    }

    /** @return the records in flight and the acknowledgements taken. */
    ShmSendWindow window()
    {
        return window;
    }

    /** @return the acknowledgement this side owes the peer, which its inline SENDs carry. */
    ShmOwedAck owedAck()
    {
        return owedAck;
    }

    /** @return when this side reads the peer's acknowledgement line. */
    ShmAckWatch ackWatch()
    {
        return ackWatch;
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
        window.reset();
        owedAck.reset();
        ackWatch.reset();
        dataWrittenPos = -1;
        stalled = false;
        ringFull = false;
        cachedRkey = 0;
        cachedRegion = null;
        eager.resetSend();
        served.reset();
        rnrCountSeen = 0;
        lastNakMsn = -1;
        rnrAttempts = 0;
        errorSeen = false;
        REWIND_MSN.setVolatile(this, NO_REWIND);
    }

    /** Unbinding (the progress and the send lock held): drops the cached peer region, whose mapping goes away. */
    void forgetPeer()
    {
        cachedRegion = null;
    }

    // ---------------------------------------------------------------- the send-side lock

    boolean isLocked()
    {
        return LOCKED == (int)SEND_LOCK.getVolatile(this);
    }

    /** Waits until the send side is observed free or retired once (setup path). */
    void awaitUnlocked()
    {
        while (LOCKED == (int)SEND_LOCK.getVolatile(this))
        {
            Thread.onSpinWait();
        }
    }

    /** Takes the send side for good (or until {@link #unlock}), waiting for its holder (setup path). */
    void retire()
    {
        while (!tryTake(RETIRED))
        {
            Thread.onSpinWait();
        }
    }

    void unlock()
    {
        SEND_LOCK.setRelease(this, UNLOCKED);
    }

    /**
     * Takes the send side from UNLOCKED to {@code state}: a CAS, or on a {@code SINGLE_THREAD} device a look and a
     * store (the look still refuses a nested pump).
     */
    private boolean tryTake(final int state)
    {
        if (singleThread)
        {
            if (UNLOCKED != sendLock)
            {
                return false;
            }
            SEND_LOCK.setRelease(this, state);
            return true;
        }
        return SEND_LOCK.compareAndSet(this, UNLOCKED, state);
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
        if (!tryTake(LOCKED))
        {
            return null;
        }
        final ShmConnection c = qp.connection();
        if (null == c || QpState.RTS != qp.state() || nextToTransmit != pos || stalled || eager.isFragmenting() ||
            served.isUnderWay() || NO_REWIND != (long)REWIND_MSN.getVolatile(this) || served.isAwaitingAck())
        {
            SEND_LOCK.setRelease(this, UNLOCKED);
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
        SEND_LOCK.setRelease(this, UNLOCKED);
    }

    // ---------------------------------------------------------------- the pump

    void pump()
    {
        do
        {
            if (!tryTake(LOCKED))
            {
                return;
            }
            try
            {
                pumpLocked();
            }
            finally
            {
                SEND_LOCK.setRelease(this, UNLOCKED);
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
            if (rewind < window.nextMsn())
            {
                nextToTransmit = window.rewind(rewind);
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
     * The pump's WRITE, READ and atomics: on a peer's registered buffer, served by the peer
     * ({@link ShmServedRequests}); on a mapped peer region, carried out here with the target-side checks from the
     * peer's published region table ({@link ShmDirectRma#carryOutQueued}: key, protection domain, access bits,
     * bounds; the target memory is untouched unless every check passes).
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
        return ShmDirectRma.carryOutQueued(c, region, sq, pos, opcode, length);
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

    /** Counts a request the send side takes up (under the send lock; the direct path too). */
    void countRequest(final int opcode, final long length)
    {
        ShmCounter.countRequest(counters, opcode, length);
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
        return window.trackedMsnLimit();
    }

    /**
     * The send side's part of {@link ShmReceiver#mayHaveWork}: anything new from the peer's control block
     * (acknowledgement, NAK, error, close), or sends for the pump. Plain loads and volatile reads only.
     */
    boolean mayHaveWork(final ShmConnection c)
    {
        // The acknowledgement line only when due (ShmAckWatch); greater, not different: a value below what records
        // carried is old news.
        if (ackWatch.lineDue())
        {
            if (c.peerAckedMsn() > window.ackedSeenAcquire())
            {
                return true;
            }
            ackWatch.lineQuiet();
        }
        return c.peerRnrCount() != rnrCountSeen || (!errorSeen && 0 != c.peerErrorMsnPlusOne()) || c.peerClosed() ||
            pumpNeeded();
    }

    /**
     * Takes the peer's acknowledgements up to {@code acked}, then its NAK and error.
     *
     * @param acked the peer's acknowledged MSN as read and checked against {@link #trackedMsnLimit()} by the caller
     *              (not read again here: a later, larger value would not have been checked).
     */
    int processAcks(final ShmConnection c, final long acked)
    {
        int work = 0;
        final WorkQueue sq = this.sq;
        final ShmSendWindow window = this.window;
        while (window.ackedSeen() < acked)
        {
            final int i = window.slot(window.ackedSeen());
            final long pos = window.posAt(i);
            window.ackedOne();
            rnrAttempts = 0;
            switch (window.kindAt(i))
            {
                case ShmSendWindow.KIND_COMPLETE:
                    qp.completeSend(pos, WcStatus.SUCCESS, (int)sq.totalLength(pos));
                    break;

                case ShmSendWindow.KIND_SERVED_WRITE:
                    served.writeAcked(pos);
                    break;

                case ShmSendWindow.KIND_READ_CHUNK:
                    served.readChunkAcked(c, pos, window.argAt(i));
                    break;

                case ShmSendWindow.KIND_ATOMIC:
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
            final long pos = window.posOf(errorMsnPlusOne - 1);
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
                failSend(window.posOf(msn), WcStatus.RNR_RETRY_EXC_ERR);
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
