// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import io.verbs4j.collectives.Communicator;

import java.util.function.LongSupplier;

/**
 * Runs the warm-up of one size on every rank: windows of calls until the {@link WarmupPolicy} says the per-call time
 * is stable (or the cap is reached). Rank 0 times its windows and decides; after every window all ranks first learn
 * whether any rank's JIT was busy compiling during it (such a window does not count towards stability), then the
 * decision through a {@link SharedDecision} (the next window's call count, or stop), so every rank runs the same calls
 * and stops after the same window. An exact policy needs no decision: every rank knows the count.
 * <pre>{@code
 * Warmup warmup = Warmup.over(comm, WarmupPolicy.untilStable());
 * CallBatch batch = calls -> { for (long i = 0; i < calls; i++) comm.allReduce(...); };
 * WarmupResult r = warmup.run(batch);
 * TimedRun row = warmup.time(batch, 20_000);
 * }</pre>
 * Decision codes: {@code > 0} calls of the next window, {@link #STOP_STABLE}, {@link #STOP_CAPPED}.
 */
public final class Warmup
{
    /** Decision: stop, the windows agreed. */
    public static final long STOP_STABLE = 0;
    /** Decision: stop, the cap was reached first. */
    public static final long STOP_CAPPED = -1;

    /**
     * A window during which this JVM's compilers worked more than 1/n of its time (the JIT clock's milliseconds
     * against the window's) ran on code still being compiled.
     */
    public static final long JIT_BUSY_SHARE = 100;

    /** Timed attempts of one row at most ({@link #time}): the last one counts even if a JIT was still busy. */
    public static final int MAX_TIMED_ATTEMPTS = 4;

    private final WarmupPolicy policy;
    private final SharedDecision decision;
    private final boolean decides;
    private final LongSupplier clock;
    private final LongSupplier jitClock;

    /**
     * A warm-up that judges by the call times alone (no JIT clock).
     *
     * @param policy   when to stop.
     * @param decision how rank 0's decision reaches every rank.
     * @param decides  true on rank 0 only.
     * @param clock    nanosecond clock ({@code System::nanoTime}; a fake in tests).
     */
    public Warmup(final WarmupPolicy policy, final SharedDecision decision, final boolean decides,
        final LongSupplier clock)
    {
        this(policy, decision, decides, clock, () -> 0);
    }

    /**
     * @param policy   when to stop.
     * @param decision how rank 0's decision reaches every rank.
     * @param decides  true on rank 0 only.
     * @param clock    nanosecond clock ({@code System::nanoTime}; a fake in tests).
     * @param jitClock this JVM's JIT work so far, in milliseconds ({@link JitActivity#compileMillis()}): a window
     *                 during which it moved by more than {@link #JIT_BUSY_SHARE 1 %} of the window's time on any rank
     *                 does not count towards stability.
     */
    public Warmup(final WarmupPolicy policy, final SharedDecision decision, final boolean decides,
        final LongSupplier clock, final LongSupplier jitClock)
    {
        this.policy = policy;
        this.decision = decision;
        this.decides = decides;
        this.clock = clock;
        this.jitClock = jitClock;
    }

    /**
     * @param comm   the communicator the calls run on (its rank 0 decides).
     * @param policy when to stop.
     * @return a warm-up that shares decisions by broadcast over {@code comm}.
     */
    public static Warmup over(final Communicator comm, final WarmupPolicy policy)
    {
        return new Warmup(policy, new CommunicatorDecision(comm), 0 == comm.rank(), System::nanoTime,
            JitActivity.compileMillis());
    }

    /** @return the policy. */
    public WarmupPolicy policy()
    {
        return policy;
    }

    /**
     * Brings every rank to the start of the timed calls with the same exchange the warm-up ran between its windows
     * (rank 0's decision). Use it instead of a barrier between {@link #run} and the timed loop: an operation the
     * warm-up never ran there sends the just-compiled call path (argument checks, the blocking runner) back to the
     * interpreter, and the first timed row then measured 4-6 us per 8-byte AllReduce where the rows after it, and
     * the warmed-up loop itself, took 0.3-0.4. Collective.
     */
    public void align()
    {
        decision.max(0);
        decision.share(0);
    }

