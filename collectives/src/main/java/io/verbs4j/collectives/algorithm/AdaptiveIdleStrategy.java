// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.IdleStrategy;

/**
 * Spin, then yield, then park — with a spin budget learnt from the waits themselves rather than fixed. A wait that
 * ended while still spinning means the peer answers within a spin: the budget grows (up to the configured spins).
 * A wait that had to yield means spinning only kept the core from the rank that had work (more ranks than cores,
 * or a peer that is far behind): the budget halves (down to a few spins). With two ranks on two cores it settles at
 * spinning; with four ranks on two cores at yielding almost at once — the two regimes the fixed back-off had to
 * choose between.
 * <p>
 * {@link #reset()} marks the end of a wait (work arrived); {@link #idle()} is one round of waiting. Single-threaded.
 */
public final class AdaptiveIdleStrategy implements IdleStrategy
{
    /** Smallest spin budget: a few spins still catch a peer that is about to answer. */
    public static final long MIN_SPINS = 8;

    private static final int SPINNING = 0;
    private static final int YIELDING = 1;
    private static final int PARKING = 2;

    private final long maxSpins;
    private final long maxYields;
    private final long minParkNs;
    private final long maxParkNs;
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
        this.maxSpins = Math.max(MIN_SPINS, maxSpins);
        this.maxYields = maxYields;
        this.minParkNs = minParkNs;
        this.maxParkNs = maxParkNs;
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
        if (SPINNING != state)
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
