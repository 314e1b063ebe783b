// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The warm-up rule on synthetic series: the per-call time of a window is a function of the window's number and of
 * the calls run before it (a JIT compiling the path after a while); the clock advances by exactly the calls' time
 * plus a fixed gap per window (the decision).
 */
class WarmupTrackerTest
{
    private static final long GAP_NS = 10_000;

    /** Per-call time of a window. */
    @FunctionalInterface
    private interface Series
    {
        long nsPerCall(int window, long callsBefore);
    }

    /** Drives a tracker; returns its result. */
    private static WarmupResult drive(final WarmupPolicy policy, final Series series)
    {
        final WarmupTracker tracker = policy.tracker();
        long calls = tracker.firstWindowCalls();
        long done = 0;
        long clockNs = 0;
        int window = 0;
        while (calls > 0)
        {
            final long windowNs = calls * series.nsPerCall(window++, done);
            done += calls;
            clockNs += windowNs + GAP_NS;
            calls = tracker.afterWindow(calls, windowNs, clockNs);
        }
        assertTrue(tracker.done());
        return tracker.result();
    }

    @Test
    void shouldStopOnceStableAfterTheMinimumTimeAndCalls()
    {
        // 1 us per call, steady from the start: the minimums decide
        final WarmupResult r = drive(WarmupPolicy.untilStable(), (w, before) -> 1_000);
        assertTrue(r.stable(), r::describe);
        assertTrue(r.elapsedNs() >= WarmupPolicy.DEFAULT_MIN_TIME_NS, r::describe);
        assertTrue(r.elapsedNs() < WarmupPolicy.DEFAULT_MIN_TIME_NS + 4 * WarmupPolicy.DEFAULT_WINDOW_NS,
            r::describe);
        assertTrue(r.calls() >= WarmupPolicy.DEFAULT_MIN_CALLS, r::describe);
        assertEquals("stable", r.outcome());
        assertEquals(1_000, r.lastNsPerCall(), 1e-9);
    }

    @Test
    void shouldKeepGoingWhileTheTimeIsStillFalling()
    {
        // 100 us per call, 10 % less every window (tiers of compilation) until 1 us: about 44 windows, ~0.9 s
        final WarmupResult r = drive(WarmupPolicy.untilStable(),
            (w, before) -> Math.max(1_000, (long)(100_000 * Math.pow(0.9, w))));
        assertTrue(r.stable(), r::describe);
        assertTrue(r.windows() > 44, r::describe);
        assertEquals(1_000, r.lastNsPerCall(), 1e-9, r::describe);
    }

    @Test
    void shouldTakeASlowButSteadyPhaseForTheSteadyStateOnceTheMinimumsAreMet()
    {
        // what the rule cannot know: a later, sudden speed-up. The minimums (0.25 s, 5000 calls) are what covers
        // the JIT's first compilations; this documents the limit rather than hiding it
        final WarmupResult r = drive(WarmupPolicy.untilStable(), (w, before) -> before < 20_000 ? 100_000 : 1_000);
        assertTrue(r.stable(), r::describe);
        assertTrue(r.calls() >= WarmupPolicy.DEFAULT_MIN_CALLS && r.calls() < 20_000, r::describe);
    }

    @Test
    void shouldRespectAMinimumCallCountAboveWhatTheTimeGives()
    {
        // 1 ms per call: 0.25 s is 250 calls, but at least 1,000 are asked (and the cap is out of reach)
        final WarmupPolicy policy = WarmupPolicy.untilStable().withMinCalls(1_000).withCapNs(10_000_000_000L);
        final WarmupResult r = drive(policy, (w, before) -> 1_000_000);
        assertTrue(r.stable(), r::describe);
        assertTrue(r.calls() >= 1_000, r::describe);
    }

    @Test
    void shouldStopAtTheCapWhenTheTimesNeverAgree()
    {
        // windows alternate between 1 us and 3 us per call: never within 5 %
        final WarmupResult r = drive(WarmupPolicy.untilStable(), (w, before) -> 0 == w % 2 ? 1_000 : 3_000);
        assertFalse(r.stable(), r::describe);
        assertEquals("capped", r.outcome());
        assertTrue(r.elapsedNs() >= WarmupPolicy.DEFAULT_CAP_NS, r::describe);
        assertTrue(r.elapsedNs() < WarmupPolicy.DEFAULT_CAP_NS + 5 * WarmupPolicy.DEFAULT_WINDOW_NS, r::describe);
    }

    @Test
    void shouldLetTheCapWinOverTheMinimumCallsForSlowCalls()
    {
        // 50 ms per call (a 64 MiB AllReduce): 5,000 calls would take minutes
        final WarmupResult r = drive(WarmupPolicy.untilStable(), (w, before) -> 50_000_000);
        assertFalse(r.stable(), r::describe);
        assertTrue(r.calls() < 100, r::describe);
    }

    @Test
    void shouldRunExactlyTheCountOfAnExactPolicy()
    {
        final WarmupResult r = drive(WarmupPolicy.exactly(20), (w, before) -> 100_000);
        assertEquals(20, r.calls());
        assertEquals(1, r.windows());
        assertEquals("exact", r.outcome());
        final WarmupTracker none = WarmupPolicy.exactly(0).tracker();
        assertEquals(0, none.firstWindowCalls());
        assertTrue(none.done());
        assertThrows(IllegalStateException.class, () -> none.afterWindow(1, 1, 1));
    }

    @Test
    void shouldSizeWindowsToTheTargetLengthGrowingGradually()
    {
        final WarmupTracker tracker = WarmupPolicy.untilStable().tracker();
        assertEquals(WarmupTracker.FIRST_WINDOW_CALLS, tracker.firstWindowCalls());
        // 16 calls of 1 us: the 20 ms target wants 20,000, growth allows 64
        assertEquals(64, tracker.afterWindow(16, 16_000, 16_000));
        // a slow call: the window shrinks to the target at once
        assertEquals(2, tracker.afterWindow(64, 640_000_000L, 700_000_000L));
    }

    @Test
    void shouldDescribeItselfForTheHeader()
    {
        assertEquals("until stable (>= 0.25 s and >= 5000 calls per size, 3 windows within 5%, cap 3 s)",
            WarmupPolicy.untilStable().describe());
        assertEquals("until stable (>= 0.25 s and >= 20 calls per size, 3 windows within 5%, cap 3 s)",
            WarmupPolicy.untilStable().withMinCalls(20).describe());
        assertEquals("exactly 20 calls per size (no time minimum, no stability check)",
            WarmupPolicy.exactly(20).describe());
        assertThrows(IllegalArgumentException.class, () -> WarmupPolicy.untilStable().withCapNs(1));
    }
}
