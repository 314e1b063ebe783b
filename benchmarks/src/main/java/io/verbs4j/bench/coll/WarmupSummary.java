// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.collectives.measure.TimedRun;
import io.verbs4j.collectives.measure.WarmupResult;

import java.util.Locale;

/**
 * The footer line of a {@code coll} table on its warm-ups: how many placements reached a stable per-call time, the
 * range of calls and the longest warm-up, and which placements the cap stopped first (their figures may still
 * include warm-up effects, so the reader must know which).
 * <pre>
 * # Warm-up: 20 of 20 placements reached a stable time; 5000-412000 calls, up to 0.41 s each
 * # Warm-up: 19 of 20 placements reached a stable time; 5000-98000 calls, up to 3.00 s each; stopped by the cap ...
 * # Warm-up: exact, 20-20 calls, up to 0.01 s each
 * # Warm-up: 20 of 20 placements reached a stable time; 5000-412000 calls, up to 0.41 s each; 2 rows timed again
 *   (a JIT compiled during the first attempt)
 * </pre>
 */
public final class WarmupSummary
{
    /** Capped placements named in the line at most; more are counted only. */
    static final int MAX_NAMED = 12;

    private int placements;
    private int capped;
    private long callsMin = Long.MAX_VALUE;
    private long callsMax;
    private double secondsMax;
    private final StringBuilder cappedNames = new StringBuilder();
    private int retimed;
    private int stillCompiling;

    /** Forgets every placement (a new table). */
    public void reset()
    {
        placements = 0;
        capped = 0;
        callsMin = Long.MAX_VALUE;
        callsMax = 0;
        secondsMax = 0;
        cappedNames.setLength(0);
        retimed = 0;
        stillCompiling = 0;
    }

    /**
     * @param timed the timed row of one placement.
     */
    public void noteTimed(final TimedRun timed)
    {
        if (timed.attempts() > 1)
        {
            retimed++;
        }
        if (!timed.jitQuiet())
        {
            stillCompiling++;
        }
    }

    /**
     * @param warm      the warm-up of one placement.
     * @param sizeBytes its size column.
     * @param inPlace   its placement.
     */
    public void note(final WarmupResult warm, final long sizeBytes, final boolean inPlace)
    {
        placements++;
        callsMin = Math.min(callsMin, warm.calls());
        callsMax = Math.max(callsMax, warm.calls());
        secondsMax = Math.max(secondsMax, warm.elapsedNs() / 1e9);
        if (!warm.stable())
        {
            capped++;
            if (capped <= MAX_NAMED)
            {
                cappedNames.append(cappedNames.length() == 0 ? "" : ", ").append(sizeBytes).append(" B ")
                    .append(inPlace ? "in-place" : "out-of-place");
            }
        }
    }

    /**
     * @param exact the warm-up was an exact count ({@code --warmup-exact}).
     * @return the footer line.
     */
    public String line(final boolean exact)
    {
        if (0 == placements)
        {
            return "# Warm-up: none";
        }
        final String range = String.format(Locale.ROOT, "%d-%d calls, up to %.2f s each", callsMin, callsMax,
            secondsMax);
        if (exact)
        {
            return "# Warm-up: exact, " + range;
        }
        return String.format(Locale.ROOT, "# Warm-up: %d of %d placements reached a stable time; %s%s%s",
            placements - capped, placements, range, 0 == capped ? "" : "; stopped by the cap before the windows " +
            "agreed (time may still include warm-up effects): " + cappedNames + (capped > MAX_NAMED ? ", ..." : ""),
            retimedNote());
    }

    private String retimedNote()
    {
        if (0 == retimed)
        {
            return "";
        }
        return String.format(Locale.ROOT, "; %d row%s timed again (a JIT compiled during the first attempt)%s",
            retimed, 1 == retimed ? "" : "s", 0 == stillCompiling ? "" : String.format(Locale.ROOT,
            ", %d of them still compiling at the last attempt", stillCompiling));
    }
}