    /**
     * Times {@code calls} calls of the batch the warm-up ran, on every rank, and times them again (at most
     * {@link #MAX_TIMED_ATTEMPTS} times in all) while any rank's JIT compiled for more than
     * {@link #JIT_BUSY_SHARE 1 %} of the timed span: a compilation that starts at the end of the warm-up (a wait
     * helper reaching its threshold in the last exchanges) takes a core from the spinning ranks for tens of
     * milliseconds, and a 20,000-call 8-byte row then measured 1-2.7 us per call where the same row right after
     * measured 0.3-0.6. Each attempt starts with {@link #align()}; the JIT question is the exchange the windows run.
     * An exact policy times once (the count was asked for, not a stable time). Collective: every rank calls it with
     * the same batch and count.
     *
     * @param batch the warm-up's batch.
     * @param calls how many calls to time, at least 1.
     * @return this rank's time of the last attempt, and how many attempts ran (the same on every rank).
     */
    public TimedRun time(final CallBatch batch, final long calls)
    {
        int attempts = 0;
        while (true)
        {
            align();
            final long jitStart = jitClock.getAsLong();
            final long startNs = clock.getAsLong();
            batch.run(calls);
            final long elapsedNs = clock.getAsLong() - startNs;
            attempts++;
            if (policy.exact())
            {
                return new TimedRun(elapsedNs, attempts, true);
            }
            final long jitWork = jitClock.getAsLong() - jitStart;
            final boolean jitQuiet = 0 == decision.max(jitWork * 1_000_000L * JIT_BUSY_SHARE > elapsedNs ? 1 : 0);
            if (jitQuiet || attempts == MAX_TIMED_ATTEMPTS)
            {
                return new TimedRun(elapsedNs, attempts, jitQuiet);
            }
        }
    }

    /**
     * Warms up one size. Collective: every rank calls it with the same batch.
     *
     * @param batch runs a window's calls.
     * @return what was run (the same calls and outcome on every rank; times are this rank's).
     */
    public WarmupResult run(final CallBatch batch)
    {
        final WarmupTracker tracker = policy.tracker();
        final long startNs = clock.getAsLong();
        long calls = tracker.firstWindowCalls();
        long totalCalls = 0;
        int windows = 0;
        double lastNsPerCall = Double.NaN;
        long code = calls;
        while (calls > 0)
        {
            final long jitStart = jitClock.getAsLong();
            final long windowStartNs = clock.getAsLong();
            batch.run(calls);
            final long endNs = clock.getAsLong();
            final long jitWork = jitClock.getAsLong() - jitStart;
            totalCalls += calls;
            windows++;
            lastNsPerCall = (double)(endNs - windowStartNs) / calls;
            if (policy.exact())
            {
                break;
            }
            // every rank's JIT counts: the slowest JVM sets the pace of a collective. A compilation now and then
            // (a timer task's method reaching its threshold after seconds) is not the path still changing
            final boolean jitBusy = jitWork * 1_000_000L * JIT_BUSY_SHARE > endNs - windowStartNs;
            final boolean jitQuiet = 0 == decision.max(jitBusy ? 1 : 0);
            long mine = 0;
            if (decides)
            {
                mine = tracker.afterWindow(calls, endNs - windowStartNs, endNs - startNs, jitQuiet);
                if (0 == mine)
                {
                    mine = tracker.result().stable() ? STOP_STABLE : STOP_CAPPED;
                }
            }
            code = decision.share(mine);
            calls = Math.max(0, code);
        }
        return new WarmupResult(policy.exact(), totalCalls, clock.getAsLong() - startNs, windows,
            policy.exact() || STOP_STABLE == code, lastNsPerCall);
    }
}
