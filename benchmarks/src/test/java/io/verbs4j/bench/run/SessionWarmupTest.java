// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionWarmupTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void shouldRunNoSessionWithoutALeastTime()
    {
        final SessionWarmup warmup = new SessionWarmup(0, 10_000 * MS, 1000);

        assertFalse(warmup.more());
    }

    @Test
    void shouldStopAtTheLeastTimeWhenNoJitWorked()
    {
        final SessionWarmup warmup = new SessionWarmup(1000 * MS, 10_000 * MS, 1000);
        assertTrue(warmup.more());
        assertEquals(1000, warmup.nextCount());

        warmup.onSession(100 * MS, 0);
        assertTrue(warmup.more());
        assertEquals(9001, warmup.nextCount(), "sized to fill the 900 ms left at 0.1 ms per iteration");

        warmup.onSession(900 * MS, 0);
        assertFalse(warmup.more());
        assertEquals(1000 * MS, warmup.spentNs());
    }

    @Test
    void shouldGoOnInShortSessionsWhileTheJitWorksThenStop()
    {
        final SessionWarmup warmup = new SessionWarmup(1000 * MS, 10_000 * MS, 10_000);
        warmup.onSession(1000 * MS, 50);
        assertTrue(warmup.more(), "5 % of the session compiling");
        assertEquals(2501, warmup.nextCount(), "a 250 ms session at 0.1 ms per iteration");

        warmup.onSession(250 * MS, 3);
        assertTrue(warmup.more(), "1.2 % is still busy");

        warmup.onSession(250 * MS, 2);
        assertFalse(warmup.more(), "0.8 % is quiet");
        assertEquals(1500 * MS, warmup.spentNs());
    }

    @Test
    void shouldStopAtTheCapWhileTheJitStillWorks()
    {
        final SessionWarmup warmup = new SessionWarmup(1000 * MS, 3000 * MS, 10_000);
        int sessions = 0;
        while (warmup.more())
        {
            warmup.onSession(250 * MS, 100);
            sessions++;
        }

        assertEquals(12, sessions);
        assertEquals(3000 * MS, warmup.spentNs());
    }

    @Test
    void shouldNotWaitForTheJitWhenTheLeastTimeIsZero()
    {
        final SessionWarmup warmup = new SessionWarmup(0, 10_000 * MS, 10);

        assertFalse(warmup.more(), "--warmup-exact: the timed session's own iterations only");
    }

    @Test
    void shouldKeepSessionsAtLeastTheSmallestLength()
    {
        final SessionWarmup warmup = new SessionWarmup(1000 * MS, 10_000 * MS, 1);
        assertEquals(SessionWarmup.LEAST_SESSION, warmup.nextCount());

        warmup.onSession(2000 * MS, 0);
        assertEquals(SessionWarmup.LEAST_SESSION, warmup.nextCount());
        assertFalse(warmup.more());
    }
}
