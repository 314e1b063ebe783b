// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.verbs4j.Access;
import io.verbs4j.CompletionHandler;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RemoteMemory;
import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.AbstractQueuePair;
import io.verbs4j.spi.KeyTable;
import io.verbs4j.spi.RegionMemory;
import io.verbs4j.spi.WorkQueue;
import io.verbs4j.stat.SingleWriterCounters;
import org.agrona.BitUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * An RC queue pair over shared memory.
 * <p>
 * <b>Send side</b> ({@link #pump()}, under a try-lock taken by the posting thread or by progress): work requests are
 * carried out strictly in posting order. WRITE, READ and atomics are done right there by this side on the peer's
 * mapped region, after checking the peer's published region table entry (rkey, protection domain, access bits,
 * bounds): one copy or one CPU atomic, nothing for the peer's threads to do. SEND, SEND_WITH_IMM and the
 * notification of WRITE_WITH_IMM become records on this side's ring, numbered by a message sequence number (MSN);
 * they complete when the peer acknowledges the MSN through its control block. A full ring stops the pump; progress
 * resumes it (back-pressure never surfaces as an exception).
 * <p>
 * <b>Direct RMA</b> ({@link ShmDirectRma}): while the send queue is idle, WRITE, READ and atomics on a mapped
 * peer region are carried out by the posting thread inside {@code postSend}, under the same send-side try-lock and
 * with the same checks, and never become work-queue records; whatever it refuses goes through the pump.
 * <p>
 * <b>Receive side</b> ({@link #doWork()}, progress only, so a single receiving thread): records are read in order;
 * a record that finds no posted receive is refused with an RNR NAK, and every later record is dropped until the
 * sender, after {@code rnrTimerNs}, retransmits from the refused MSN (go-back-N, as RC does).
 * <p>
 * <b>Served requests</b>: a WRITE, READ or atomic on a peer's registered (unshareable) buffer goes as request
 * records (WRITE payload inline, cut into fragments); the peer's receive side checks them against its key table
 * (key, protection domain, access, bounds) and carries them out, answering READs and atomics in this side's staging
 * area. The pump waits for the last record's acknowledgement before the next request (an implicit fence, as for
 * direct one-sided work). SENDs too large for one record from memory the peer cannot map go as fragments.
 */
public final class ShmQueuePair extends AbstractQueuePair implements ControlledMessageHandler
{
    private static final System.Logger LOG = System.getLogger("io.verbs4j.shm");
    private static final VarHandle SEND_LOCK;
    private static final VarHandle RECV_LOCK;
    private static final VarHandle REWIND_MSN;
    private static final VarHandle ACKED_SEEN;
    private static final VarHandle SERVED_WAIT_MSN;
    private static final VarHandle TRACKED_MSN_LIMIT;
    /** Most records of fragmented or served operations not yet seen acknowledged (bounds the MSN window). */
    private static final int FRAGMENT_WINDOW = 32;
    private static final byte KIND_COMPLETE = 0;
    private static final byte KIND_NONE = 1;
    private static final byte KIND_SERVED_WRITE = 2;
    private static final byte KIND_READ_CHUNK = 3;
    private static final byte KIND_ATOMIC = 4;
    /** oneSided(): the request went to the peer, completion comes with its acknowledgement. */
    private static final int SERVED = -1;
    private static final long NO_WAIT = -1;
    private static final int READ_LIMIT = 64;
    private static final int UNLOCKED = 0;
    private static final int LOCKED = 1;
    private static final int RETIRED = 2;
    private static final long NO_REWIND = -1;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            SEND_LOCK = lookup.findVarHandle(ShmQueuePair.class, "sendLock", int.class);
            RECV_LOCK = lookup.findVarHandle(ShmQueuePair.class, "recvLock", int.class);
            REWIND_MSN = lookup.findVarHandle(ShmQueuePair.class, "rewindMsn", long.class);
            ACKED_SEEN = lookup.findVarHandle(ShmQueuePair.class, "ackedSeen", long.class);
            SERVED_WAIT_MSN = lookup.findVarHandle(ShmQueuePair.class, "servedWaitMsn", long.class);
            TRACKED_MSN_LIMIT = lookup.findVarHandle(ShmQueuePair.class, "trackedMsnLimit", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final ShmDevice device;
    private final ShmProtectionDomain shmPd;
    private final int eagerLimit;
    private final long[] inflightPos;
    private final byte[] inflightKind;
    private final long[] inflightArg;
    private final int inflightMask;
    private final int rnrRetry;
    private final long rnrTimerNs;
    /** Data-path counters: the send-side ones written under SEND_LOCK, the receive-side ones under RECV_LOCK. */
    private final SingleWriterCounters counters;

    private volatile ShmConnection connection;
    @SuppressWarnings("unused")
    private volatile int sendLock;
    @SuppressWarnings("unused")
    private volatile int recvLock;
    private volatile long rewindMsn = NO_REWIND;
    /** MSN of the served request whose acknowledgement the pump waits for, or NO_WAIT (set by send, cleared by
     *  receive side). */
    private volatile long servedWaitMsn = NO_WAIT;

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
    private long fragPos = -1;
    private long fragDone;
    private long servedPos = -1;
    private long servedDone;

    // Progress side, owned by the holder of recvLock (ackedSeen is read by the send side for the MSN window).
    private long ackedSeen;
    private long rnrCountSeen;
    private long lastNakMsn = -1;
    private int rnrAttempts;
    private boolean errorSeen;
    private long expectedMsn;
    private long publishedAck;
    private long nakCount;
    private boolean broken;
    private boolean remoteErrorSent;
    private long fragRecvPos = -1;
    private long fragRecvDone;
    private ShmConnection reading;

    ShmQueuePair(final ShmProtectionDomain pd, final QueuePairConfig config, final int qpNumber)
    {
        super(pd, config, qpNumber);
        this.shmPd = pd;
        this.device = (ShmDevice)pd.device();
        this.eagerLimit = device.eagerLimit();
        final int capacity = BitUtil.findNextPositivePowerOfTwo(config.sendDepth() + FRAGMENT_WINDOW);
        this.inflightPos = new long[capacity];
        this.inflightKind = new byte[capacity];
        this.inflightArg = new long[capacity];
        this.inflightMask = capacity - 1;
        this.rnrRetry = config.rnrRetry();
        this.rnrTimerNs = config.rnrTimerNs();
        this.counters = device.counters().attach();
        installDirectExecutor(new ShmDirectRma(this));
    }

    /** @return the protection-domain id published with this QP's regions. */
    long pdId()
    {
        return shmPd.pdId();
    }

    void checkConnectableForCm()
    {
        checkConnectable();
    }

    ShmDevice shmDevice()
    {
        return device;
    }

    ShmConnection connection()
    {
        return connection;
    }

    ShmPeer peer()
    {
        final ShmConnection c = connection;
        return null == c ? null : c.peer;
    }

    /** {@inheritDoc} */
    protected RemoteMemory mapPeerRegion(final long remoteAddress, final int rkey, final long length,
        final int access)
    {
        final ShmConnection c = connection;
        if (null == c)
        {
            throw new IllegalStateException("queue pair " + qpNumber() + " is not connected");
        }
        return ShmPeerMemory.map(this, c, remoteAddress, rkey, length, access);
    }

    /**
     * For the connection manager: binds the queue pair to a connection and moves it to RTS.
     *
     * @param c the connection.
     */
    void connectTo(final ShmConnection c)
    {
        checkConnectable();
        nextToTransmit = sendQueue().posted();
        highWater = nextToTransmit;
        nextMsn = 0;
        trackedMsnLimit = 0;
        dataWrittenPos = -1;
        stalled = false;
        ringFull = false;
        cachedRkey = 0;
        cachedRegion = null;
        fragPos = -1;
        servedPos = -1;
        SERVED_WAIT_MSN.setVolatile(this, NO_WAIT);
        remoteErrorSent = false;
        fragRecvPos = -1;
        ACKED_SEEN.setVolatile(this, 0L);
        rnrCountSeen = 0;
        lastNakMsn = -1;
        rnrAttempts = 0;
        errorSeen = false;
        expectedMsn = 0;
        publishedAck = 0;
        nakCount = 0;
        broken = false;
        REWIND_MSN.setVolatile(this, NO_REWIND);
        connection = c;
        c.peer.addUser(this);
        try
        {
            moveToRts();
        }
        catch (final RuntimeException ex)
        {
            connection = null;
            c.peer.removeUser(this);
            throw ex;
        }
        device.addActive(this);
        device.counters().increment(ShmCounter.CONNECTIONS_ESTABLISHED);
    }

    /** {@inheritDoc} */
    protected void transmit(final long pos)
    {
        pump();
    }

    /** {@inheritDoc} */
    protected void onEnterError(final QpState previous)
    {
        final ShmConnection c = connection;
        if (null != c)
        {
            device.counters().increment(ShmCounter.CONNECTIONS_FAILED);
            c.putClosed();
        }
    }

    /** {@inheritDoc} */
    protected void onReset()
    {
        unbind(false);
    }

    /** {@inheritDoc} */
    protected void onClose()
    {
        unbind(true);
        // Both sides' locks are retired now: nothing writes the counters any more.
        device.counters().detach(counters);
    }

    private void unbind(final boolean retire)
    {
        device.removeActive(this);
        device.progressExclusive(() ->
        {
            acquire(SEND_LOCK);
            acquire(RECV_LOCK);
            final ShmConnection c = connection;
            connection = null;
            reading = null;
            cachedRegion = null;
            if (null != c)
            {
                c.putClosed();
                c.unmap();
                c.peer.removeUser(this);
                device.releasePeer(c.peer);
            }
            if (!retire)
            {
                SEND_LOCK.setRelease(this, UNLOCKED);
                RECV_LOCK.setRelease(this, UNLOCKED);
            }
        });
    }

    /**
     * Waits until neither the send side nor the receive side of this queue pair is running (each observed free or
     * retired once). Setup path only, never from inside this queue pair's own progress.
     */
    boolean isSendLocked()
    {
        return LOCKED == (int)SEND_LOCK.getVolatile(this);
    }

    boolean isRecvLocked()
    {
        return LOCKED == (int)RECV_LOCK.getVolatile(this);
    }

    void awaitUnlocked()
    {
        while (LOCKED == (int)SEND_LOCK.getVolatile(this))
        {
            Thread.onSpinWait();
        }
        while (LOCKED == (int)RECV_LOCK.getVolatile(this))
        {
            Thread.onSpinWait();
        }
    }

    private void acquire(final VarHandle lock)
    {
        while (!lock.compareAndSet(this, UNLOCKED, RETIRED))
        {
            Thread.onSpinWait();
        }
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
        if (!SEND_LOCK.compareAndSet(this, UNLOCKED, LOCKED))
        {
            return null;
        }
        final ShmConnection c = connection;
        if (null == c || QpState.RTS != state() || nextToTransmit != pos || stalled || fragPos >= 0 ||
            servedPos >= 0 || NO_REWIND != (long)REWIND_MSN.getVolatile(this) ||
            NO_WAIT != (long)SERVED_WAIT_MSN.getVolatile(this))
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

    // ---------------------------------------------------------------- send side

    private void pump()
    {
        do
        {
            if (!SEND_LOCK.compareAndSet(this, UNLOCKED, LOCKED))
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
        while (!stalled && !ringFull && nextToTransmit < sendQueue().posted() && QpState.RTS == state());
    }

    private boolean pumpNeeded()
    {
        return (long)REWIND_MSN.getVolatile(this) != NO_REWIND || nextToTransmit < sendQueue().posted();
    }

    private void pumpLocked()
    {
        final ShmConnection c = connection;
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
                fragPos = -1;
                servedPos = -1;
                SERVED_WAIT_MSN.setVolatile(this, NO_WAIT);
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
        final WorkQueue sq = sendQueue();
        final long posted = sq.posted();
        while (nextToTransmit < posted)
        {
            if (QpState.RTS != state())
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
                    if (!localRegionsOpen(sq, pos))
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
            if (!localRegionsOpen(sq, pos))
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
                    completeSend(pos, status, (int)sq.totalLength(pos));
                    break;
                }
            }
            nextToTransmit = pos + 1;
            highWater = pos + 1;
        }
    }

    /**
     * @return true if every region the request's SGEs name is still open (an inline send names none: its payload
     *         was copied at post time). Read under this side's lock, so a region's close waits for the copy.
     */
    private static boolean localRegionsOpen(final WorkQueue queue, final long pos)
    {
        if (queue.isInline(pos))
        {
            return true;
        }
        for (int i = 0, n = queue.sgeCount(pos); i < n; i++)
        {
            final AbstractMemoryRegion region = queue.sgeRegion(pos, i);
            if (null == region || !region.isOpen())
            {
                return false;
            }
        }
        return true;
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
        final WorkQueue sq = sendQueue();
        final boolean atomic = Opcode.isAtomic(opcode);
        final long length = atomic ? 8 : sq.totalLength(pos);
        if (servedPos == pos)
        {
            return served(c, pos, opcode, length);
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
            servedPos = pos;
            servedDone = 0;
            return served(c, pos, opcode, length);
        }
        final long offset = targetOffset(c, region, requiredAccess(opcode), sq.remoteAddress(pos), length);
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
                putAtomicResult(sq, pos, atomic(opcode, memory, offset, sq.compareAdd(pos), sq.swap(pos)));
                return WcStatus.SUCCESS;

            default:
                return WcStatus.GENERAL_ERR;
        }
    }

    /**
     * @param opcode WRITE (with or without immediate), READ or an atomic.
     * @return the access bit the target region must grant it.
     */
    static int requiredAccess(final int opcode)
    {
        return Opcode.isAtomic(opcode) ? Access.REMOTE_ATOMIC :
            Opcode.RDMA_READ == opcode ? Access.REMOTE_READ : Access.REMOTE_WRITE;
    }

    /**
     * The target-side checks of a one-sided request, from the peer's published region table, shared by the pump and
     * the direct path ({@link ShmDirectRma}): the key names a region of the peer's protection domain paired with this
     * connection, the region grants {@code required}, and {@code [remoteAddress, remoteAddress + length)} lies in it.
     *
     * @return the offset of {@code remoteAddress} in the region, or -1 if a check fails.
     */
    static long targetOffset(
        final ShmConnection c, final ShmPeer.Region region, final int required, final long remoteAddress,
        final long length)
    {
        if (null == region || region.pdId != c.peerPdId || required != (region.access & required))
        {
            return -1;
        }
        final long offset = remoteAddress - region.address;
        return offset < 0 || offset > region.length - length ? -1 : offset;
    }

    /**
     * Carries out an atomic on the target word.
     *
     * @return the word's value before.
     */
    static long atomic(
        final int opcode, final RegionMemory memory, final long offset, final long compareAdd, final long swap)
    {
        return Opcode.ATOMIC_FETCH_AND_ADD == opcode ?
            UnsafeApi.getAndAddLong(null, memory.addressOf(offset), compareAdd) :
            UnsafeApi.compareAndExchangeLong(null, memory.addressOf(offset), compareAdd, swap);
    }

    /**
     * Sends the next request records of a served operation. Returns {@link #SERVED} while records remain to be sent
     * or acknowledged (the pump stops; the acknowledgement or progress resumes it), SUCCESS once the data of a
     * WRITE_WITH_IMM is acknowledged (its notification follows); plain WRITE, READ and atomics are completed by
     * {@link #processAcks} instead.
     */
    private int served(final ShmConnection c, final long pos, final int opcode, final long length)
    {
        if (NO_WAIT != (long)SERVED_WAIT_MSN.getVolatile(this))
        {
            ringFull = true;
            return SERVED;
        }
        if (servedDone >= length)
        {
            servedPos = -1;
            return WcStatus.SUCCESS;
        }
        final WorkQueue sq = sendQueue();
        final OneToOneRingBuffer ring = c.out;
        final AtomicBuffer buffer = ring.buffer();
        final long remote = sq.remoteAddress(pos);
        if (Opcode.RDMA_READ == opcode)
        {
            final int chunk = (int)Math.min(c.stagingLength, length - servedDone);
            final int index = ring.tryClaim(FrameDescriptor.TYPE_READ_REQUEST, FrameDescriptor.REQUEST_HEADER_LENGTH);
            if (index < 0)
            {
                ringIsFull();
                return SERVED;
            }
            final long msn = putRequest(buffer, index, pos, 0, chunk, remote + servedDone, 0, 0, 0);
            track(msn, pos, KIND_READ_CHUNK, servedDone);
            servedDone += chunk;
            SERVED_WAIT_MSN.setVolatile(this, msn);
            ring.commit(index);
        }
        else if (Opcode.isAtomic(opcode))
        {
            final int index = ring.tryClaim(FrameDescriptor.TYPE_ATOMIC_REQUEST, FrameDescriptor.REQUEST_HEADER_LENGTH);
            if (index < 0)
            {
                ringIsFull();
                return SERVED;
            }
            final long msn = putRequest(buffer, index, pos, 0, 8, remote, opcode, sq.compareAdd(pos), sq.swap(pos));
            track(msn, pos, KIND_ATOMIC, 0);
            servedDone = 8;
            SERVED_WAIT_MSN.setVolatile(this, msn);
            ring.commit(index);
        }
        else
        {
            final int maxPayload = ring.maxMsgLength() - FrameDescriptor.REQUEST_HEADER_LENGTH;
            while (servedDone < length)
            {
                final int fragment = (int)Math.min(maxPayload, length - servedDone);
                final int index = windowOpen() ? ring.tryClaim(
                    FrameDescriptor.TYPE_WRITE_REQUEST, FrameDescriptor.REQUEST_HEADER_LENGTH + fragment) : -1;
                if (index < 0)
                {
                    ringIsFull();
                    return SERVED;
                }
                final boolean last = servedDone + fragment == length;
                final int flags = (0 == servedDone ? FrameDescriptor.FLAG_FIRST : 0) |
                    (last ? FrameDescriptor.FLAG_LAST : 0);
                final long msn = putRequest(buffer, index, pos, flags, (int)length, remote + servedDone, 0, remote, 0);
                sq.gatherRange(pos, servedDone, fragment,
                    buffer.addressOffset() + index + FrameDescriptor.REQUEST_PAYLOAD_OFFSET);
                track(msn, pos, last ? KIND_SERVED_WRITE : KIND_NONE, 0);
                servedDone += fragment;
                if (last)
                {
                    SERVED_WAIT_MSN.setVolatile(this, msn);
                }
                ring.commit(index);
            }
        }
        ringFull = true;
        return SERVED;
    }

    private long putRequest(
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
        buffer.putInt(index + FrameDescriptor.REQUEST_RKEY_OFFSET, sendQueue().rkey(pos));
        buffer.putInt(index + FrameDescriptor.REQUEST_OPCODE_OFFSET, atomicOpcode);
        buffer.putLong(index + FrameDescriptor.REQUEST_ADDRESS_OFFSET, address);
        buffer.putLong(index + FrameDescriptor.REQUEST_COMPARE_ADD_OFFSET, compareAdd);
        buffer.putLong(index + FrameDescriptor.REQUEST_SWAP_OFFSET, swap);
        return msn;
    }

    private void track(final long msn, final long pos, final byte kind, final long arg)
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
    private void ringIsFull()
    {
        ringFull = true;
        counters.increment(ShmCounter.RING_FULL);
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

    /** Completes a send request with an error status; errors are rare, so the device's atomic counts them. */
    private void failSend(final long pos, final int status)
    {
        device.counters().increment(ShmCounter.ERROR_COMPLETIONS);
        completeSend(pos, status, 0);
    }

    /** @return true while fewer than FRAGMENT_WINDOW records are unacknowledged (the MSN tracking arrays hold them). */
    private boolean windowOpen()
    {
        return nextMsn - (long)ACKED_SEEN.getAcquire(this) < FRAGMENT_WINDOW;
    }

    private static void putAtomicResult(final WorkQueue sq, final long pos, final long old)
    {
        final AbstractMemoryRegion local = sq.sgeRegion(pos, 0);
        UnsafeApi.putLong(local.memory().addressOf(sq.sgeOffset(pos, 0)), old);
    }

    /**
     * Writes the ring record of a SEND or a WRITE_WITH_IMM notification.
     *
     * @return false if the ring is full (the pump stops and progress resumes it).
     */
    private boolean sendRecord(final ShmConnection c, final long pos, final int opcode)
    {
        final WorkQueue sq = sendQueue();
        final long total = sq.totalLength(pos);
        final int count = sq.sgeCount(pos);
        final OneToOneRingBuffer ring = c.out;
        final int type;
        final int recordLength;
        if (Opcode.RDMA_WRITE_WITH_IMM == opcode)
        {
            type = FrameDescriptor.TYPE_WRITE_IMM;
            recordLength = FrameDescriptor.HEADER_LENGTH;
        }
        else if (sq.isInline(pos) || (total <= eagerLimit &&
            total <= ring.maxMsgLength() - FrameDescriptor.HEADER_LENGTH) ||
            !sharedSges(sq, pos, count))
        {
            if (total > ring.maxMsgLength() - FrameDescriptor.HEADER_LENGTH)
            {
                // Too large for one record, from memory the peer cannot map: fragments.
                return sendFragments(c, pos, opcode, total);
            }
            type = FrameDescriptor.TYPE_SEND_INLINE;
            recordLength = FrameDescriptor.HEADER_LENGTH + (int)total;
        }
        else
        {
            type = FrameDescriptor.TYPE_SEND_RENDEZVOUS;
            recordLength = FrameDescriptor.HEADER_LENGTH + count * FrameDescriptor.SOURCE_LENGTH;
        }
        final int index = ring.tryClaim(type, recordLength);
        if (index < 0)
        {
            ringIsFull();
            return false;
        }
        final AtomicBuffer buffer = ring.buffer();
        final long msn = nextMsn;
        buffer.putShort(index + FrameDescriptor.VERSION_OFFSET, (short)SegmentHeader.VERSION);
        buffer.putShort(index + FrameDescriptor.FLAGS_OFFSET,
            (short)(Opcode.hasImmediate(opcode) ? FrameDescriptor.FLAG_WITH_IMM : 0));
        buffer.putInt(index + FrameDescriptor.IMMEDIATE_OFFSET, sq.immediateData(pos));
        buffer.putLong(index + FrameDescriptor.MSN_OFFSET, msn);
        buffer.putInt(index + FrameDescriptor.MESSAGE_LENGTH_OFFSET, (int)total);
        if (FrameDescriptor.TYPE_SEND_INLINE == type)
        {
            buffer.putInt(index + FrameDescriptor.SOURCE_COUNT_OFFSET, 0);
            if (total > 0)
            {
                sq.gatherToAddress(pos, buffer.addressOffset() + index + FrameDescriptor.PAYLOAD_OFFSET);
            }
        }
        else if (FrameDescriptor.TYPE_SEND_RENDEZVOUS == type)
        {
            buffer.putInt(index + FrameDescriptor.SOURCE_COUNT_OFFSET, count);
            int offset = index + FrameDescriptor.PAYLOAD_OFFSET;
            for (int i = 0; i < count; i++)
            {
                buffer.putInt(offset + FrameDescriptor.SOURCE_RKEY_OFFSET, sq.sgeRegion(pos, i).rkey());
                buffer.putInt(offset + FrameDescriptor.SOURCE_RKEY_OFFSET + 4, 0);
                buffer.putLong(offset + FrameDescriptor.SOURCE_OFFSET_OFFSET, sq.sgeOffset(pos, i));
                buffer.putLong(offset + FrameDescriptor.SOURCE_LENGTH_OFFSET, sq.sgeLength(pos, i));
                offset += FrameDescriptor.SOURCE_LENGTH;
            }
        }
        else
        {
            buffer.putInt(index + FrameDescriptor.SOURCE_COUNT_OFFSET, 0);
        }
        track(msn, pos, KIND_COMPLETE, 0);
        ring.commit(index);
        return true;
    }

    /**
     * Writes the fragments of a SEND (resuming after a full ring or a closed MSN window); the last one completes
     * the request when acknowledged.
     *
     * @return true once every fragment is written.
     */
    private boolean sendFragments(final ShmConnection c, final long pos, final int opcode, final long total)
    {
        final WorkQueue sq = sendQueue();
        final OneToOneRingBuffer ring = c.out;
        final AtomicBuffer buffer = ring.buffer();
        if (fragPos != pos)
        {
            fragPos = pos;
            fragDone = 0;
        }
        final int maxPayload = ring.maxMsgLength() - FrameDescriptor.REQUEST_HEADER_LENGTH;
        final int immFlag = Opcode.hasImmediate(opcode) ? FrameDescriptor.FLAG_WITH_IMM : 0;
        while (fragDone < total)
        {
            final int fragment = (int)Math.min(maxPayload, total - fragDone);
            final int index = windowOpen() ?
                ring.tryClaim(FrameDescriptor.TYPE_SEND_FRAGMENT, FrameDescriptor.REQUEST_HEADER_LENGTH + fragment) :
                    -1;
            if (index < 0)
            {
                ringIsFull();
                return false;
            }
            final boolean last = fragDone + fragment == total;
            final int flags = immFlag | (0 == fragDone ? FrameDescriptor.FLAG_FIRST : 0) |
                (last ? FrameDescriptor.FLAG_LAST : 0);
            final long msn = putRequest(buffer, index, pos, flags, (int)total, fragDone, 0, 0, 0);
            buffer.putInt(index + FrameDescriptor.IMMEDIATE_OFFSET, sq.immediateData(pos));
            sq.gatherRange(pos, fragDone, fragment,
                buffer.addressOffset() + index + FrameDescriptor.REQUEST_PAYLOAD_OFFSET);
            track(msn, pos, last ? KIND_COMPLETE : KIND_NONE, 0);
            fragDone += fragment;
            ring.commit(index);
        }
        fragPos = -1;
        return true;
    }

    private static boolean sharedSges(final WorkQueue sq, final long pos, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final AbstractMemoryRegion region = sq.sgeRegion(pos, i);
            if (!(region instanceof ShmMemoryRegion) || !((ShmMemoryRegion)region).isShared())
            {
                return false;
            }
        }
        return count > 0;
    }

    // ---------------------------------------------------------------- progress

    /**
     * One round of this queue pair's progress: incoming records, acknowledgements, NAKs, the peer's state, and the
     * pump if sends are waiting. Called by the device's progress only.
     *
     * @return work done.
     */
    int doWork()
    {
        final ShmConnection seen = connection;
        if (null == seen || !mayHaveWork(seen))
        {
            return 0;
        }
        if (!RECV_LOCK.compareAndSet(this, UNLOCKED, LOCKED))
        {
            return 0;
        }
        try
        {
            final ShmConnection c = connection;
            if (null == c || QpState.ERROR == state())
            {
                return 0;
            }
            final boolean peerClosed = c.peerClosed();
            int work = 0;
            reading = c;
            try
            {
                work += c.in.controlledRead(this, READ_LIMIT);
            }
            catch (final RuntimeException ex)
            {
                LOG.log(System.Logger.Level.WARNING, "verbs4j shm: queue pair " + qpNumber() + ": unreadable ring " +
                    "from peer queue pair " + c.peerQpn + " (" + ex + "); connection to ERROR");
                broken = true;
            }
            if (expectedMsn != publishedAck)
            {
                publishedAck = expectedMsn;
                c.putAcked(expectedMsn);
            }
            if (broken)
            {
                enterError();
                return work + 1;
            }
            if (c.peerAckedMsn() > trackedMsnLimit)
            {
                // The counter is written by the peer: never trust it past what was sent (a huge value would
                // otherwise spin this loop for ever and complete sends that were never carried out).
                LOG.log(System.Logger.Level.WARNING, "verbs4j shm: queue pair " + qpNumber() + ": peer queue pair " +
                    c.peerQpn + " acknowledged message " + c.peerAckedMsn() + " but only " + trackedMsnLimit +
                    " were sent; connection to ERROR");
                enterError();
                return work + 1;
            }
            work += processAcks(c);
            if (peerClosed && QpState.ERROR != state())
            {
                enterError();
                return work + 1;
            }
            if (pumpNeeded())
            {
                pump();
            }
            return work;
        }
        finally
        {
            RECV_LOCK.compareAndSet(this, LOCKED, UNLOCKED);
        }
    }

    /**
     * A look, without the receive lock, at whether {@link #doWork()} could have anything to do: a record waiting,
     * an acknowledgement to publish, anything new from the peer's control block (acknowledgement, NAK, error,
     * close), or sends for the pump. Plain loads and volatile reads only, so an idle poll costs no atomic
     * instruction; a stale read of this side's own counters can only say yes when the answer is no, never the
     * reverse (they only move towards the peer's values).
     */
    private boolean mayHaveWork(final ShmConnection c)
    {
        return c.in.size() > 0 || expectedMsn != publishedAck || broken ||
            c.peerAckedMsn() != (long)ACKED_SEEN.getAcquire(this) || c.peerRnrCount() != rnrCountSeen ||
            (!errorSeen && 0 != c.peerErrorMsnPlusOne()) || c.peerClosed() || pumpNeeded();
    }

    private int processAcks(final ShmConnection c)
    {
        int work = 0;
        final long acked = c.peerAckedMsn();
        final WorkQueue sq = sendQueue();
        while (ackedSeen < acked)
        {
            final int i = (int)ackedSeen & inflightMask;
            final long pos = inflightPos[i];
            ACKED_SEEN.setRelease(this, ackedSeen + 1);
            rnrAttempts = 0;
            switch (inflightKind[i])
            {
                case KIND_COMPLETE:
                    completeSend(pos, WcStatus.SUCCESS, (int)sq.totalLength(pos));
                    break;

                case KIND_SERVED_WRITE:
                    if (Opcode.RDMA_WRITE == sq.opcode(pos))
                    {
                        completeSend(pos, WcStatus.SUCCESS, (int)sq.totalLength(pos));
                    }
                    SERVED_WAIT_MSN.setVolatile(this, NO_WAIT);
                    break;

                case KIND_READ_CHUNK:
                    readChunkArrived(c, pos, inflightArg[i]);
                    SERVED_WAIT_MSN.setVolatile(this, NO_WAIT);
                    break;

                case KIND_ATOMIC:
                    if (sq.isPending(pos))
                    {
                        if (localRegionsOpen(sq, pos))
                        {
                            UnsafeApi.putLong(sq.sgeRegion(pos, 0).memory().addressOf(sq.sgeOffset(pos, 0)),
                                UnsafeApi.getLong(c.localStagingAddress));
                            completeSend(pos, WcStatus.SUCCESS, 8);
                        }
                        else
                        {
                            failSend(pos, WcStatus.LOC_PROT_ERR);
                        }
                    }
                    SERVED_WAIT_MSN.setVolatile(this, NO_WAIT);
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

    /** A chunk of a served READ is in this side's staging area: copy it into the READ's SGEs. */
    private void readChunkArrived(final ShmConnection c, final long pos, final long offset)
    {
        final WorkQueue sq = sendQueue();
        if (!sq.isPending(pos))
        {
            return;
        }
        if (!localRegionsOpen(sq, pos))
        {
            failSend(pos, WcStatus.LOC_PROT_ERR);
            return;
        }
        final long total = sq.totalLength(pos);
        final long chunk = Math.min(c.stagingLength, total - offset);
        sq.scatterRange(pos, offset, c.localStagingAddress, chunk);
        if (offset + chunk == total)
        {
            completeSend(pos, WcStatus.SUCCESS, (int)total);
        }
    }

    // ---------------------------------------------------------------- receive side

    /** {@inheritDoc} */
    public Action onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final ShmConnection c = reading;
        if (length < FrameDescriptor.HEADER_LENGTH ||
            SegmentHeader.VERSION != buffer.getShort(index + FrameDescriptor.VERSION_OFFSET))
        {
            return protocolError(c, type, length, "short record or unknown version");
        }
        final long msn = buffer.getLong(index + FrameDescriptor.MSN_OFFSET);
        if (msn != expectedMsn || remoteErrorSent)
        {
            // Sent after a message this side refused (RNR): the sender retransmits from that one.
            return Action.CONTINUE;
        }
        final int messageLength = buffer.getInt(index + FrameDescriptor.MESSAGE_LENGTH_OFFSET);
        final int count = buffer.getInt(index + FrameDescriptor.SOURCE_COUNT_OFFSET);
        switch (type)
        {
            case FrameDescriptor.TYPE_SEND_INLINE:
                if (messageLength != length - FrameDescriptor.HEADER_LENGTH)
                {
                    return protocolError(c, type, length, "message length " + messageLength);
                }
                break;
            case FrameDescriptor.TYPE_SEND_RENDEZVOUS:
                if (count < 1 || count > ShmDevice.MAX_SGE ||
                    length != FrameDescriptor.HEADER_LENGTH + count * FrameDescriptor.SOURCE_LENGTH ||
                        messageLength < 0)
                {
                    return protocolError(c, type, length, "source count " + count);
                }
                break;
            case FrameDescriptor.TYPE_WRITE_IMM:
                if (messageLength < 0)
                {
                    return protocolError(c, type, length, "message length " + messageLength);
                }
                break;
            case FrameDescriptor.TYPE_SEND_FRAGMENT:
                return onFragment(c, type, buffer, index, length, msn, messageLength);
            case FrameDescriptor.TYPE_WRITE_REQUEST:
            case FrameDescriptor.TYPE_READ_REQUEST:
            case FrameDescriptor.TYPE_ATOMIC_REQUEST:
                return onServedRequest(c, type, buffer, index, length, msn, messageLength);
            default:
                return protocolError(c, type, length, "unknown record type");
        }
        final long pos = takeRecv();
        if (pos < 0)
        {
            c.putRnrNak(msn, ++nakCount);
            counters.increment(ShmCounter.RNR_NAKS_SENT);
            return Action.CONTINUE;
        }
        int opcode = Opcode.RECV;
        final int status;
        if (!localRegionsOpen(recvQueue(), pos))
        {
            status = WcStatus.LOC_PROT_ERR;
        }
        else if (FrameDescriptor.TYPE_SEND_INLINE == type)
        {
            status = recvQueue().scatterFromAddress(
                pos, buffer.addressOffset() + index + FrameDescriptor.PAYLOAD_OFFSET, messageLength);
        }
        else if (FrameDescriptor.TYPE_SEND_RENDEZVOUS == type)
        {
            status = pullRendezvous(c, pos, buffer, index + FrameDescriptor.PAYLOAD_OFFSET, count, messageLength);
        }
        else
        {
            opcode = Opcode.RECV_RDMA_WITH_IMM;
            status = WcStatus.SUCCESS;
        }
        final boolean withImm = 0 != (buffer.getShort(index + FrameDescriptor.FLAGS_OFFSET) &
            FrameDescriptor.FLAG_WITH_IMM);
        if (WcStatus.SUCCESS == status)
        {
            expectedMsn = msn + 1;
            countReceive(opcode, messageLength);
            completeRecv(pos, WcStatus.SUCCESS, opcode, messageLength,
                withImm ? buffer.getInt(index + FrameDescriptor.IMMEDIATE_OFFSET) : 0,
                withImm ? CompletionHandler.WITH_IMM : 0);
            return Action.CONTINUE;
        }
        return recvFailed(c, pos, msn, status, opcode);
    }

    private Action recvFailed(final ShmConnection c, final long pos, final long msn, final int status, final int opcode)
    {
        publishedAck = expectedMsn;
        c.putAcked(expectedMsn);
        c.putError(msn, WcStatus.LOC_LEN_ERR == status ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_OP_ERR);
        fragRecvPos = -1;
        device.counters().increment(ShmCounter.ERROR_COMPLETIONS);
        completeRecv(pos, status, opcode, 0, 0, 0);
        return Action.BREAK;
    }

    /**
     * Counts a receive completed successfully (under the receive lock). The bytes of a WRITE_WITH_IMM went to the
     * target region, not into the receive: only a SEND's count as received.
     */
    private void countReceive(final int opcode, final long messageLength)
    {
        counters.increment(ShmCounter.RECEIVES);
        if (Opcode.RECV == opcode)
        {
            counters.add(ShmCounter.BYTES_RECEIVED, messageLength);
        }
    }

    private Action onFragment(
        final ShmConnection c,
        final int type,
        final MutableDirectBuffer buffer,
        final int index,
        final int length,
        final long msn,
        final int messageLength)
    {
        final int fragment = length - FrameDescriptor.REQUEST_HEADER_LENGTH;
        final long offset = length < FrameDescriptor.REQUEST_HEADER_LENGTH ? -1 :
            buffer.getLong(index + FrameDescriptor.REQUEST_ADDRESS_OFFSET);
        final int flags = buffer.getShort(index + FrameDescriptor.FLAGS_OFFSET);
        final boolean first = 0 != (flags & FrameDescriptor.FLAG_FIRST);
        if (offset < 0 || fragment < 0 || messageLength < 0 || offset > messageLength - fragment ||
            (first ? 0 != offset || fragRecvPos >= 0 : fragRecvPos < 0 || offset != fragRecvDone))
        {
            return protocolError(c, type, length, "fragment at " + offset + " of " + messageLength);
        }
        final WorkQueue rq = recvQueue();
        final long pos;
        if (first)
        {
            pos = takeRecv();
            if (pos < 0)
            {
                c.putRnrNak(msn, ++nakCount);
                counters.increment(ShmCounter.RNR_NAKS_SENT);
                return Action.CONTINUE;
            }
            if (messageLength > rq.totalLength(pos))
            {
                return recvFailed(c, pos, msn, WcStatus.LOC_LEN_ERR, Opcode.RECV);
            }
            fragRecvPos = pos;
        }
        else
        {
            pos = fragRecvPos;
        }
        if (!localRegionsOpen(rq, pos))
        {
            return recvFailed(c, pos, msn, WcStatus.LOC_PROT_ERR, Opcode.RECV);
        }
        rq.scatterRange(pos, offset, buffer.addressOffset() + index + FrameDescriptor.REQUEST_PAYLOAD_OFFSET,
            fragment);
        fragRecvDone = offset + fragment;
        expectedMsn = msn + 1;
        if (0 != (flags & FrameDescriptor.FLAG_LAST))
        {
            if (fragRecvDone != messageLength)
            {
                return protocolError(c, type, length, "last fragment ends at " + fragRecvDone + " of " + messageLength);
            }
            fragRecvPos = -1;
            final boolean withImm = 0 != (flags & FrameDescriptor.FLAG_WITH_IMM);
            countReceive(Opcode.RECV, messageLength);
            completeRecv(pos, WcStatus.SUCCESS, Opcode.RECV, messageLength,
                withImm ? buffer.getInt(index + FrameDescriptor.IMMEDIATE_OFFSET) : 0,
                withImm ? CompletionHandler.WITH_IMM : 0);
        }
        return Action.CONTINUE;
    }

    /**
     * The target side of a served request on one of this side's regions: key (in this queue pair's protection
     * domain), access, then bounds; a failure answers REM_ACCESS_ERR with the memory untouched. Runs under the
     * receive lock, so a region being closed waits for the copy.
     */
    private Action onServedRequest(
        final ShmConnection c,
        final int type,
        final MutableDirectBuffer buffer,
        final int index,
        final int length,
        final long msn,
        final int messageLength)
    {
        if (length < FrameDescriptor.REQUEST_HEADER_LENGTH || messageLength < 0 ||
            (FrameDescriptor.TYPE_WRITE_REQUEST != type && FrameDescriptor.REQUEST_HEADER_LENGTH != length) ||
            (FrameDescriptor.TYPE_READ_REQUEST == type && (0 == messageLength || messageLength > c.stagingLength)))
        {
            return protocolError(c, type, length, "request of length " + messageLength);
        }
        final KeyTable keys = domain().keys();
        final int rkey = buffer.getInt(index + FrameDescriptor.REQUEST_RKEY_OFFSET);
        final long address = buffer.getLong(index + FrameDescriptor.REQUEST_ADDRESS_OFFSET);
        if (FrameDescriptor.TYPE_WRITE_REQUEST == type)
        {
            final int fragment = length - FrameDescriptor.REQUEST_HEADER_LENGTH;
            final boolean first = 0 != (buffer.getShort(index + FrameDescriptor.FLAGS_OFFSET) &
                FrameDescriptor.FLAG_FIRST);
            final AbstractMemoryRegion region = keys.verifyRemote(rkey, address, fragment, Access.REMOTE_WRITE);
            if (null == region || (first && null == keys.verifyRemote(rkey,
                buffer.getLong(index + FrameDescriptor.REQUEST_COMPARE_ADD_OFFSET), messageLength,
                    Access.REMOTE_WRITE)))
            {
                return refuseRemote(c, msn);
            }
            region.memory().copyFrom(buffer.addressOffset() + index + FrameDescriptor.REQUEST_PAYLOAD_OFFSET,
                address - region.address(), fragment);
        }
        else if (FrameDescriptor.TYPE_READ_REQUEST == type)
        {
            final AbstractMemoryRegion region = keys.verifyRemote(rkey, address, messageLength, Access.REMOTE_READ);
            if (null == region)
            {
                return refuseRemote(c, msn);
            }
            region.memory().copyTo(address - region.address(), c.peerStagingAddress, messageLength);
        }
        else
        {
            final int opcode = buffer.getInt(index + FrameDescriptor.REQUEST_OPCODE_OFFSET);
            if (!Opcode.isAtomic(opcode))
            {
                return protocolError(c, type, length, "atomic opcode " + opcode);
            }
            final AbstractMemoryRegion region = keys.verifyRemote(rkey, address, 8, Access.REMOTE_ATOMIC);
            final long target = null == region ? 0 : region.memory().addressOf(address - region.address());
            if (null == region || 0 != (target & 7))
            {
                return refuseRemote(c, msn);
            }
            final long operand = buffer.getLong(index + FrameDescriptor.REQUEST_COMPARE_ADD_OFFSET);
            final long old = Opcode.ATOMIC_FETCH_AND_ADD == opcode ?
                UnsafeApi.getAndAddLong(null, target, operand) :
                UnsafeApi.compareAndExchangeLong(null, target, operand,
                    buffer.getLong(index + FrameDescriptor.REQUEST_SWAP_OFFSET));
            UnsafeApi.putLong(c.peerStagingAddress, old);
        }
        expectedMsn = msn + 1;
        return Action.CONTINUE;
    }

    private Action refuseRemote(final ShmConnection c, final long msn)
    {
        remoteErrorSent = true;
        publishedAck = expectedMsn;
        c.putAcked(expectedMsn);
        c.putError(msn, WcStatus.REM_ACCESS_ERR);
        return Action.BREAK;
    }

    private int pullRendezvous(
        final ShmConnection c,
        final long pos,
        final MutableDirectBuffer buffer,
        final int sourcesIndex,
        final int count,
        final int messageLength)
    {
        final WorkQueue rq = recvQueue();
        if (messageLength > rq.totalLength(pos))
        {
            return WcStatus.LOC_LEN_ERR;
        }
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            total += buffer.getLong(sourcesIndex + i * FrameDescriptor.SOURCE_LENGTH +
                FrameDescriptor.SOURCE_LENGTH_OFFSET);
        }
        if (total != messageLength)
        {
            return WcStatus.LOC_ACCESS_ERR;
        }
        long done = 0;
        for (int i = 0; i < count; i++)
        {
            final int at = sourcesIndex + i * FrameDescriptor.SOURCE_LENGTH;
            final int rkey = buffer.getInt(at + FrameDescriptor.SOURCE_RKEY_OFFSET);
            final long offset = buffer.getLong(at + FrameDescriptor.SOURCE_OFFSET_OFFSET);
            final long length = buffer.getLong(at + FrameDescriptor.SOURCE_LENGTH_OFFSET);
            final ShmPeer.Region region = c.peer.region(rkey);
            if (null == region || !region.isShared() || length < 0 || offset < 0 || offset > region.length - length)
            {
                return WcStatus.LOC_ACCESS_ERR;
            }
            rq.scatterRange(pos, done, region.memory, offset, length);
            done += length;
        }
        return WcStatus.SUCCESS;
    }

    private Action protocolError(final ShmConnection c, final int type, final int length, final String what)
    {
        LOG.log(System.Logger.Level.WARNING, "verbs4j shm: queue pair " + qpNumber() + ": malformed record from " +
            "peer queue pair " + c.peerQpn + " (type " + type + ", length " + length + ": " + what +
            "); connection to ERROR");
        broken = true;
        return Action.BREAK;
    }
}
