// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The spin budget learns from the waits: yielding waits shrink it, waits that end while spinning grow it back. */
class AdaptiveIdleStrategyTest
{
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
        final AdaptiveIdleStrategy idle = new AdaptiveIdleStrategy(100, 10, 1_000, 2_000);
        for (int i = 0; i < 50; i++)
        {
            waitRounds(idle, 40);
        }
        assertEquals(100, idle.spinBudget());
    }

    @Test
    void shouldHalveTheBudgetDownToTheFloorWhenWaitsOutlastIt()
    {
        final AdaptiveIdleStrategy idle = new AdaptiveIdleStrategy(256, 1_000, 1_000, 2_000);
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
        final AdaptiveIdleStrategy idle = new AdaptiveIdleStrategy(256, 1_000, 1_000, 2_000);
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
        final AdaptiveIdleStrategy idle = new AdaptiveIdleStrategy(64, 10, 1_000, 2_000);
        waitRounds(idle, 65);
        final long after = idle.spinBudget();
        for (int i = 0; i < 10; i++)
        {
            idle.reset();
        }
        assertEquals(after, idle.spinBudget());
    }
}
