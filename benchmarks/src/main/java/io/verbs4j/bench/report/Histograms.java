// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import org.HdrHistogram.Histogram;

/**
 * The histograms the harness records into: nanosecond values from 1 ns to {@link #HIGHEST_TRACKABLE_NS}, three
 * significant digits (a recorded value is known within 0.1%). Allocated before timing; recording never allocates.
 */
public final class Histograms
{
    /** Longest value that can be recorded; longer ones are clamped to it. */
    public static final long HIGHEST_TRACKABLE_NS = 3_600_000_000_000L;

    /** Significant decimal digits kept. */
    public static final int SIGNIFICANT_DIGITS = 3;

    private Histograms()
    {
    }

    /**
     * A new, empty nanosecond histogram.
     *
     * @return the histogram.
     */
    public static Histogram newNanosHistogram()
    {
        return new Histogram(1, HIGHEST_TRACKABLE_NS, SIGNIFICANT_DIGITS);
    }

    /**
     * Records a duration, clamped to [1, {@link #HIGHEST_TRACKABLE_NS}].
     *
     * @param histogram  the histogram.
     * @param durationNs the duration.
     */
    public static void record(final Histogram histogram, final long durationNs)
    {
        histogram.recordValue(Math.max(1, Math.min(HIGHEST_TRACKABLE_NS, durationNs)));
    }
}
