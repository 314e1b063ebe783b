// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.ToIntBiFunction;

import io.verbs4j.Capabilities;
import io.verbs4j.ConnectionException;
import io.verbs4j.Opcode;
import io.verbs4j.PostList;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.RemoteMemory;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;

/**
 * The verbs semantics every provider shares: the state machine, request validation, local key checks, the send
 * and receive {@link WorkQueue}s, in-order completions and the flush on ERROR. A provider adds only the wire:
 * {@link #transmit(long)} carries a validated send out ({@link #transmitBatch} a list of them published together by
 * {@link #postSend(PostList)}), and the provider reports results through
 * {@link #completeSend}, {@link #takeRecv()}/{@link #completeRecv} and {@link #fail(int)}.
 * <p>
 * A provider may also {@link #installDirectExecutor install a direct executor}: while the send queue is idle, a
 * request it accepts is carried out inside {@link #postSend} and never becomes a work-queue record
 * ({@link DirectSend}); everything else, and every error, takes the ordinary path above.
 * <p>
 * Threading contract: one thread posts sends at a time and one thread posts receives at a time (they may differ);
 * the provider completes from any thread; {@link #modify} and {@link #close} from any thread. Nothing on the post
 * path blocks: exclusion between the poster, the provider's progress and flushes is by try-locks only. A queue pair
 * created with {@link QueuePairConfig#threadSafePosting(boolean)} makes concurrent posters of a queue take turns
 * through that queue's {@link PostLock}, so everything past the lock still sees one poster.
 * <p>
 * What is refused at post time (return codes) and what completes with an error status follows ibverbs: malformed
 * requests are refused ({@code EINVAL} in verbs); a bad lkey, an SGE out of its region or a missing LOCAL_WRITE is a
 * {@link WcStatus#LOC_PROT_ERR} completion that moves the queue pair to ERROR.
 */
public abstract class AbstractQueuePair implements QueuePair
{
    private static final VarHandle STATE;
    // The post bodies, as non-capturing constants for locked(): no allocation per post.
    private static final ToIntBiFunction<AbstractQueuePair, SendRequest> SEND_ONE = AbstractQueuePair::postSendAlone;
    private static final ToIntBiFunction<AbstractQueuePair, PostList<SendRequest>> SEND_LIST =
        AbstractQueuePair::postSendListAlone;
    private static final ToIntBiFunction<AbstractQueuePair, RecvRequest> RECV_ONE = AbstractQueuePair::postRecvAlone;
    private static final ToIntBiFunction<AbstractQueuePair, PostList<RecvRequest>> RECV_LIST =
        AbstractQueuePair::postRecvListAlone;

