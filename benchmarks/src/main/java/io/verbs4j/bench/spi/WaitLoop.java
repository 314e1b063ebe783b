// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The idle step of every polling loop in the benchmarks, with a timeout and an abort flag.
 * <pre>
 * waitLoop.reset();
 * while (!conditionMet())
 * {
 *     waitLoop.idle();   // backs off, throws TimeoutException after timeoutMs, or if aborted
 * }
 * </pre>
 * By default it backs off: {@value #MAX_SPINS} spins, then {@value #MAX_YIELDS} yields, then parks from
 * {@value #MIN_PARK_NS} ns doubling to {@value #MAX_PARK_NS} ns (Agrona {@link BackoffIdleStrategy}); with
 * {@code busyPoll} it only spins ({@link BusySpinIdleStrategy}). The clock is read only once every
 * {@value #CLOCK_CHECK_MASK_PLUS_ONE} idle steps, so the timeout is checked lazily. Single-threaded, except
 * {@link #abort()}, which any thread may call.
 */
public final class WaitLoop
{
    /** Spins before yielding in the default back-off. */
    public static final long MAX_SPINS = 1_000;
    /** Yields before parking in the default back-off. */
    public static final long MAX_YIELDS = 100;
    /** First park period in the default back-off. */
    public static final long MIN_PARK_NS = 1_000;
    /** Longest park period in the default back-off. */
    public static final long MAX_PARK_NS = 1_000_000;

    private static final int CLOCK_CHECK_MASK = 0x3FF;
    private static final int CLOCK_CHECK_MASK_PLUS_ONE = CLOCK_CHECK_MASK + 1;

    private final IdleStrategy idleStrategy;
    private final long timeoutNs;
    private volatile boolean aborted;
    private int idleCount;
    private long startNs;

    /**
     * Creates a wait loop.
     *
     * @param busyPoll  {@code true} to busy-spin, {@code false} to back off.
     * @param timeoutMs longest single wait.
     */
    public WaitLoop(final boolean busyPoll, final long timeoutMs)
    {
        this.idleStrategy = busyPoll ?
            new BusySpinIdleStrategy() : new BackoffIdleStrategy(MAX_SPINS, MAX_YIELDS, MIN_PARK_NS, MAX_PARK_NS);
        this.timeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    }

    /**
     * Creates the wait loop a session asks for.
     *
     * @param spec the session.
     * @return a new wait loop.
     */
    public static WaitLoop forSession(final SessionSpec spec)
    {
        return new WaitLoop(spec.busyPoll(), spec.timeoutMs());
    }

    /**
     * Starts a new wait: the back-off and the timeout start over.
     */
    public void reset()
    {
        idleStrategy.reset();
        idleCount = 0;
    }

    /**
     * One idle step of the current wait.
     *
     * @throws TimeoutException if the current wait has lasted longer than the timeout, or {@link #abort()} was
     *                          called.
     */
    public void idle() throws TimeoutException
    {
        if (aborted)
        {
            throw new TimeoutException("wait aborted");
        }
        idleStrategy.idle();
        final int count = ++idleCount;
        if (0 == (count & CLOCK_CHECK_MASK))
        {
            final long nowNs = System.nanoTime();
            if (CLOCK_CHECK_MASK_PLUS_ONE == count)
            {
                startNs = nowNs;
            }
            else if (nowNs - startNs > timeoutNs)
            {
                throw new TimeoutException("peer did not respond within " +
                    TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
            }
        }
    }

    /**
     * Makes the current and every later {@link #idle()} throw. Safe from any thread.
     */
    public void abort()
    {
        aborted = true;
    }

    /**
     * The name of the idle mode, for reports.
     *
     * @param busyPoll the session's setting.
     * @return {@code busy-poll} or {@code backoff}.
     */
    public static String modeName(final boolean busyPoll)
    {
        return busyPoll ? "busy-poll" : "backoff";
    }
}
