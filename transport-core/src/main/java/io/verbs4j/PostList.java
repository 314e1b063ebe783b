// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.util.Arrays;
import java.util.Objects;

/**
 * A reusable, caller-owned list of work requests posted in one call ({@code ibv_post_send}'s and
 * {@code ibv_post_recv}'s list): {@code PostList<SendRequest>} for {@link QueuePair#postSend(PostList)},
 * {@code PostList<RecvRequest>} for {@link QueuePair#postRecv(PostList)}. The queue pair validates and accepts the
 * requests in list order and stops at the first one it refuses; everything accepted before it stays posted. The
 * whole accepted run is published to the provider once (one producer-index store, one provider wake-up) instead of
 * once per request.
 * <p>
 * After a post, {@link #accepted()} is the number of requests accepted from the front of the list (verbs'
 * {@code bad_wr} is {@code request(accepted())}) and {@link #status()} is the return code of the post: {@link
 * QueuePair#OK} when all were accepted, else the reason the request at index {@code accepted()} was refused. To carry
 * on after {@link QueuePair#BACK_PRESSURED}, {@link #removeAccepted()} drops the accepted ones and the list is posted
 * again once completions were polled:
 * <pre>{@code
 * PostList<SendRequest> list = new PostList<>(16);
 * list.clear().add(write.wrId(1)).add(send.wrId(2));      // requests are referenced, not copied, until posted
 * int rc;
 * while (QueuePair.BACK_PRESSURED == (rc = qp.postSend(list)))
 * {
 *     list.removeAccepted();                              // keep the refused one and those after it
 *     cq.poll(handler, 16);                               // frees send-queue slots
 * }
 * if (QueuePair.OK != rc) { ... list.request(list.accepted()) was refused: rc says why ... }
 * }</pre>
 * Why a list object rather than a {@code next} pointer on each request, as {@code ibv_send_wr} has: a request stays
 * a free-standing descriptor that one {@link QueuePair#postSend(SendRequest)} posts alone (no hidden chain walk, no
 * cycle or stale link to guard against), the same request may appear in several lists, a post does bounded work
 * (at most {@link #capacity()} requests), and the result ({@code bad_wr} and why) lands in storage the caller owns,
 * so a post allocates nothing. The queue pair copies what it needs from each accepted request, so requests and the
 * list may be changed once the post returns.
 * <p>
 * Not thread-safe: one list per posting thread, as for requests.
 *
 * @param <R> {@link SendRequest} or {@link RecvRequest}.
 */
public final class PostList<R>
{
    private final Object[] requests;
    private int size;
    private int accepted;
    private int status = QueuePair.OK;

    /**
     * @param capacity most requests one post takes.
     * @throws IllegalArgumentException if {@code capacity} is below 1.
     */
    public PostList(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        requests = new Object[capacity];
    }

    /**
     * Appends a request (by reference: it is read when the list is posted).
     *
     * @param request the request.
     * @return this.
     * @throws IndexOutOfBoundsException if the list is full.
     */
    public PostList<R> add(final R request)
    {
        Objects.requireNonNull(request, "request");
        if (size == requests.length)
        {
            throw new IndexOutOfBoundsException("this PostList holds at most " + requests.length + " requests");
        }
        requests[size++] = request;
        return this;
    }

    /**
     * Removes every request and forgets the result of the last post.
     *
     * @return this.
     */
    public PostList<R> clear()
    {
        Arrays.fill(requests, 0, size, null);
        size = 0;
        accepted = 0;
        status = QueuePair.OK;
        return this;
    }

    /**
     * Removes the {@link #accepted()} requests from the front (the rest move up, in order), so that posting the list
     * again continues with the request the last post refused.
     *
     * @return this.
     */
    public PostList<R> removeAccepted()
    {
        final int n = accepted;
        if (n > 0)
        {
            System.arraycopy(requests, n, requests, 0, size - n);
            Arrays.fill(requests, size - n, size, null);
            size -= n;
        }
        accepted = 0;
        status = QueuePair.OK;
        return this;
    }

    /** @return requests held. */
    public int size()
    {
        return size;
    }

    /** @return most requests held. */
    public int capacity()
    {
        return requests.length;
    }

    /**
     * @param index 0 to {@link #size()} - 1.
     * @return the request.
     * @throws IndexOutOfBoundsException for an index outside the list.
     */
    @SuppressWarnings("unchecked")
    public R request(final int index)
    {
        Objects.checkIndex(index, size);
        return (R)requests[index];
    }

    /**
     * @return how many requests, from the front, the last post accepted ({@link #size()} when it returned
     *         {@link QueuePair#OK}); the refused request, if any, is {@code request(accepted())}.
     */
    public int accepted()
    {
        return accepted;
    }

    /**
     * @return the last post's return code: {@link QueuePair#OK}, or why {@code request(accepted())} was refused.
     */
    public int status()
    {
        return status;
    }

    /**
     * Records the outcome of a post; called by the queue pair before its post returns, not by applications.
     *
     * @param accepted requests accepted from the front.
     * @param status   {@link QueuePair#OK} or the refusal code of the next request.
     * @return {@code status}.
     */
    public int posted(final int accepted, final int status)
    {
        this.accepted = accepted;
        this.status = status;
        return status;
    }
}