    static
    {
        try
        {
            STATE = MethodHandles.lookup().findVarHandle(AbstractQueuePair.class, "state", QpState.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final AbstractProtectionDomain pd;
    private final QueuePairConfig config;
    private final Capabilities capabilities;
    private final int qpNumber;
    private final BaseCompletionQueue sendCq;
    private final BaseCompletionQueue recvCq;
    private final WorkQueue sendQueue;
    private final WorkQueue recvQueue;
    private final AbstractMemoryRegion[] scratchRegions;
    private final LastCheckedSend lastChecked;
    private final long[] scratchOffsets;
    private final PostChecks checks;
    private DirectSend directSend;
    /** Null unless posting is thread-safe ({@link QueuePairConfig#threadSafePosting(boolean)}). */
    private final PostLock sendPostLock;
    private final PostLock recvPostLock;
    private volatile QpState state = QpState.RESET;
    private volatile boolean closed;

    /**
     * @param pd       owning domain.
     * @param config   validated attributes (CQs are {@link BaseCompletionQueue}s of the same device).
     * @param qpNumber number unique in the device.
     */
    protected AbstractQueuePair(final AbstractProtectionDomain pd, final QueuePairConfig config, final int qpNumber)
    {
        this.pd = pd;
        this.config = config;
        this.capabilities = pd.device().capabilities();
        this.qpNumber = qpNumber;
        this.sendCq = (BaseCompletionQueue)config.sendCq();
        this.recvCq = (BaseCompletionQueue)config.recvCq();
        this.sendQueue = new WorkQueue(true, config.sendDepth(), config.maxSendSge(), config.maxInlineLength());
        this.recvQueue = new WorkQueue(false, config.recvDepth(), config.maxRecvSge(), 0);
        scratchRegions = new AbstractMemoryRegion[config.maxSendSge()];
        scratchOffsets = new long[config.maxSendSge()];
        lastChecked = new LastCheckedSend(config.maxSendSge());
        checks = new PostChecks(config, capabilities, pd.keys());
        sendPostLock = config.threadSafePosting() ? new PostLock() : null;
        recvPostLock = config.threadSafePosting() ? new PostLock() : null;
    }

    /** {@inheritDoc} */
    public final int qpNumber()
    {
        return qpNumber;
    }

    /** {@inheritDoc} */
    public final QpState state()
    {
        return state;
    }

    /** {@inheritDoc} */
    public final QueuePairConfig config()
    {
        return config;
    }

    /** {@inheritDoc} */
    public final ProtectionDomain protectionDomain()
    {
        return pd;
    }

    /** @return the domain, with its key table. */
    public final AbstractProtectionDomain domain()
    {
        return pd;
    }

    /** @return the send queue. */
    public final WorkQueue sendQueue()
    {
        return sendQueue;
    }

    /** @return the receive queue. */
    public final WorkQueue recvQueue()
    {
        return recvQueue;
    }

    /** {@inheritDoc} */
    public final int sendQueueFree()
    {
        return sendQueue.free();
    }

    /** {@inheritDoc} */
    public final int recvQueueFree()
    {
        return recvQueue.free();
    }

    /** @return true once closed. */
    public final boolean isClosed()
    {
        return closed;
    }

    /** {@inheritDoc} */
    public final int postSend(final SendRequest request)
    {
        return locked(sendPostLock, SEND_ONE, request);
    }

    /**
     * Runs a post body: straight away, or holding the queue's lock when posting is thread-safe.
     *
     * @param lock the queue's lock, or null (one poster at a time, no lock).
     * @param post the post body.
     * @param arg  what is posted.
     * @return the post's return code.
     */
    private <T> int locked(final PostLock lock, final ToIntBiFunction<AbstractQueuePair, T> post, final T arg)
    {
        if (null == lock)
        {
            return post.applyAsInt(this, arg);
        }
        lock.lock();
        try
        {
            return post.applyAsInt(this, arg);
        }
        finally
        {
            lock.unlock();
        }
    }

    private int postSendAlone(final SendRequest request)
    {
        Objects.requireNonNull(request, "request");
        if (closed)
        {
            return CLOSED;
        }
        final QpState current = state;
        if (QpState.RTS != current && QpState.ERROR != current)
        {
            return INVALID_STATE;
        }
        // A request object posted again unchanged passed these checks and its SGEs are resolved, regions still open.
        final boolean unchecked = !lastChecked.matches(request);
        if (unchecked)
        {
            final int shape = checks.validateSend(request);
            if (OK != shape)
            {
                return shape;
            }
        }
        if (sendQueue.free() <= 0)
        {
            return BACK_PRESSURED;
        }
        final AbstractMemoryRegion[] regions = lastChecked.regions();
        final long[] offsets = lastChecked.offsets();
        int localStatus = WcStatus.SUCCESS;
        if (unchecked)
        {
            lastChecked.forget();
            localStatus = checks.resolveSendSges(request, regions, offsets);
            if (WcStatus.SUCCESS == localStatus)
            {
                lastChecked.remember(request);
            }
        }
        if (null != directSend && WcStatus.SUCCESS == localStatus && QpState.RTS == current &&
            directSend.tryPost(request, regions, offsets))
        {
            return OK;
        }
        final long pos = sendQueue.reserve();
        sendQueue.fillSend(pos, request, regions, offsets);
        if (WcStatus.SUCCESS != localStatus)
        {
            sendQueue.publish(pos);
            completeSend(pos, localStatus, 0);
            return OK;
        }
        publishSends(pos, pos);
        return OK;
    }

    /** {@inheritDoc} */
    public final int postSend(final PostList<SendRequest> list)
    {
        return locked(sendPostLock, SEND_LIST, list);
    }

    private int postSendListAlone(final PostList<SendRequest> list)
    {
        Objects.requireNonNull(list, "list");
        if (closed)
        {
            return list.posted(0, CLOSED);
        }
        final QpState current = state;
        if (QpState.RTS != current && QpState.ERROR != current)
        {
            return list.posted(0, INVALID_STATE);
        }
        final int size = list.size();
        long runStart = -1; // first position of the accepted run not yet published, or -1 when there is none
        long next = 0;      // the position the next request of the run takes
        int status = OK;
        int accepted = 0;
        for (; accepted < size; accepted++)
        {
            final SendRequest request = list.request(accepted);
            status = checks.validateSend(request);
            if (OK != status)
            {
                break;
            }
            if (sendQueue.free() - (runStart < 0 ? 0 : (int)(next - runStart)) <= 0)
            {
                status = BACK_PRESSURED;
                break;
            }
            final int localStatus = checks.resolveSendSges(request, scratchRegions, scratchOffsets);
            if (runStart < 0)
            {
                // Directly only with nothing of this list waiting to be published: DirectSend checks the rest.
                if (null != directSend && WcStatus.SUCCESS == localStatus && QpState.RTS == state &&
                    directSend.tryPost(request, scratchRegions, scratchOffsets))
                {
                    continue;
                }
                runStart = sendQueue.reserve();
                next = runStart;
            }
            if (WcStatus.SUCCESS != localStatus)
            {
                // As if posted one by one: the run before it goes out, then it fails alone (the rest is flushed).
                if (next > runStart)
                {
                    publishSends(runStart, next - 1);
                }
                sendQueue.fillSend(next, request, scratchRegions, scratchOffsets);
                sendQueue.publish(next);
                completeSend(next, localStatus, 0);
                runStart = -1;
                continue;
            }
            sendQueue.fillSend(next, request, scratchRegions, scratchOffsets);
            next++;
        }
        if (runStart >= 0 && next > runStart)
        {
            publishSends(runStart, next - 1);
        }
        return list.posted(accepted, status);
    }

    /**
     * Publishes filled send slots {@code first..last} with one producer-index store, then hands them to the
     * provider once, or flushes them if the queue pair is in ERROR.
     */
    private void publishSends(final long first, final long last)
    {
        sendQueue.publish(first, last);
        // The re-read pairs with enterError(): either it saw these slots published, or this sees ERROR.
        if (QpState.ERROR == state)
        {
            flushAndDrain();
            return;
        }
        if (first == last)
        {
            transmit(first);
        }
        else
        {
            transmitBatch(first, last);
        }
    }

    /**
     * For the provider's constructor: lets the posting thread carry requests out at once through {@code executor}
     * while the send queue is idle (see {@link DirectSend}); everything the executor refuses takes the ordinary path
     * ({@link #transmit}).
     *
     * @param executor the provider's executor.
     * @throws IllegalStateException if one is installed already.
     */
    protected final void installDirectExecutor(final DirectExecutor executor)
    {
        Objects.requireNonNull(executor, "executor");
        if (null != directSend)
        {
            throw new IllegalStateException("queue pair " + qpNumber + " already has a direct executor");
        }
        directSend = new DirectSend(sendQueue, sendCq, qpNumber, executor);
    }

    /** {@inheritDoc} */
    public final int postRecv(final RecvRequest request)
    {
        return locked(recvPostLock, RECV_ONE, request);
    }

    private int postRecvAlone(final RecvRequest request)
    {
        Objects.requireNonNull(request, "request");
        if (closed)
        {
            return CLOSED;
        }
        if (QpState.RESET == state)
        {
            return INVALID_STATE;
        }
        final int localStatus = checks.resolveRecvSges(request);
        if (localStatus < 0)
        {
            return localStatus;
        }
        if (recvQueue.free() <= 0)
        {
            return BACK_PRESSURED;
        }
        final long pos = recvQueue.reserve();
        fillRecv(pos, request, localStatus);
        if (WcStatus.SUCCESS != localStatus)
        {
            failRecvAtPost(pos, localStatus);
            return OK;
        }
        publishRecvs(pos, pos);
        return OK;
    }

    /** {@inheritDoc} */
    public final int postRecv(final PostList<RecvRequest> list)
    {
        return locked(recvPostLock, RECV_LIST, list);
    }

    private int postRecvListAlone(final PostList<RecvRequest> list)
    {
        Objects.requireNonNull(list, "list");
        if (closed)
        {
            return list.posted(0, CLOSED);
        }
        if (QpState.RESET == state)
        {
            return list.posted(0, INVALID_STATE);
        }
        final int size = list.size();
        final long runStart = recvQueue.reserve();
        long next = runStart;
        int status = OK;
        int accepted = 0;
        for (; accepted < size; accepted++)
        {
            final RecvRequest request = list.request(accepted);
            final int localStatus = checks.resolveRecvSges(request);
            if (localStatus < 0)
            {
                status = localStatus;
                break;
            }
            if (recvQueue.free() - (int)(next - runStart) <= 0)
            {
                status = BACK_PRESSURED;
                break;
            }
            fillRecv(next, request, localStatus);
            if (WcStatus.SUCCESS != localStatus)
            {
                // As if posted one by one: the run before it is published, then it fails alone (the rest flushes).
                if (next > runStart)
                {
                    publishRecvs(runStart, next - 1);
                }
                failRecvAtPost(next, localStatus);
                for (accepted++; accepted < size; accepted++)
                {
                    status = postRecvAlone(list.request(accepted));
                    if (OK != status)
                    {
                        break;
                    }
                }
                return list.posted(accepted, status);
            }
            next++;
        }
        if (next > runStart)
        {
            publishRecvs(runStart, next - 1);
        }
        return list.posted(accepted, status);
    }

    private void fillRecv(final long pos, final RecvRequest request, final int localStatus)
    {
        recvQueue.fillRecv(pos, request.wrId(), WcStatus.SUCCESS == localStatus ? request.sgeCount() : 0,
            checks.recvRegions(), checks.recvOffsets(), checks.recvLengths());
    }

    private void failRecvAtPost(final long pos, final int localStatus)
    {
        recvQueue.publish(pos);
        if (recvQueue.complete(pos, localStatus, Opcode.RECV, 0, 0, 0))
        {
            enterError();
        }
        recvQueue.drain(recvCq, qpNumber);
    }

    private void publishRecvs(final long first, final long last)
    {
        recvQueue.publish(first, last);
        if (QpState.ERROR == state)
        {
            flushAndDrain();
            return;
        }
        onRecvPosted();
    }

    /** {@inheritDoc} */
    public final void modify(final QpState target)
    {
        Objects.requireNonNull(target, "target");
        if (closed)
        {
            throw new IllegalStateException("queue pair " + qpNumber + " is closed; create a new one");
        }
        final QpState current = state;
        if (target == current && QpState.ERROR != target)
        {
            return;
        }
        switch (target)
        {
            case INIT:
                if (QpState.RESET == current && STATE.compareAndSet(this, QpState.RESET, QpState.INIT))
                {
                    return;
                }
                break;
            case ERROR:
                enterError();
                return;
            case RESET:
                if (QpState.ERROR == current)
                {
                    if (!sendQueue.isDrained() || !recvQueue.isDrained())
                    {
                        throw new IllegalStateException("queue pair " + qpNumber + " still has flushed work requests " +
                            "not handed to its completion queue; poll the CQ, then reset");
                    }
                    sendQueue.clearError();
                    recvQueue.clearError();
                    onReset();
                    state = QpState.RESET;
                    return;
                }
                break;
            default:
                throw new IllegalStateException("move a queue pair to " + target + " by connecting it through the " +
                    "ConnectionManager (connect or accept), not by modify()");
        }
        throw new IllegalStateException("queue pair " + qpNumber + " cannot go from " + current + " to " + target +
            "; allowed by hand: RESET->INIT, any->ERROR, ERROR->RESET");
    }

    /** {@inheritDoc} */
    public final void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        enterError();
        onClose();
        sendCq.detach(config.sendDepth());
        recvCq.detach(config.recvDepth());
        sendCq.untrack(this);
        recvCq.untrack(this);
        pd.removeQueuePair(this);
    }

    /** {@inheritDoc} */
    public final RemoteMemory mapRemote(final long remoteAddress, final int rkey, final long length, final int access)
    {
        if (!capabilities.has(Capabilities.DIRECT_PEER_ACCESS))
        {
            throw noDirectPeerAccess();
        }
        MappedRemoteMemory.checkArguments(length, access);
        final QpState current = state;
        if (closed || QpState.RTS != current)
        {
            throw new IllegalStateException("queue pair " + qpNumber + " is " + (closed ? "closed" : current) +
                ": mapRemote needs a connected queue pair (RTS)");
        }
        return mapPeerRegion(remoteAddress, rkey, length, access);
    }

    /**
     * The provider's part of {@link #mapRemote}, called with validated arguments on a queue pair in RTS, only when
     * the device advertises {@link Capabilities#DIRECT_PEER_ACCESS} (a provider that does overrides it).
     *
     * @param remoteAddress peer-side address.
     * @param rkey          peer rkey.
     * @param length        bytes, 1 to {@link Integer#MAX_VALUE}.
     * @param access        REMOTE_* bits.
     * @return the view.
     */
    protected RemoteMemory mapPeerRegion(final long remoteAddress, final int rkey, final long length,
        final int access)
    {
        throw noDirectPeerAccess();
    }

    private UnsupportedOperationException noDirectPeerAccess()
    {
        return new UnsupportedOperationException("the " + pd.device().name() + " device cannot map a peer's " +
            "memory (Capabilities.DIRECT_PEER_ACCESS is not advertised): use RDMA_WRITE, RDMA_READ and atomics");
    }

    /**
     * For connection managers: moves a RESET or INIT queue pair to RTR and then RTS once the provider has bound it
     * to its peer.
     *
     * @throws ConnectionException if the queue pair is closed, in ERROR or already connected.
     */
    protected final void moveToRts()
    {
        if (closed)
        {
            throw new ConnectionException("queue pair " + qpNumber + " is closed");
        }
        final QpState current = state;
        if (QpState.RESET != current && QpState.INIT != current)
        {
            throw new ConnectionException("queue pair " + qpNumber + " is " + current +
                "; only a RESET or INIT queue pair can be connected (reset it first after an error)");
        }
        if (!STATE.compareAndSet(this, current, QpState.RTR))
        {
            throw new ConnectionException("queue pair " + qpNumber + " changed state while connecting");
        }
        if (!STATE.compareAndSet(this, QpState.RTR, QpState.RTS))
        {
            throw new ConnectionException("queue pair " + qpNumber + " failed while connecting: " + state);
        }
    }

    /**
     * For connection managers: checks a queue pair can be connected, before any handshake.
     *
     * @throws ConnectionException if not.
     */
    protected final void checkConnectable()
    {
        final QpState current = state;
        if (closed || (QpState.RESET != current && QpState.INIT != current))
        {
            throw new ConnectionException("queue pair " + qpNumber + " is " + (closed ? "closed" : current) +
                "; only a RESET or INIT queue pair can be connected");
        }
    }

    /**
     * Reports the result of a send work request. Any status but SUCCESS and WR_FLUSH_ERR moves the queue pair to
     * ERROR. Any thread; once per position (later calls are ignored).
     *
     * @param pos        send-queue position.
     * @param status     a {@link WcStatus}.
     * @param byteLength bytes transferred.
     */
    public final void completeSend(final long pos, final int status, final int byteLength)
    {
        if (WcStatus.SUCCESS == status &&
            sendQueue.completeInOrder(pos, sendQueue.opcode(pos), byteLength, 0, 0, sendCq, qpNumber))
        {
            return;
        }
        if (sendQueue.complete(pos, status, sendQueue.opcode(pos), byteLength, 0, 0) &&
            WcStatus.SUCCESS != status && WcStatus.WR_FLUSH_ERR != status)
        {
            enterError();
        }
        sendQueue.drain(sendCq, qpNumber);
    }

    /**
     * For the provider's single receiving thread: the next posted receive, in order.
     *
     * @return its position, or -1 when none is posted (receiver not ready).
     */
    public final long takeRecv()
    {
        return recvQueue.take();
    }

    /**
     * Reports the result of a receive taken with {@link #takeRecv()}. A status other than SUCCESS moves the queue pair
     * to ERROR.
     *
     * @param pos        receive-queue position.
     * @param status     a {@link WcStatus}.
     * @param opcode     {@link Opcode#RECV} or {@link Opcode#RECV_RDMA_WITH_IMM}.
     * @param byteLength bytes received.
     * @param immediate  immediate data.
     * @param cqFlags    {@link io.verbs4j.CompletionHandler#WITH_IMM} or 0.
     */
    public final void completeRecv(
        final long pos,
        final int status,
        final int opcode,
        final int byteLength,
        final int immediate,
        final int cqFlags)
    {
        if (WcStatus.SUCCESS == status &&
            recvQueue.completeInOrder(pos, opcode, byteLength, immediate, cqFlags, recvCq, qpNumber))
        {
            return;
        }
        if (recvQueue.complete(pos, status, opcode, byteLength, immediate, cqFlags) && WcStatus.SUCCESS != status)
        {
            enterError();
        }
        recvQueue.drain(recvCq, qpNumber);
    }

    /**
     * Fails the connection: the oldest outstanding send (if any) completes with {@code status}, then everything else
     * flushes. For a dead peer use {@link WcStatus#RETRY_EXC_ERR}.
     *
     * @param status the status for the oldest outstanding send.
     */
    public final void fail(final int status)
    {
        sendQueue.completeOldestPending(status);
        enterError();
    }

    /**
     * Moves to ERROR (once: the provider hook runs on the first transition), flushes and drains both queues.
     */
    public final void enterError()
    {
        while (true)
        {
            final QpState current = state;
            if (QpState.ERROR == current)
            {
                break;
            }
            if (STATE.compareAndSet(this, current, QpState.ERROR))
            {
                onEnterError(current);
                break;
            }
        }
        flushAndDrain();
    }

    private void flushAndDrain()
    {
        sendQueue.flushPending();
        recvQueue.flushPending();
        sendQueue.drain(sendCq, qpNumber);
        recvQueue.drain(recvCq, qpNumber);
    }

    /**
     * Carries a validated, published send out. Called on the posting thread, with the queue pair in RTS (it may go
     * to ERROR concurrently; the provider then completes with a flush or ignores the slot, which the flush covers).
     *
     * @param pos send-queue position; read the request from {@link #sendQueue()}.
     */
    protected abstract void transmit(long pos);

    /**
     * Carries out validated sends published together ({@link #postSend(PostList)}): positions {@code firstPos} to
     * {@code lastPos}, in order, published with one producer-index store. Same calling context as
     * {@link #transmit(long)}. The default calls {@link #transmit(long)} for each position; a provider whose
     * transmit drains everything published (a pump up to {@link WorkQueue#posted()}) overrides it to wake that pump
     * once.
     *
     * @param firstPos first send-queue position of the batch.
     * @param lastPos  last position (inclusive), greater than {@code firstPos}.
     */
    protected void transmitBatch(final long firstPos, final long lastPos)
    {
        for (long pos = firstPos; pos <= lastPos; pos++)
        {
            transmit(pos);
        }
    }

    /** Called after a receive was posted, e.g. to wake a sender waiting on RNR. Default: nothing. */
    protected void onRecvPosted()
    {
    }

    /**
     * Called once when the queue pair enters ERROR: tell the peer, stop I/O. Must not block.
     *
     * @param previous the state it left.
     */
    protected abstract void onEnterError(QpState previous);

    /** Called on ERROR to RESET: forget the peer so the queue pair can be connected again. */
    protected abstract void onReset();

    /** Called once on close, after the transition to ERROR: release provider resources. */
    protected abstract void onClose();
}
