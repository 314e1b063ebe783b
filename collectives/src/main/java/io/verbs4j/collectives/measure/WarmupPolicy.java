// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import java.util.Locale;

/**
 * When the warm-up of one message size is over. Immutable.
 * <p>
 * Two kinds:
 * <ul>
 *   <li><b>until stable</b> (the default): at least {@link #minTimeNs()} and at least {@link #minCalls()} calls, then
 *       until the mean per-call time of the last {@link #stableWindows()} windows agrees within
 *       {@link #tolerance()} (largest / smallest - 1) and no rank's JIT was busy during them, but never longer than
 *       {@link #capNs()} (the cap wins over the minimums: a 64 MiB call is not repeated 5,000 times), or than
 *       {@link #jitCapNs()} while a JIT was busy in any of the last {@link #stableWindows()} windows. Windows last
 *       about {@link #windowNs()} each, or a tenth of the warm-up so far if that is longer (a noisy call time
 *       averages out over longer windows). This is the C harnesses' rule (Open MPI and Gloo benchmarks warm up for a
 *       time per size) plus a convergence check, because a JIT compiles the path at an unknown point: an 8 B
 *       AllReduce timed over 100 calls measured 20x its steady state. The rule sees a time that is still falling,
 *       and a slow but steady phase while the compilers are still at work ({@link JitActivity}); it cannot see a
 *       speed-up still to come for other reasons, which is why the minimums stay.</li>
 *   <li><b>exact</b>: exactly {@link #minCalls()} calls, no time minimum, no stability check (nccl-tests' {@code -w}).
 *       For plumbing tests and for reproducing a run of an older version.</li>
 * </ul>
 * <pre>{@code
 * WarmupPolicy p = WarmupPolicy.untilStable().withMinCalls(5000);   // coll -w 5000
 * WarmupPolicy q = WarmupPolicy.exactly(20);                        // coll -w 20 --warmup-exact
 * }</pre>
 */
public final class WarmupPolicy
{
    /** Default least number of calls per size: the C harnesses run about this many 8 B calls in 0.25 s. */
    public static final long DEFAULT_MIN_CALLS = 5_000;
    /** Default least warm-up time per size: 0.25 s, as the Open MPI and Gloo harnesses of the side-by-side. */
    public static final long DEFAULT_MIN_TIME_NS = 250_000_000L;
    /** Default number of consecutive windows that must agree. */
    public static final int DEFAULT_STABLE_WINDOWS = 3;
    /** Default agreement of those windows: 5 %. */
    public static final double DEFAULT_TOLERANCE = 0.05;
    /** Default cap per size: 3 s. */
    public static final long DEFAULT_CAP_NS = 3_000_000_000L;
    /**
     * Default longest warm-up per size while a JIT is still compiling: 10 s. A 1 MiB AllReduce over tcp calls the
     * per-call methods once per call, so the compilers reach them only after thousands of calls (5-6 s); stopped at
     * 3 s, it was measured at 2-3x its steady time.
     */
    public static final long DEFAULT_JIT_CAP_NS = 10_000_000_000L;
    /** Default window length: long enough to average over scheduler quanta on a loaded machine. */
    public static final long DEFAULT_WINDOW_NS = 20_000_000L;

    private final boolean exact;
    private final long minCalls;
    private final long minTimeNs;
    private final int stableWindows;
    private final double tolerance;
    private final long capNs;
    private final long jitCapNs;
    private final long windowNs;

    private WarmupPolicy(final boolean exact, final long minCalls, final long minTimeNs, final int stableWindows,
        final double tolerance, final long capNs, final long jitCapNs, final long windowNs)
    {
        if (minCalls < 0 || minTimeNs < 0 || stableWindows < 1 || !(tolerance >= 0) || capNs < minTimeNs ||
            jitCapNs < capNs || windowNs < 1)
        {
            throw new IllegalArgumentException("bad warm-up policy: minCalls " + minCalls + ", minTimeNs " +
                minTimeNs + ", stableWindows " + stableWindows + ", tolerance " + tolerance + ", capNs " + capNs +
                ", jitCapNs " + jitCapNs + ", windowNs " + windowNs);
        }
        this.exact = exact;
        this.minCalls = minCalls;
        this.minTimeNs = minTimeNs;
        this.stableWindows = stableWindows;
        this.tolerance = tolerance;
        this.capNs = capNs;
        this.jitCapNs = jitCapNs;
        this.windowNs = windowNs;
    }

    /** @return the default policy: until stable, with the {@code DEFAULT_*} figures. */
    public static WarmupPolicy untilStable()
    {
        return new WarmupPolicy(false, DEFAULT_MIN_CALLS, DEFAULT_MIN_TIME_NS, DEFAULT_STABLE_WINDOWS,
            DEFAULT_TOLERANCE, DEFAULT_CAP_NS, DEFAULT_JIT_CAP_NS, DEFAULT_WINDOW_NS);
    }

