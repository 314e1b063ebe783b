package io.verbs4j.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.verbs4j.Access;
import io.verbs4j.CompletionHandler;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.AbstractQueuePair;
import io.verbs4j.spi.RegionMemory;
import io.verbs4j.spi.WorkQueue;
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
 * <b>Receive side</b> ({@link #doWork()}, progress only, so a single receiving thread): records are read in order;
 * a record that finds no posted receive is refused with an RNR NAK, and every later record is dropped until the
 * sender, after {@code rnrTimerNs}, retransmits from the refused MSN (go-back-N, as RC does).
 */
public final class ShmQueuePair extends AbstractQueuePair implements ControlledMessageHandler
{
    private static final System.Logger LOG = System.getLogger("io.verbs4j.shm");
    private static final VarHandle SEND_LOCK;
    private static final VarHandle RECV_LOCK;
    private static final VarHandle REWIND_MSN;
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
    private final int inflightMask;
    private final int rnrRetry;
    private final long rnrTimerNs;

    private volatile ShmConnection connection;
    @SuppressWarnings("unused")
    private volatile int sendLock;
    @SuppressWarnings("unused")
    private volatile int recvLock;
    private volatile long rewindMsn = NO_REWIND;

    // Send side, owned by the holder of sendLock.
    private long nextToTransmit;
    private long highWater;
    private long nextMsn;
    private long dataWrittenPos = -1;
    private boolean stalled;
    private boolean ringFull;
    private long retryAtNs;
    private int cachedRkey;
    private ShmPeer.Region cachedRegion;

    // Progress side, owned by the holder of recvLock.
    private long ackedSeen;
    private long rnrCountSeen;
    private long lastNakMsn = -1;
    private int rnrAttempts;
    private boolean errorSeen;
    private long expectedMsn;
    private long publishedAck;
    private long nakCount;
    private boolean broken;
    private ShmConnection reading;

    ShmQueuePair(final ShmProtectionDomain pd, final QueuePairConfig config, final int qpNumber)
    {
        super(pd, config, qpNumber);
        this.shmPd = pd;
        this.device = (ShmDevice)pd.device();
        this.eagerLimit = device.eagerLimit();
        final int capacity = BitUtil.findNextPositivePowerOfTwo(config.sendDepth());
        this.inflightPos = new long[capacity];
        this.inflightMask = capacity - 1;
        this.rnrRetry = config.rnrRetry();
        this.rnrTimerNs = config.rnrTimerNs();
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
        dataWrittenPos = -1;
        stalled = false;
        ringFull = false;
        cachedRkey = 0;
        cachedRegion = null;
        ackedSeen = 0;
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
                        completeSend(pos, WcStatus.LOC_PROT_ERR, 0);
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
                completeSend(pos, WcStatus.LOC_PROT_ERR, 0);
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
                    break;

                case Opcode.RDMA_WRITE_WITH_IMM:
                    if (dataWrittenPos != pos)
                    {
                        final int status = oneSided(c, pos, opcode);
                        if (WcStatus.SUCCESS != status)
                        {
                            completeSend(pos, status, 0);
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
                    completeSend(pos, status, WcStatus.SUCCESS == status ? (int)sq.totalLength(pos) : 0);
                    if (WcStatus.SUCCESS != status)
                    {
                        return;
                    }
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

    private ShmPeer.Region peerRegion(final ShmConnection c, final int rkey)
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
        if (0 == length)
        {
            return WcStatus.SUCCESS;
        }
        final int required = atomic ? Access.REMOTE_ATOMIC :
            Opcode.RDMA_READ == opcode ? Access.REMOTE_READ : Access.REMOTE_WRITE;
        final ShmPeer.Region region = peerRegion(c, sq.rkey(pos));
        if (null == region || !region.isShared() || region.pdId != c.peerPdId ||
            required != (region.access & required))
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        final long offset = sq.remoteAddress(pos) - region.address;
        if (offset < 0 || offset > region.length - length)
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
            {
                final long old = UnsafeApi.getAndAddLong(null, memory.addressOf(offset), sq.compareAdd(pos));
                putAtomicResult(sq, pos, old);
                return WcStatus.SUCCESS;
            }

            case Opcode.ATOMIC_CMP_AND_SWP:
            {
                final long old = UnsafeApi.compareAndExchangeLong(
                    null, memory.addressOf(offset), sq.compareAdd(pos), sq.swap(pos));
                putAtomicResult(sq, pos, old);
                return WcStatus.SUCCESS;
            }

            default:
                return WcStatus.GENERAL_ERR;
        }
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
        else if (sq.isInline(pos) || (total <= eagerLimit && total <= ring.maxMsgLength() - FrameDescriptor.HEADER_LENGTH) ||
            !sharedSges(sq, pos, count))
        {
            if (total > ring.maxMsgLength() - FrameDescriptor.HEADER_LENGTH)
            {
                // A large SEND from a registered (unshareable) buffer: see README, LIMITATIONS.
                completeSend(pos, WcStatus.LOC_LEN_ERR, 0);
                return false;
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
            ringFull = true;
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
        inflightPos[(int)msn & inflightMask] = pos;
        nextMsn = msn + 1;
        ring.commit(index);
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

    private int processAcks(final ShmConnection c)
    {
        int work = 0;
        final long acked = c.peerAckedMsn();
        while (ackedSeen < acked)
        {
            final long pos = inflightPos[(int)ackedSeen & inflightMask];
            ackedSeen++;
            rnrAttempts = 0;
            completeSend(pos, WcStatus.SUCCESS, (int)sendQueue().totalLength(pos));
            work++;
        }
        final long errorMsnPlusOne = c.peerErrorMsnPlusOne();
        if (!errorSeen && 0 != errorMsnPlusOne)
        {
            errorSeen = true;
            final long pos = inflightPos[(int)(errorMsnPlusOne - 1) & inflightMask];
            completeSend(pos, c.peerErrorStatus(), 0);
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
                completeSend(inflightPos[(int)msn & inflightMask], WcStatus.RNR_RETRY_EXC_ERR, 0);
            }
            else
            {
                REWIND_MSN.setVolatile(this, msn);
            }
            work++;
        }
        return work;
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
        if (msn != expectedMsn)
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
                    length != FrameDescriptor.HEADER_LENGTH + count * FrameDescriptor.SOURCE_LENGTH || messageLength < 0)
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
            default:
                return protocolError(c, type, length, "unknown record type");
        }
        final long pos = takeRecv();
        if (pos < 0)
        {
            c.putRnrNak(msn, ++nakCount);
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
            completeRecv(pos, WcStatus.SUCCESS, opcode, messageLength,
                withImm ? buffer.getInt(index + FrameDescriptor.IMMEDIATE_OFFSET) : 0,
                withImm ? CompletionHandler.WITH_IMM : 0);
            return Action.CONTINUE;
        }
        publishedAck = expectedMsn;
        c.putAcked(expectedMsn);
        c.putError(msn, WcStatus.LOC_LEN_ERR == status ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_OP_ERR);
        completeRecv(pos, status, opcode, 0, 0, 0);
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
            total += buffer.getLong(sourcesIndex + i * FrameDescriptor.SOURCE_LENGTH + FrameDescriptor.SOURCE_LENGTH_OFFSET);
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
            scatterAt(rq, pos, done, region.memory, offset, length);
            done += length;
        }
        return WcStatus.SUCCESS;
    }

    private static void scatterAt(
        final WorkQueue rq, final long pos, final long dstStart, final RegionMemory src, final long srcOffset,
        final long length)
    {
        long skip = dstStart;
        long done = 0;
        for (int i = 0, n = rq.sgeCount(pos); i < n && done < length; i++)
        {
            final long sgeLength = rq.sgeLength(pos, i);
            if (skip >= sgeLength)
            {
                skip -= sgeLength;
                continue;
            }
            final long chunk = Math.min(sgeLength - skip, length - done);
            RegionMemory.copy(src, srcOffset + done, rq.sgeRegion(pos, i).memory(), rq.sgeOffset(pos, i) + skip, chunk);
            done += chunk;
            skip = 0;
        }
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
