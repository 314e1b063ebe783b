// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The spin budget learns from the waits: waits whose yields gave the core away shrink it, waits that end while
 * spinning grow it back, and waits whose yields came back at once (nobody else wanted the core) double it. The
 * clock is a stand-in that advances a set step per read, so the tests say what the yields cost.
 */
class AdaptiveIdleStrategyTest
{
    /** A clock that advances {@code step} ns each time it is read. */
    private static final class SteppingClock implements NanoClock
    {
        private final long step;
        private long now;

        SteppingClock(final long step)
        {
            this.step = step;
        }

        public long nanoTime()
        {
            now += step;
            return now;
        }
    }

    /** Yields that each took far longer than an uncontended one: another thread ran. */
    private static AdaptiveIdleStrategy contended(final long maxSpins, final long maxYields)
    {
        return new AdaptiveIdleStrategy(maxSpins, maxYields, 1_000, 2_000,
            new SteppingClock(1_000L * maxYields * AdaptiveIdleStrategy.UNCONTENDED_YIELD_NS));
    }

    private static AdaptiveIdleStrategy uncontended(final long maxSpins, final long maxYields)
    {
        return new AdaptiveIdleStrategy(maxSpins, maxYields, 1_000, 2_000, new SteppingClock(1));
    }
    private static void waitRounds(final AdaptiveIdleStrategy idle, final long rounds)
    {
        for (long i = 0; i < rounds; i++)
        {
            idle.idle();
        }
        idle.reset();
    }

    @Test
    void shouldKeepSpinningWhileWaitsEndWithinTheBudget()
    {
        final AdaptiveIdleStrategy idle = contended(100, 10);
        for (int i = 0; i < 50; i++)
        {
            waitRounds(idle, 40);
        }
        assertEquals(100, idle.spinBudget());
    }

    @Test
    void shouldHalveTheBudgetDownToTheFloorWhenWaitsOutlastItAndTheYieldsGaveTheCoreAway()
    {
        final AdaptiveIdleStrategy idle = contended(256, 1_000);
        waitRounds(idle, 257);
        assertEquals(128, idle.spinBudget());
        for (int i = 0; i < 20; i++)
        {
            waitRounds(idle, idle.spinBudget() + 2);
        }
        assertEquals(AdaptiveIdleStrategy.MIN_SPINS, idle.spinBudget());
    }

    @Test
    void shouldGrowBackWhenShortWaitsReturn()
    {
        final AdaptiveIdleStrategy idle = contended(256, 1_000);
        for (int i = 0; i < 20; i++)
        {
            waitRounds(idle, idle.spinBudget() + 2);
        }
        final long low = idle.spinBudget();
        for (int i = 0; i < 100; i++)
        {
            waitRounds(idle, 1);
        }
        assertTrue(idle.spinBudget() > 8 * low, "budget " + idle.spinBudget());
        assertTrue(idle.spinBudget() <= 256);
    }

    @Test
    void shouldNotLearnFromAResetWithoutAWait()
    {
        final AdaptiveIdleStrategy idle = contended(64, 10);
        waitRounds(idle, 65);
        final long after = idle.spinBudget();
        for (int i = 0; i < 10; i++)
        {
            idle.reset();
        }
        assertEquals(after, idle.spinBudget());
    }

    @Test
    void shouldDoubleTheBudgetWhenTheYieldsCameBackAtOnce()
    {
        final AdaptiveIdleStrategy idle = uncontended(256, 1_000);
        for (int i = 0; i < 20; i++)
        {
            waitRounds(idle, idle.spinBudget() + 2);
        }
        assertEquals(256, idle.spinBudget(), "a wait just past the budget, on a core nobody else wanted, grows it");
    }

    @Test
    void shouldLeaveTheFloorWhenWaitsAreJustLongerThanItAndNobodyElseNeedsTheCore()
    {
        // the state the old rule could not leave: the budget at the floor (here after waits long enough to park),
        // then every wait a little longer than the floor; each such wait used to halve it again (it had yielded)
        final AdaptiveIdleStrategy idle = uncontended(200, 100);
        for (int i = 0; i < 10; i++)
        {
            waitRounds(idle, idle.spinBudget() + 100 + 1);
        }
        assertEquals(AdaptiveIdleStrategy.MIN_SPINS, idle.spinBudget());
        for (int i = 0; i < 4; i++)
        {
            waitRounds(idle, 30);
        }
        assertTrue(idle.spinBudget() >= 30, "budget " + idle.spinBudget() + " should cover a 30-round wait");
    }

    @Test
    void shouldHalveTheBudgetWhenAWaitReachedParking()
    {
        final AdaptiveIdleStrategy idle = uncontended(256, 2);
        waitRounds(idle, 256 + 2 + 1);
        assertEquals(128, idle.spinBudget(), "a wait that parked halves the budget even if its yields were cheap");
    }
}
