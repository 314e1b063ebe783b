// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * A reliable-connected queue pair ({@code ibv_qp} of type RC): a send queue and a receive queue, connected to
 * exactly one peer queue pair through the {@link ConnectionManager}. Delivery is reliable and in order; completions
 * of each queue come out in posting order.
 * <p>
 * Posting never blocks, never allocates and never throws for a runtime condition: it returns {@link #OK} or one of
 * the negative codes below. Failures of an accepted request come later as a completion with a {@link WcStatus}.
 * <p>
 * Threading: each queue (send, receive) is posted by one thread at a time (single writer, no locks); the two queues
 * may be posted from different threads; different queue pairs are independent. A queue pair created with
 * {@link QueuePairConfig#threadSafePosting(boolean)} takes any number of posting threads at once, each post paying
 * for its queue's lock; each thread then needs request objects of its own.
 * <p>
 * Idiom:
 * <pre>{@code
 * qp.modify(QpState.INIT);
 * qp.postRecv(recv.wrId(1));                 // receives first: a SEND that finds none is RNR-retried
 * byte[] peerInfo = cm.connect(qp, "shm://server", myInfo, Duration.ofSeconds(5));
 * int rc = qp.postSend(send.wrId(2));
 * if (QueuePair.BACK_PRESSURED == rc) { ... poll the CQ, then retry ... }
 * rc = qp.postSend(list.clear().add(write.wrId(3)).add(send.wrId(4)));   // a PostList: one publish for both
 * }</pre>
 */
public interface QueuePair extends AutoCloseable
{
    /** The request was accepted; it will complete through the completion queue. */
    int OK = 0;
    /** The queue is full (slots are freed by polling completions); try again after polling. */
    int BACK_PRESSURED = -1;
    /** The queue pair is not in a state that accepts this post (sends need RTS, receives INIT or later). */
    int INVALID_STATE = -2;
    /**
     * The request is malformed: too many SGEs, inline or inject payload above the queue pair's max inline length,
     * inject of a READ or atomic, misaligned or mis-sized atomic, bad length.
     */
    int INVALID_REQUEST = -3;
    /** The opcode or flag is not advertised in the device's {@link Capabilities}. */
    int NOT_SUPPORTED = -4;
    /** The queue pair was closed. */
    int CLOSED = -5;

    /** @return the number identifying this queue pair in completions; unique within the device. */
    int qpNumber();

    /** @return the current state (may change at any time from another thread, e.g. to ERROR). */
    QpState state();

    /** @return the configuration given at creation. */
    QueuePairConfig config();

    /** @return the protection domain; only its regions are usable in SGEs and by this QP's peer's rkeys. */
    ProtectionDomain protectionDomain();

    /**
     * Posts one send work request.
     *
     * @param request the request; copied, so reusable when this returns.
     * @return {@link #OK}, {@link #BACK_PRESSURED}, {@link #INVALID_STATE}, {@link #INVALID_REQUEST},
     * {@link #NOT_SUPPORTED} or {@link #CLOSED}. In ERROR the request is accepted and flushed.
     */
    int postSend(SendRequest request);

    /**
     * Posts a list of send work requests in one call ({@code ibv_post_send} with a chain of work requests). Each
     * request is validated and accepted as {@link #postSend(SendRequest)} would, in list order; posting stops at
     * the first request refused, and every request accepted before it stays posted. {@link PostList#accepted()} then
     * says how many were accepted ({@code bad_wr} is {@code list.request(list.accepted())}) and the return value
     * (also {@link PostList#status()}) why that one was refused.
     * <p>
     * Accepted requests complete in list order, after everything posted before the call, exactly as if each had
     * been posted alone; one that fails locally (a bad lkey) is accepted and completes with its error, and the
     * requests after it are accepted and flushed, as verbs does. The cost differs: the accepted run is published to
     * the provider with one producer-index store and one wake-up. A request is carried out at once by the posting
     * thread (where the provider can) only while nothing before it, in this list or earlier, is outstanding.
     * <p>
     * Threading as {@link #postSend(SendRequest)}: the send queue's single posting thread. Never blocks, never
     * allocates, never throws for a runtime condition.
     *
     * @param list the requests, from index 0; the list and the requests may be changed once this returns.
     * @return {@link #OK} if every request was accepted, else the code of the first refused one:
     * {@link #BACK_PRESSURED}, {@link #INVALID_REQUEST} or {@link #NOT_SUPPORTED}; {@link #INVALID_STATE} or
     * {@link #CLOSED} refuse the whole list (0 accepted). An empty list returns {@link #OK}.
     */
    int postSend(PostList<SendRequest> list);

    /**
     * Posts one receive work request.
     *
     * @param request the request; copied, so reusable when this returns.
     * @return {@link #OK}, {@link #BACK_PRESSURED}, {@link #INVALID_STATE}, {@link #INVALID_REQUEST} or
     * {@link #CLOSED}. In ERROR the request is accepted and flushed.
     */
    int postRecv(RecvRequest request);

    /**
     * Posts a list of receive work requests in one call ({@code ibv_post_recv} with a chain), with the contract of
     * {@link #postSend(PostList)}: in list order, stopping at the first refused request, accepted ones staying
     * posted, {@link PostList#accepted()} and the return value saying how many and why; the accepted run is
     * published once and the provider told once.
     *
     * @param list the requests, from index 0; reusable once this returns.
     * @return {@link #OK} if every request was accepted, else the code of the first refused one:
     * {@link #BACK_PRESSURED} or {@link #INVALID_REQUEST}; {@link #INVALID_STATE} or {@link #CLOSED} refuse the
     * whole list (0 accepted). An empty list returns {@link #OK}.
     */
    int postRecv(PostList<RecvRequest> list);

    /**
     * Moves the queue pair by hand: RESET to INIT, any state to ERROR (flushing everything outstanding), ERROR to
     * RESET (a reset queue pair may be connected again). INIT to RTR to RTS happens through the connection manager.
     *
     * @param target the state to move to.
     * @throws IllegalStateException if the transition is not one of the above, naming what to do instead, or if the
     *                               queue pair was closed.
     */
    void modify(QpState target);

    /**
     * Maps part of the connected peer's registered region into this process for direct load, store and CPU atomics
     * ({@link Capabilities#DIRECT_PEER_ACCESS}). The same checks a one-sided verb makes come first: the rkey names a
     * region of the peer, in the protection domain the peer's queue pair belongs to, registered with every REMOTE_*
     * bit of {@code access}, covering {@code [remoteAddress, remoteAddress + length)}.
     * <p>
     * Setup path, not data path: it maps memory (allow tens of microseconds). Thread-safe with respect to posts.
     *
     * @param remoteAddress peer-side address of the first byte.
     * @param rkey          the peer region's rkey.
     * @param length        bytes, 1 to {@link Integer#MAX_VALUE}.
     * @param access        {@link Access#REMOTE_READ}, {@link Access#REMOTE_WRITE} and/or {@link Access#REMOTE_ATOMIC}.
     * @return the view; close it when done.
     * @throws UnsupportedOperationException if the device does not advertise {@link Capabilities#DIRECT_PEER_ACCESS}
     *                                       (use RDMA_WRITE, RDMA_READ and atomics instead); nothing falls back.
     * @throws IllegalStateException         if the queue pair is not connected (RTS).
     * @throws IllegalArgumentException      for a bad length or access.
     * @throws RemoteAccessException         if the peer refuses: unknown rkey, other protection domain, missing
     *                                       access, out of bounds (REM_ACCESS_ERR), or the peer is gone.
     */
    RemoteMemory mapRemote(long remoteAddress, int rkey, long length, int access);

    /** @return send-queue slots free right now. */
    int sendQueueFree();

    /** @return receive-queue slots free right now. */
    int recvQueueFree();

    /**
     * Disconnects (the peer's queue pair goes to ERROR), flushes what is outstanding, and frees the queue pair.
     * Idempotent.
     */
    @Override
    void close();

    /**
     * @param code a post return code.
     * @return its name and meaning, for messages.
     */
    static String describe(final int code)
    {
        switch (code)
        {
            case OK:
                return "OK";
            case BACK_PRESSURED:
                return "BACK_PRESSURED (queue full: poll completions, then post again)";
            case INVALID_STATE:
                return "INVALID_STATE (sends need RTS, receives INIT, RTR or RTS)";
            case INVALID_REQUEST:
                return "INVALID_REQUEST (check SGE count, lengths, inline/inject size and opcode, atomic alignment)";
            case NOT_SUPPORTED:
                return "NOT_SUPPORTED (the device does not advertise this opcode or flag)";
            case CLOSED:
                return "CLOSED (the queue pair was closed)";
            default:
                return "UNKNOWN(" + code + ")";
        }
    }
}
