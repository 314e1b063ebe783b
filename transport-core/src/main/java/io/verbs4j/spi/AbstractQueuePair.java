// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.Objects;
import java.util.function.ToIntBiFunction;

import io.verbs4j.PostList;
import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;

/**
 * The verbs semantics every provider shares: the state machine, request validation, local key checks, the send
 * and receive {@link WorkQueue}s, in-order completions and the flush on ERROR. A provider adds only the wire:
 * {@link #transmit(long)} carries a validated send out ({@link #transmitBatch} a list of them published together by
 * {@link #postSend(PostList)}), and the provider reports results through
 * {@link #completeSend}, {@link #takeRecv()}/{@link #completeRecv} and {@link #fail(int)}.
 * <p>
 * This class is the post path: the checks at post ({@link PostChecks}, skipped for a send request posted again
 * unchanged, {@link LastCheckedSend}), the optional posting lock, publishing and the hand-off to the provider. The
 * state machine, the completions and the life cycle are its package-private superclass,
 * {@link QueuePairStateMachine}.
 * <p>
 * A provider may also {@link #installDirectExecutor install a direct executor}: while the send queue is idle, a
 * request it accepts is carried out inside {@link #postSend} and never becomes a work-queue record
 * ({@link DirectSend}); everything else, and every error, takes the ordinary path above.
 * <p>
 * Threading contract: one thread posts sends at a time and one thread posts receives at a time (they may differ);
 * the provider completes from any thread; {@link #modify} and {@link #close} from any thread. Nothing on the post
 * path blocks: exclusion between the poster, the provider's progress and flushes is by try-locks only (on a
 * {@link io.verbs4j.config.ThreadingMode#SINGLE_THREAD} device, whose application makes every call from one thread at
 * a time, those are plain looks and release stores). A queue pair
 * created with {@link QueuePairConfig#threadSafePosting(boolean)} makes concurrent posters of a queue take turns
 * through that queue's {@link PostLock}, so everything past the lock still sees one poster.
 * <p>
 * What is refused at post time (return codes) and what completes with an error status follows ibverbs: malformed
 * requests are refused ({@code EINVAL} in verbs); a bad lkey, an SGE out of its region or a missing LOCAL_WRITE is a
 * {@link WcStatus#LOC_PROT_ERR} completion that moves the queue pair to ERROR.
 */
public abstract class AbstractQueuePair extends QueuePairStateMachine
{
    // The post bodies, as non-capturing constants for locked(): no allocation per post.
    private static final ToIntBiFunction<AbstractQueuePair, SendRequest> SEND_ONE = AbstractQueuePair::postSendAlone;
    private static final ToIntBiFunction<AbstractQueuePair, PostList<SendRequest>> SEND_LIST =
        AbstractQueuePair::postSendListAlone;
    private static final ToIntBiFunction<AbstractQueuePair, RecvRequest> RECV_ONE = AbstractQueuePair::postRecvAlone;
    private static final ToIntBiFunction<AbstractQueuePair, PostList<RecvRequest>> RECV_LIST =
        AbstractQueuePair::postRecvListAlone;

    private final AbstractMemoryRegion[] scratchRegions;
    private final LastCheckedSend lastChecked;
    private final long[] scratchOffsets;
    private final PostChecks checks;
    private DirectSend directSend;
    /** Null unless posting is thread-safe ({@link QueuePairConfig#threadSafePosting(boolean)}). */
    private final PostLock sendPostLock;
    private final PostLock recvPostLock;

    /**
     * @param pd       owning domain.
     * @param config   validated attributes (CQs are {@link BaseCompletionQueue}s of the same device).
     * @param qpNumber number unique in the device.
     */
    protected AbstractQueuePair(final AbstractProtectionDomain pd, final QueuePairConfig config, final int qpNumber)
    {
        super(pd, config, qpNumber);
        scratchRegions = new AbstractMemoryRegion[config.maxSendSge()];
        scratchOffsets = new long[config.maxSendSge()];
        lastChecked = new LastCheckedSend(config.maxSendSge());
        checks = new PostChecks(config, pd.device().capabilities(), pd.keys());
        sendPostLock = config.threadSafePosting() ? new PostLock() : null;
        recvPostLock = config.threadSafePosting() ? new PostLock() : null;
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
            throw new IllegalStateException("queue pair " + qpNumber() + " already has a direct executor");
        }
        directSend = new DirectSend(sendQueue, sendCq, qpNumber(), executor);
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
}
