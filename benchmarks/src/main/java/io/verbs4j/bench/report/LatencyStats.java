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
        final long count = roundTripsNs.getTotalCount();
        if (0 == count)
        {
            throw new IllegalArgumentException("no round trips recorded");
        }
        return new LatencyStats(
            bytes,
            count,
            roundTripsNs.getMinValue() / 2.0,
            roundTripsNs.getMaxValue() / 2.0,
            roundTripsNs.getValueAtPercentile(50.0) / 2.0,
            roundTripsNs.getMean() / 2.0,
            roundTripsNs.getStdDeviation() / 2.0,
            roundTripsNs.getValueAtPercentile(99.0) / 2.0,
            roundTripsNs.getValueAtPercentile(99.9) / 2.0);
    }
}
