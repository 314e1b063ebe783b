// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import org.agrona.concurrent.IdleStrategy;

/**
 * The loop body of every blocking heap call: idles according to the work the caller's last progress step found,
 * and, at most every {@link #CHECK_INTERVAL_NS} of idling, lets the heap check its peers' health (queue pairs in
 * ERROR, peer memory gone); throws the heap's failure as soon as there is one, or a
 * {@link ShmemException.Reason#TIMEOUT} at the deadline. So a dead peer fails every blocked call within the
 * device's peer timeout plus a millisecond.
 * Single-threaded; allocation-free unless it throws.
 * <pre>{@code
 * waiter.begin(timeoutNs);
 * while (!done())
 * {
 *     waiter.idle(progress(), "quiet", pe);
 * }
 * }</pre>
 */
final class Waiter
{
    /** How often an idle wait checks the peers' health. */
    static final long CHECK_INTERVAL_NS = 1_000_000L;

    /** What the heap (its {@link HeapResources}) does for a waiter. */
    interface Driver
    {
        /** Looks at every peer (queue-pair state, peer-memory validity) and records a failure. */
        void checkHealth();
    }

    private final Driver driver;
    private final HeapFailure failure;
    private final IdleStrategy idle;
    private long deadline;
    private long timeoutNs;
    private long nextCheck;

    Waiter(final Driver driver, final HeapFailure failure, final IdleStrategy idle)
    {
        this.driver = driver;
        this.failure = failure;
        this.idle = idle;
    }

    /**
     * Starts a wait.
     *
     * @param timeoutNs limit from now.
     */
    void begin(final long timeoutNs)
    {
        final long now = System.nanoTime();
        this.timeoutNs = timeoutNs;
        this.deadline = now + timeoutNs;
        this.nextCheck = now + CHECK_INTERVAL_NS;
        idle.reset();
    }

    /**
     * One round of waiting.
     *
     * @param work what the caller's progress step did (0 when idle).
     * @param what the call, for the timeout message.
     * @param pe   the PE waited for, or -1.
     * @throws ShmemException the heap's failure, or TIMEOUT.
     */
    void idle(final int work, final String what, final int pe)
    {
        failure.check();
        if (work > 0)
        {
            idle.idle(work);
            return;
        }
        final long now = System.nanoTime();
        if (now - nextCheck >= 0)
        {
            nextCheck = now + CHECK_INTERVAL_NS;
            driver.checkHealth();
            failure.check();
        }
        if (now - deadline >= 0)
        {
            throw new ShmemException(ShmemException.Reason.TIMEOUT, pe, what + (pe >= 0 ? " on PE " + pe : "") +
                " did not complete within " + timeoutNs / 1_000_000 + " ms", null);
        }
        idle.idle(0);
    }
}
