// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

/**
 * Applies a {@link WarmupPolicy} to the windows of one message size: after each window of calls it says how many
 * calls the next window runs, or that the warm-up is over. Pure arithmetic on the figures it is given (no clock),
 * so it is tested with synthetic series. One size, one thread; not reusable.
 * <pre>{@code
 * long calls = tracker.firstWindowCalls();
 * while (calls > 0)
 * {
 *     long ns = time(calls);                        // run the window
 *     calls = tracker.afterWindow(calls, ns, sinceStartNs);
 * }
 * WarmupResult r = tracker.result();
 * }</pre>
 * Window length: the first window is {@link #FIRST_WINDOW_CALLS} calls; each next one is sized from the last
 * per-call time to last about {@link WarmupPolicy#windowNs()} or {@link #WINDOW_SHARE 1/10} of the warm-up so far,
 * whichever is longer (and not past the cap in force), growing at most
 * {@link #MAX_GROWTH} times per window (a first, cold window overestimates the per-call time; a sudden jump must not
 * make a window overshoot the cap by much). A machine that slows down during a window can still overshoot it.
 */
public final class WarmupTracker
{
    /** Calls in the first window. */
    public static final long FIRST_WINDOW_CALLS = 16;
    /** Most a window may grow over the previous one. */
    public static final long MAX_GROWTH = 4;
    /** A window lasts at least this fraction (1/n) of the warm-up so far. */
    public static final long WINDOW_SHARE = 10;
    /** Most calls in one window. */
    public static final long MAX_WINDOW_CALLS = 1L << 22;

    private final WarmupPolicy policy;
    private final double[] recent;
    private int recorded;
    private long calls;
    private long elapsedNs;
    private int windows;
    private boolean done;
    private boolean stoppedStable;
    private double lastNsPerCall = Double.NaN;

    WarmupTracker(final WarmupPolicy policy)
    {
        this.policy = policy;
        this.recent = new double[policy.stableWindows()];
    }

    /** @return calls of the first window (0: no warm-up at all). */
    public long firstWindowCalls()
    {
        if (policy.exact())
        {
            done = 0 == policy.minCalls();
            return policy.minCalls();
        }
        return FIRST_WINDOW_CALLS;
    }

    /**
     * Records a window and decides.
     *
     * @param windowCalls  calls the window ran.
     * @param windowNs     time of the window's calls.
     * @param sinceStartNs time since the warm-up of this size began (windows and what ran between them).
     * @return calls of the next window, or 0 when the warm-up is over.
     */
    public long afterWindow(final long windowCalls, final long windowNs, final long sinceStartNs)
    {
        return afterWindow(windowCalls, windowNs, sinceStartNs, true);
    }

    /**
     * Records a window and decides.
     *
     * @param windowCalls  calls the window ran.
     * @param windowNs     time of the window's calls.
     * @param sinceStartNs time since the warm-up of this size began (windows and what ran between them).
     * @param jitQuiet     false when a JIT compiled during the window: its time is of code still changing, so the
     *                     stability rule starts counting windows again after it.
     * @return calls of the next window, or 0 when the warm-up is over.
     */
    public long afterWindow(final long windowCalls, final long windowNs, final long sinceStartNs,
        final boolean jitQuiet)
    {
        if (done)
        {
            throw new IllegalStateException("the warm-up is over");
        }
        calls += windowCalls;
        elapsedNs = sinceStartNs;
        windows++;
        lastNsPerCall = windowCalls > 0 ? (double)windowNs / windowCalls : Double.NaN;
        if (policy.exact())
        {
            done = true;
            return 0;
        }
        if (jitQuiet)
        {
            recent[recorded++ % recent.length] = lastNsPerCall;
        }
        else
        {
            recorded = 0;
        }
        final boolean stable = recorded >= recent.length && spread() <= policy.tolerance();
        if (stable && calls >= policy.minCalls() && sinceStartNs >= policy.minTimeNs())
        {
            done = true;
            stoppedStable = true;
            return 0;
        }
        // the longer cap holds until as many JIT-quiet windows in a row as the stability rule needs
        final long capNs = recorded >= recent.length ? policy.capNs() : policy.jitCapNs();
        if (sinceStartNs >= capNs)
        {
            done = true;
            return 0;
        }
        final double perCall = Math.max(1.0, lastNsPerCall);
        // no longer than the target, nor than what is left before the cap (at the last per-call time)
        final double targetNs = Math.min(Math.max(policy.windowNs(), sinceStartNs / WINDOW_SHARE),
            capNs - sinceStartNs);
        final long wanted = (long)Math.ceil(targetNs / perCall);
        return Math.max(1, Math.min(MAX_WINDOW_CALLS, Math.min(wanted, windowCalls * MAX_GROWTH)));
    }

    /** @return true once {@link #afterWindow} has returned 0 (or an exact warm-up of 0 calls was asked). */
    public boolean done()
    {
        return done;
    }

    /** @return what the warm-up did so far. */
    public WarmupResult result()
    {
        return new WarmupResult(policy.exact(), calls, elapsedNs, windows, policy.exact() || stoppedStable,
            lastNsPerCall);
    }

    /** @return the spread of the recorded windows: largest per-call time over the smallest, minus 1. */
    private double spread()
    {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (final double ns : recent)
        {
            min = Math.min(min, ns);
            max = Math.max(max, ns);
        }
        return min > 0 ? max / min - 1 : Double.MAX_VALUE;
    }
}
