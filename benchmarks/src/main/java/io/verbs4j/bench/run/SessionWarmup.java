// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.collectives.measure.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * When a perftest size has warmed up enough: the schedule of its untimed sessions. The first runs the spec's warm-up
 * count (at least {@link #LEAST_SESSION}); each next one is sized from the rate seen so far to fill what is left of
 * the least warm-up time, at most ten times the previous one. Once that time has passed, sessions of
 * {@link #JIT_CHECK_SESSION_NS} go on while the JIT compilers (of both JVMs) worked for more than
 * 1/{@value Warmup#JIT_BUSY_SHARE} of the last session's time, up to a cap.
 * <p>
 * Why: a JVM's first thousand 1 MiB tcp messages end before C2 has compiled the path (a row timed then measured
 * 15-25 % low), and a 64 KiB tcp WRITE stream's rate rose from 0.8-1.0 to 2.0-2.7 GB/s over its first 8 s while C2
 * competed with the transport threads for the machine's two cores; a fixed warm-up time is either too short for one
 * transport or wasted on another. Single-threaded; one instance per size.
 */
final class SessionWarmup
{
    /** Fewest iterations in one warm-up session. */
    static final long LEAST_SESSION = 16;
    /** Longest warm-up per size while a JIT compiler is still busy: 10 s. */
    static final long JIT_CAP_NS = TimeUnit.SECONDS.toNanos(10);
    /** Length aimed at for the sessions that only wait for the JIT: 250 ms. */
    static final long JIT_CHECK_SESSION_NS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long MAX_SESSION = 100_000_000L;
    private static final int MAX_SESSIONS = 100;

    private final long minNs;
    private final long jitCapNs;
    private long count;
    private long spentNs;
    private int sessions;
    private boolean jitBusy;

    /**
     * @param minNs      least warm-up time; 0 for none at all (the timed session's own iterations only).
     * @param jitCapNs   longest warm-up while a JIT is busy (raised to {@code minNs} if lower).
     * @param firstCount the spec's warm-up iterations, the first session's length.
     */
    SessionWarmup(final long minNs, final long jitCapNs, final long firstCount)
    {
        this.minNs = minNs;
        this.jitCapNs = Math.max(minNs, jitCapNs);
        this.count = Math.max(LEAST_SESSION, firstCount);
        this.jitBusy = minNs > 0;
    }

    /** @return whether another untimed session should run. */
    boolean more()
    {
        return sessions < MAX_SESSIONS && (spentNs < minNs || (jitBusy && spentNs < jitCapNs));
    }

    /** @return iterations of the next session. */
    long nextCount()
    {
        return count;
    }

    /**
     * Records a finished session and sizes the next.
     *
     * @param tookNs   how long it took.
     * @param jitMsDuring milliseconds the JIT compilers worked meanwhile (both JVMs together).
     */
    void onSession(final long tookNs, final long jitMsDuring)
    {
        final long took = Math.max(1, tookNs);
        sessions++;
        spentNs += took;
        jitBusy = jitMsDuring * Warmup.JIT_BUSY_SHARE > TimeUnit.NANOSECONDS.toMillis(took);
        final double nsPerIteration = (double)took / count;
        final long targetNs = spentNs < minNs ? minNs - spentNs : JIT_CHECK_SESSION_NS;
        final long wanted = (long)(targetNs / nsPerIteration) + 1;
        count = Math.max(LEAST_SESSION, Math.min(wanted, Math.min(10 * count, MAX_SESSION)));
    }

    /** @return warm-up time so far, ns. */
    long spentNs()
    {
        return spentNs;
    }
}
