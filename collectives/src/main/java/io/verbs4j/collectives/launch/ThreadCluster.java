// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import io.verbs4j.collectives.rendezvous.InMemoryStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Runs a {@link RankMain} on {@code size} threads sharing one {@link InMemoryStore}: the fastest way to test a
 * collective, and what the collective test matrix uses.
 *
 * <p>The first rank to throw fails the run: the others are interrupted, given a moment to stop, and the caller
 * gets a {@link ClusterFailedException} whose cause is that first failure. A run still going at the timeout is
 * interrupted the same way. Instances are immutable; {@link #run} may be called repeatedly.
 *
 * <pre>{@code
 * new ThreadCluster(4, Duration.ofSeconds(30)).run((rank, size, store) -> { ... });
 * }</pre>
 */
public final class ThreadCluster
{
    /** How long interrupted ranks get to finish before {@link #run} returns anyway. */
    public static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final int size;
    private final Duration timeout;

    /**
     * Configures a run.
     *
     * @param size    number of ranks, at least 1.
     * @param timeout limit for the whole run, positive.
     */
    public ThreadCluster(final int size, final Duration timeout)
    {
        if (size < 1)
        {
            throw new IllegalArgumentException("cluster size must be >= 1 but was " + size);
        }
        if (null == timeout || timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("timeout must be positive but was " + timeout);
        }
        this.size = size;
        this.timeout = timeout;
    }

    /**
     * Number of ranks.
     *
     * @return the size.
     */
    public int size()
    {
        return size;
    }

    /**
     * Runs every rank to completion.
     *
     * @param main the rank body.
     * @throws ClusterFailedException if a rank threw or the timeout passed.
     */
    public void run(final RankMain main)
    {
        if (null == main)
        {
            throw new IllegalArgumentException("rank main must not be null");
        }
        final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(size);
        final CountDownLatch finished = new CountDownLatch(size);
        // Opens when every rank finished or one failed, whichever comes first: the caller waits on this alone.
        final CountDownLatch stop = new CountDownLatch(1);
        final int[] firstFailedRank = {-1};
        final List<Thread> threads = new ArrayList<>(size);

        try (InMemoryStore store = new InMemoryStore())
        {
            for (int r = 0; r < size; r++)
            {
                final int rank = r;
                final Thread thread = new Thread(() ->
                {
                    try
                    {
                        main.run(rank, size, store);
                    }
                    catch (final Throwable t)
                    {
                        failures.set(rank, t);
                        synchronized (firstFailedRank)
                        {
                            if (-1 == firstFailedRank[0])
                            {
                                firstFailedRank[0] = rank;
                            }
                        }
                        stop.countDown();
                    }
                    finally
                    {
                        finished.countDown();
                        if (0 == finished.getCount())
                        {
                            stop.countDown();
                        }
                    }
                }, "verbs4j-rank-" + rank);
                thread.setDaemon(true);
                threads.add(thread);
            }
            threads.forEach(Thread::start);

            final boolean timedOut = !awaitStop(stop);
            final int failedRank;
            synchronized (firstFailedRank)
            {
                failedRank = firstFailedRank[0];
            }
            if (timedOut || -1 != failedRank)
            {
                threads.forEach(Thread::interrupt);
                awaitQuietly(finished, STOP_GRACE);
                throw failure(failures, failedRank, timedOut, threads);
            }
        }
    }

    /** Waits until all ranks finished or one failed (true), or the timeout passed (false). */
    private boolean awaitStop(final CountDownLatch stop)
    {
        try
        {
            return stop.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private ClusterFailedException failure(
        final AtomicReferenceArray<Throwable> failures, final int firstRank, final boolean timedOut,
        final List<Thread> threads)
    {
        final StringBuilder stillRunning = new StringBuilder();
        for (int r = 0; r < size; r++)
        {
            if (threads.get(r).isAlive())
            {
                stillRunning.append(stillRunning.length() == 0 ? "" : ", ").append(r);
            }
        }
        final String message = timedOut && firstRank < 0 ?
            "thread cluster of " + size + " ranks timed out after " + timeout.toMillis() + " ms" :
            "rank " + firstRank + " of " + size + " failed: " + failures.get(firstRank);
        final ClusterFailedException ex = new ClusterFailedException(
            message + (stillRunning.length() == 0 ? "" : "; ranks not stopped after interrupt: " + stillRunning),
            firstRank, timedOut, firstRank < 0 ? null : failures.get(firstRank));
        for (int r = 0; r < size; r++)
        {
            final Throwable t = failures.get(r);
            if (null != t && r != firstRank)
            {
                ex.addSuppressed(t);
            }
        }
        return ex;
    }

    private static void awaitQuietly(final CountDownLatch latch, final Duration grace)
    {
        try
        {
            latch.await(grace.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