    /**
     * @param calls the number of calls, at least 0.
     * @return a policy that runs exactly {@code calls} calls.
     */
    public static WarmupPolicy exactly(final long calls)
    {
        return new WarmupPolicy(true, calls, 0, 1, 0, 0, 0, 1);
    }

    /**
     * @param calls the least number of calls (the stability rule and the cap still apply).
     * @return a copy with that minimum.
     */
    public WarmupPolicy withMinCalls(final long calls)
    {
        return new WarmupPolicy(exact, calls, minTimeNs, stableWindows, tolerance, capNs, jitCapNs, windowNs);
    }

    /**
     * @param ns the least warm-up time per size.
     * @return a copy with that minimum (the cap is raised to it if lower).
     */
    public WarmupPolicy withMinTimeNs(final long ns)
    {
        return new WarmupPolicy(exact, minCalls, ns, stableWindows, tolerance, Math.max(capNs, ns),
            Math.max(jitCapNs, ns), windowNs);
    }

    /**
     * @param windows   consecutive windows that must agree.
     * @param tolerance their largest per-call time over their smallest, minus 1.
     * @return a copy with that stability rule.
     */
    public WarmupPolicy withStability(final int windows, final double tolerance)
    {
        return new WarmupPolicy(exact, minCalls, minTimeNs, windows, tolerance, capNs, jitCapNs, windowNs);
    }

    /**
     * @param ns the longest warm-up per size (at least the minimum time).
     * @return a copy with that cap (the cap while a JIT compiles is raised to it if lower).
     */
    public WarmupPolicy withCapNs(final long ns)
    {
        return new WarmupPolicy(exact, minCalls, minTimeNs, stableWindows, tolerance, ns, Math.max(jitCapNs, ns),
            windowNs);
    }

    /**
     * @param ns the longest warm-up per size while a JIT was busy in one of the last windows (at least the cap).
     * @return a copy with that cap.
     */
    public WarmupPolicy withJitCapNs(final long ns)
    {
        return new WarmupPolicy(exact, minCalls, minTimeNs, stableWindows, tolerance, capNs, ns, windowNs);
    }

    /**
     * @param ns the length a window aims at.
     * @return a copy with that window length.
     */
    public WarmupPolicy withWindowNs(final long ns)
    {
        return new WarmupPolicy(exact, minCalls, minTimeNs, stableWindows, tolerance, capNs, jitCapNs, ns);
    }

    /** @return true for exactly {@link #minCalls()} calls, false for until stable. */
    public boolean exact()
    {
        return exact;
    }

    /** @return least number of calls (the exact number when {@link #exact()}). */
    public long minCalls()
    {
        return minCalls;
    }

    /** @return least warm-up time per size, ns. */
    public long minTimeNs()
    {
        return minTimeNs;
    }

    /** @return consecutive windows that must agree. */
    public int stableWindows()
    {
        return stableWindows;
    }

    /** @return allowed spread of those windows (0.05 = 5 %). */
    public double tolerance()
    {
        return tolerance;
    }

    /** @return longest warm-up per size, ns. */
    public long capNs()
    {
        return capNs;
    }

    /** @return longest warm-up per size while a JIT is still compiling, ns. */
    public long jitCapNs()
    {
        return jitCapNs;
    }

    /** @return the length a window aims at, ns (at least: later windows last a tenth of the warm-up so far). */
    public long windowNs()
    {
        return windowNs;
    }

    /** @return a fresh tracker for one size. */
    public WarmupTracker tracker()
    {
        return new WarmupTracker(this);
    }

    /**
     * The header text of tools, e.g. {@code until stable (>= 0.25 s and >= 5000 calls per size, 3 windows within
     * 5% and no JIT at work, cap 3 s or 10 s while compiling)} or {@code exactly 20 calls per size}.
     *
     * @return the description.
     */
    public String describe()
    {
        if (exact)
        {
            return "exactly " + minCalls + " calls per size (no time minimum, no stability check)";
        }
        return String.format(Locale.ROOT, "until stable (>= %s s and >= %d calls per size, %d windows within %s%% " +
            "and no JIT at work, cap %s s or %s s while compiling)", seconds(minTimeNs), minCalls, stableWindows,
            trim(tolerance * 100), seconds(capNs), seconds(jitCapNs));
    }

    /** {@inheritDoc} */
    @Override
    public String toString()
    {
        return "WarmupPolicy{" + describe() + "}";
    }

    private static String seconds(final long ns)
    {
        return trim(ns / 1e9);
    }

    private static String trim(final double value)
    {
        final String text = String.format(Locale.ROOT, "%.3f", value);
        return text.replaceAll("\\.?0+$", "");
    }
}
