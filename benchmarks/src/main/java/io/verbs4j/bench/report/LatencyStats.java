// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import org.HdrHistogram.Histogram;

/**
 * One perftest latency row, in nanoseconds of one-way latency (half the round trip).
 * perftest's {@code t_typical} is the median.
 *
 * @param bytes      message size.
 * @param iterations timed round trips.
 * @param minNs      shortest.
 * @param maxNs      longest.
 * @param typicalNs  median.
 * @param avgNs      mean.
 * @param stdevNs    standard deviation.
 * @param p99Ns      99th percentile.
 * @param p999Ns     99.9th percentile.
 */
public record LatencyStats(
    int bytes,
    long iterations,
    double minNs,
    double maxNs,
    double typicalNs,
    double avgNs,
    double stdevNs,
    double p99Ns,
    double p999Ns)
{
    /**
     * Computes the row from a histogram of round-trip times. HdrHistogram reports values at its recording
     * precision ({@link Histograms#SIGNIFICANT_DIGITS} digits); each is then halved.
     *
     * @param bytes          message size.
     * @param roundTripsNs   one value per timed round trip, in nanoseconds.
     * @return the row.
     * @throws IllegalArgumentException if the histogram is empty.
     */
    public static LatencyStats fromRoundTrips(final int bytes, final Histogram roundTripsNs)
    {
        return from(bytes, roundTripsNs, 2.0);
    }

    /**
     * Computes the row from a histogram of whole operation times, not halved: perftest's {@code ib_read_lat} and
     * {@code ib_atomic_lat} report the full time of one READ or atomic (post to completion).
     *
     * @param bytes        message size.
     * @param operationsNs one value per timed operation, in nanoseconds.
     * @return the row.
     * @throws IllegalArgumentException if the histogram is empty.
     */
    public static LatencyStats fromOperations(final int bytes, final Histogram operationsNs)
    {
        return from(bytes, operationsNs, 1.0);
    }

    private static LatencyStats from(final int bytes, final Histogram samplesNs, final double divisor)
    {
        final long count = samplesNs.getTotalCount();
        if (0 == count)
        {
            throw new IllegalArgumentException("no round trips recorded");
        }
        return new LatencyStats(
            bytes,
            count,
            samplesNs.getMinValue() / divisor,
            samplesNs.getMaxValue() / divisor,
            samplesNs.getValueAtPercentile(50.0) / divisor,
            samplesNs.getMean() / divisor,
            samplesNs.getStdDeviation() / divisor,
            samplesNs.getValueAtPercentile(99.0) / divisor,
            samplesNs.getValueAtPercentile(99.9) / divisor);
    }
}
