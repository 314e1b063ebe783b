// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.util.Objects;

/**
 * Attributes of a queue pair ({@code struct ibv_qp_init_attr} plus the RNR settings of {@code ibv_qp_attr}).
 * Fluent and validated by {@link ProtectionDomain#createQueuePair(QueuePairConfig)}.
 */
public final class QueuePairConfig
{
    /** Default send and receive queue depth. */
    public static final int DEFAULT_DEPTH = 128;
    /** Default RNR retry count; 7 means retry for ever, as in verbs. */
    public static final int DEFAULT_RNR_RETRY = 7;
    /** Default wait between RNR retries. */
    public static final long DEFAULT_RNR_TIMER_NS = 10_000L;
    /** The RNR retry count meaning "for ever". */
    public static final int RNR_RETRY_INFINITE = 7;

    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private int sendDepth = DEFAULT_DEPTH;
    private int recvDepth = DEFAULT_DEPTH;
    private int maxSendSge = 1;
    private int maxRecvSge = 1;
    private int maxInlineLength = 0;
    private int rnrRetry = DEFAULT_RNR_RETRY;
    private long rnrTimerNs = DEFAULT_RNR_TIMER_NS;
    private boolean threadSafePosting;

    /**
     * @param sendCq completion queue for send completions.
     * @param recvCq completion queue for receive completions (may be the same).
     */
    public QueuePairConfig(final CompletionQueue sendCq, final CompletionQueue recvCq)
    {
        this.sendCq = Objects.requireNonNull(sendCq, "sendCq");
        this.recvCq = Objects.requireNonNull(recvCq, "recvCq");
    }

    /**
     * @param cq one completion queue for both directions.
     */
    public QueuePairConfig(final CompletionQueue cq)
    {
        this(Objects.requireNonNull(cq, "cq"), cq);
    }

    /**
     * @param sendDepth send-queue slots.
     * @return this.
     */
    public QueuePairConfig sendDepth(final int sendDepth)
    {
        this.sendDepth = sendDepth;
        return this;
    }

    /**
     * @param recvDepth receive-queue slots.
     * @return this.
     */
    public QueuePairConfig recvDepth(final int recvDepth)
    {
        this.recvDepth = recvDepth;
        return this;
    }

    /**
     * @param maxSendSge most SGEs per send request.
     * @return this.
     */
    public QueuePairConfig maxSendSge(final int maxSendSge)
    {
        this.maxSendSge = maxSendSge;
        return this;
    }

    /**
     * @param maxRecvSge most SGEs per receive request.
     * @return this.
     */
    public QueuePairConfig maxRecvSge(final int maxRecvSge)
    {
        this.maxRecvSge = maxRecvSge;
        return this;
    }

    /**
     * @param maxInlineLength largest inline payload this QP will post.
     * @return this.
     */
    public QueuePairConfig maxInlineLength(final int maxInlineLength)
    {
        this.maxInlineLength = maxInlineLength;
        return this;
    }

    /**
     * @param rnrRetry how many times a SEND that finds no receive is retried (0..7, 7 = for ever).
     * @return this.
     */
    public QueuePairConfig rnrRetry(final int rnrRetry)
    {
        this.rnrRetry = rnrRetry;
        return this;
    }

    /**
     * @param rnrTimerNs wait between RNR retries.
     * @return this.
     */
    public QueuePairConfig rnrTimerNs(final long rnrTimerNs)
    {
        this.rnrTimerNs = rnrTimerNs;
        return this;
    }

    /**
     * Lets several threads post to each queue of the queue pair at the same time. By default (false) each queue is
     * posted by one thread at a time and posting takes no lock, as an ibverbs queue pair in a thread domain; with
     * true every post takes that queue's lock first (a spin-then-yield lock: no allocation, never parks; uncontended
     * it adds one atomic instruction per post). Completion-queue polling is not affected: each CQ still has one
     * polling thread at a time.
     *
     * @param threadSafePosting true to serialize concurrent posts with a lock per queue.
     * @return this.
     */
    public QueuePairConfig threadSafePosting(final boolean threadSafePosting)
    {
        this.threadSafePosting = threadSafePosting;
        return this;
    }

    /** @return send completion queue. */
    public CompletionQueue sendCq()
    {
        return sendCq;
    }

    /** @return receive completion queue. */
    public CompletionQueue recvCq()
    {
        return recvCq;
    }

    /** @return send depth. */
    public int sendDepth()
    {
        return sendDepth;
    }

    /** @return receive depth. */
    public int recvDepth()
    {
        return recvDepth;
    }

    /** @return max send SGEs. */
    public int maxSendSge()
    {
        return maxSendSge;
    }

    /** @return max receive SGEs. */
    public int maxRecvSge()
    {
        return maxRecvSge;
    }

    /** @return max inline length. */
    public int maxInlineLength()
    {
        return maxInlineLength;
    }

    /** @return RNR retry count. */
    public int rnrRetry()
    {
        return rnrRetry;
    }

    /** @return whether posts to each queue are serialized by a lock ({@link #threadSafePosting(boolean)}). */
    public boolean threadSafePosting()
    {
        return threadSafePosting;
    }

    /** @return RNR timer. */
    public long rnrTimerNs()
    {
        return rnrTimerNs;
    }

    /**
     * Checks the attributes against a device's limits.
     *
     * @param caps the device's capabilities.
     * @throws IllegalArgumentException naming the first attribute out of range and the limit.
     */
    public void validate(final Capabilities caps)
    {
        Objects.requireNonNull(caps, "caps");
        check("sendDepth", sendDepth, 1, caps.maxQueueDepth());
        check("recvDepth", recvDepth, 1, caps.maxQueueDepth());
        check("maxSendSge", maxSendSge, 1, caps.maxSge());
        check("maxRecvSge", maxRecvSge, 1, caps.maxSge());
        check("maxInlineLength", maxInlineLength, 0, caps.maxInlineLength());
        check("rnrRetry", rnrRetry, 0, RNR_RETRY_INFINITE);
        if (rnrTimerNs < 0)
        {
            throw new IllegalArgumentException("rnrTimerNs must not be negative: " + rnrTimerNs);
        }
    }

    private static void check(final String name, final int value, final int min, final int max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + "=" + value + " is out of range [" + min + ", " + max +
                "] for this device (see Device.capabilities())");
        }
    }
}
