// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * Spin, then yield, then park — with a spin budget learnt from the waits themselves rather than fixed. A wait that
 * ended while still spinning means the peer answers within a spin: the budget grows (up to the configured spins).
 * A wait that ended while yielding is judged by what the yields cost:
 * <ul>
 *   <li>yields that came back at once ({@link #UNCONTENDED_YIELD_NS} or less each on average) mean nothing else
 *       wanted this core, so spinning longer would have cost nobody anything: the budget doubles. Without this rule
 *       a budget that had shrunk (after a GC pause, say) stayed at the floor for good with two ranks on two cores,
 *       every sub-microsecond wait then paying a system call;</li>
 *   <li>yields that gave the core away (slower on average) mean spinning kept the core from a thread that had work —
 *       more ranks than cores, or a peer far behind: the budget halves (down to a few spins).</li>
 * </ul>
 * A wait that reached the parking phase halves it too. With two ranks on two cores it settles at spinning; with four
 * ranks on two cores at yielding almost at once — the two regimes the fixed back-off had to choose between.
 * <p>
 * {@link #reset()} marks the end of a wait (work arrived); {@link #idle()} is one round of waiting. Single-threaded.
 * The clock is read only in the yielding phase, where a system call costs far more than the read.
 */
public final class AdaptiveIdleStrategy implements IdleStrategy
{
    /** Smallest spin budget: a few spins still catch a peer that is about to answer. */
    public static final long MIN_SPINS = 8;
    /**
     * Average yield time at or under which the yields are taken to have returned without running another thread
     * (a {@code sched_yield} with nobody else runnable on the CPU is a few hundred nanoseconds; one that switches
     * runs the other thread for its slice or until it blocks).
     */
    public static final long UNCONTENDED_YIELD_NS = 2_000;

    private static final int SPINNING = 0;
    private static final int YIELDING = 1;
    private static final int PARKING = 2;

    private final long maxSpins;
    private final long maxYields;
    private final long minParkNs;
    private final long maxParkNs;
    private final NanoClock clock;
    private long yieldStartNs;
    private long spinBudget;
    private long spins;
    private long yields;
    private long parkNs;
    private int state = SPINNING;

    /**
     * @param maxSpins  largest spin budget (also the first).
     * @param maxYields yields before parking.
     * @param minParkNs first park.
     * @param maxParkNs longest park (parks double up to it).
     */
    public AdaptiveIdleStrategy(final long maxSpins, final long maxYields, final long minParkNs, final long maxParkNs)
    {
        this(maxSpins, maxYields, minParkNs, maxParkNs, SystemNanoClock.INSTANCE);
    }

    AdaptiveIdleStrategy(final long maxSpins, final long maxYields, final long minParkNs, final long maxParkNs,
        final NanoClock clock)
    {
        this.maxSpins = Math.max(MIN_SPINS, maxSpins);
        this.maxYields = maxYields;
        this.minParkNs = minParkNs;
        this.maxParkNs = maxParkNs;
        this.clock = clock;
        this.spinBudget = this.maxSpins;
    }

    /** @return the spin budget now (for tests and diagnostics). */
    public long spinBudget()
    {
        return spinBudget;
    }

    /** {@inheritDoc} */
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            reset();
        }
        else
        {
            idle();
        }
    }

    /** {@inheritDoc} */
    public void idle()
    {
        switch (state)
        {
            case SPINNING:
                if (spins < spinBudget)
                {
                    spins++;
                    Thread.onSpinWait();
                    return;
                }
                state = YIELDING;
                yieldStartNs = clock.nanoTime();
                // fall through
            case YIELDING:
                if (yields < maxYields)
                {
                    yields++;
                    Thread.yield();
                    return;
                }
                state = PARKING;
                parkNs = minParkNs;
                // fall through
            default:
                LockSupport.parkNanos(parkNs);
                parkNs = Math.min(parkNs << 1, maxParkNs);
                break;
        }
    }

    /** {@inheritDoc} */
    public void reset()
    {
        if (YIELDING == state && yields > 0 && clock.nanoTime() - yieldStartNs <= yields * UNCONTENDED_YIELD_NS)
        {
            spinBudget = Math.min(maxSpins, spinBudget << 1);
        }
        else if (SPINNING != state)
        {
            spinBudget = Math.max(MIN_SPINS, spinBudget >> 1);
        }
        else if (spins > 0 && spinBudget < maxSpins)
        {
            spinBudget = Math.min(maxSpins, spinBudget + (spinBudget >> 2) + 1);
        }
        spins = 0;
        yields = 0;
        state = SPINNING;
    }

    /** {@inheritDoc} */
    public String alias()
    {
        return "adaptive";
    }
}
