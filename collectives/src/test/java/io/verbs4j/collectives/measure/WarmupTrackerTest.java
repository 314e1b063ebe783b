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
        // 100 us per call, 10 % less every 1,000 calls (tiers of compilation) until 1 us: 44,000 calls, ~1 s
        final WarmupResult r = drive(WarmupPolicy.untilStable(),
            (w, before) -> Math.max(1_000, (long)(100_000 * Math.pow(0.9, before / 1_000))));
        assertTrue(r.stable(), r::describe);
        assertTrue(r.calls() > 44_000, r::describe);
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
        // windows near the cap last a tenth of the time so far, sized at 1 us per call: one run at 3 us overshoots
        assertTrue(r.elapsedNs() < WarmupPolicy.DEFAULT_CAP_NS * 13 / 10, r::describe);
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
    void shouldNotCountWindowsDuringWhichTheJitCompiled()
    {
        // 1 us per call throughout, but the JIT is at work until 2 s: only the quiet windows after it count
        final WarmupTracker tracker = WarmupPolicy.untilStable().tracker();
        long calls = tracker.firstWindowCalls();
        long clockNs = 0;
        long quietWindows = 0;
        while (calls > 0)
        {
            clockNs += calls * 1_000;
            final boolean quiet = clockNs > 2_000_000_000L;
            quietWindows += quiet ? 1 : 0;
            calls = tracker.afterWindow(calls, calls * 1_000, clockNs, quiet);
        }
        final WarmupResult r = tracker.result();
        assertTrue(r.stable(), r::describe);
        assertTrue(r.elapsedNs() > 2_000_000_000L && quietWindows >= WarmupPolicy.DEFAULT_STABLE_WINDOWS, r::describe);
    }

    @Test
    void shouldExtendTheCapWhileTheJitIsAtWorkUpToTheJitCap()
    {
        // the JIT never settles: stopped at the longer cap, not at 3 s
        final WarmupTracker tracker = WarmupPolicy.untilStable().tracker();
        long calls = tracker.firstWindowCalls();
        long clockNs = 0;
        while (calls > 0)
        {
            clockNs += calls * 1_000;
            calls = tracker.afterWindow(calls, calls * 1_000, clockNs, false);
        }
        final WarmupResult r = tracker.result();
        assertFalse(r.stable(), r::describe);
        assertTrue(r.elapsedNs() >= WarmupPolicy.DEFAULT_JIT_CAP_NS, r::describe);
        // and the JIT going quiet after the plain cap ends it once the windows after it are quiet
        final WarmupTracker late = WarmupPolicy.untilStable().tracker();
        calls = late.firstWindowCalls();
        clockNs = 0;
        while (calls > 0)
        {
            clockNs += calls * 1_000;
            calls = late.afterWindow(calls, calls * 1_000, clockNs, clockNs > 4_000_000_000L);
        }
        // (after as many quiet windows as the stability rule needs, each a tenth of the time so far)
        assertTrue(late.result().elapsedNs() > 4_000_000_000L && late.result().elapsedNs() < 6_500_000_000L,
            late.result()::describe);
    }

    @Test
    void shouldSizeWindowsToTheTargetLengthGrowingGradually()
    {
        final WarmupTracker tracker = WarmupPolicy.untilStable().tracker();
        assertEquals(WarmupTracker.FIRST_WINDOW_CALLS, tracker.firstWindowCalls());
        // 16 calls of 1 us: the 20 ms target wants 20,000, growth allows 64
        assertEquals(64, tracker.afterWindow(16, 16_000, 16_000));
        // a slow call: the window shrinks at once, to a tenth of the 0.7 s so far (longer than the 20 ms target)
        assertEquals(7, tracker.afterWindow(64, 640_000_000L, 700_000_000L));
    }

    @Test
    void shouldDescribeItselfForTheHeader()
    {
        assertEquals("until stable (>= 0.25 s and >= 5000 calls per size, 3 windows within 5% and no JIT at work, " +
            "cap 3 s or 10 s while compiling)",
            WarmupPolicy.untilStable().describe());
        assertEquals("until stable (>= 0.25 s and >= 20 calls per size, 3 windows within 5% and no JIT at work, " +
            "cap 3 s or 10 s while compiling)",
            WarmupPolicy.untilStable().withMinCalls(20).describe());
        assertEquals("exactly 20 calls per size (no time minimum, no stability check)",
            WarmupPolicy.exactly(20).describe());
        assertThrows(IllegalArgumentException.class, () -> WarmupPolicy.untilStable().withCapNs(1));
    }
}
