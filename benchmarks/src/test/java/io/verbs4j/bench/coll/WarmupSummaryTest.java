// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.collectives.measure.TimedRun;
import io.verbs4j.collectives.measure.WarmupResult;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WarmupSummaryTest
{
    private static WarmupResult stable(final long calls, final double seconds)
    {
        return new WarmupResult(false, calls, (long)(seconds * 1e9), 10, true, 1_000);
    }

    @Test
    void shouldCountStablePlacementsAndNameTheCappedOnes()
    {
        final WarmupSummary summary = new WarmupSummary();
        summary.note(stable(5_000, 0.26), 8, false);
        summary.note(stable(412_000, 0.41), 8, true);
        summary.note(new WarmupResult(false, 90, 3_010_000_000L, 50, false, 3e7), 67_108_864, true);
        assertEquals("# Warm-up: 2 of 3 placements reached a stable time; 90-412000 calls, up to 3.01 s each; " +
            "stopped by the cap before the windows agreed (time may still include warm-up effects): 67108864 B " +
            "in-place", summary.line(false));
        summary.reset();
        assertEquals("# Warm-up: none", summary.line(false));
    }

    @Test
    void shouldSayExactAndListAtMostTheNamedLimit()
    {
        final WarmupSummary summary = new WarmupSummary();
        summary.note(new WarmupResult(true, 20, 10_000_000L, 1, true, 500), 8, false);
        assertEquals("# Warm-up: exact, 20-20 calls, up to 0.01 s each", summary.line(true));
        summary.reset();
        for (int i = 0; i < WarmupSummary.MAX_NAMED + 3; i++)
        {
            summary.note(new WarmupResult(false, 10, 3_000_000_000L, 5, false, 1e8), 1L << i, false);
        }
        final String line = summary.line(false);
        assertTrue(line.startsWith("# Warm-up: 0 of 15 placements reached a stable time;"), line);
        assertTrue(line.endsWith("2048 B out-of-place, ..."), line);
    }

    @Test
    void shouldCountRowsTimedAgainAndThoseStillCompilingAtTheLastAttempt()
    {
        final WarmupSummary summary = new WarmupSummary();
        summary.note(stable(5_000, 0.26), 8, false);
        summary.noteTimed(new TimedRun(1_000_000L, 1, true));
        assertEquals("# Warm-up: 1 of 1 placements reached a stable time; 5000-5000 calls, up to 0.26 s each",
            summary.line(false));
        summary.noteTimed(new TimedRun(1_000_000L, 2, true));
        summary.noteTimed(new TimedRun(1_000_000L, 4, false));
        assertTrue(summary.line(false).endsWith("; 2 rows timed again (a JIT compiled during the first attempt), " +
            "1 of them still compiling at the last attempt"), summary.line(false));
        summary.reset();
        summary.note(stable(5_000, 0.26), 8, false);
        summary.noteTimed(new TimedRun(1_000_000L, 2, true));
        assertTrue(summary.line(false).endsWith("; 1 row timed again (a JIT compiled during the first attempt)"),
            summary.line(false));
    }
}
