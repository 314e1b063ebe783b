// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LatencyStatsTest
{
    private static Histogram knownRoundTrips()
    {
        final Histogram histogram = Histograms.newNanosHistogram();
        histogram.recordValueWithCount(2_000, 98);
        histogram.recordValue(4_000);
        histogram.recordValue(20_000);
        return histogram;
    }

    @Test
    void shouldReportHalfTheRoundTrip()
    {
        final LatencyStats stats = LatencyStats.fromRoundTrips(8, knownRoundTrips());

        assertEquals(8, stats.bytes());
        assertEquals(100, stats.iterations());
        assertEquals(1_000.0, stats.minNs(), 1.0);
        assertEquals(10_000.0, stats.maxNs(), 10.0);
        assertEquals(1_000.0, stats.typicalNs(), 1.0);
        assertEquals((98 * 2_000 + 4_000 + 20_000) / 100.0 / 2.0, stats.avgNs(), 2.0);
        assertEquals(2_000.0, stats.p99Ns(), 2.0);
        assertEquals(10_000.0, stats.p999Ns(), 10.0);
    }

    @Test
    void shouldComputeStandardDeviationOfOneWayValues()
    {
        final Histogram histogram = Histograms.newNanosHistogram();
        histogram.recordValue(1_000);
        histogram.recordValue(3_000);

        final LatencyStats stats = LatencyStats.fromRoundTrips(2, histogram);

        assertEquals(1_000.0, stats.avgNs(), 1.0);
        assertEquals(500.0, stats.stdevNs(), 1.0);
    }

    @Test
    void shouldRejectEmptyHistogram()
    {
        assertThrows(IllegalArgumentException.class, () -> LatencyStats.fromRoundTrips(8,
            Histograms.newNanosHistogram()));
    }

    @Test
    void shouldClampValuesOutsideTheTrackableRange()
    {
        final Histogram histogram = Histograms.newNanosHistogram();
        Histograms.record(histogram, 0);
        Histograms.record(histogram, Long.MAX_VALUE);

        assertEquals(2, histogram.getTotalCount());
        assertEquals(1, histogram.getMinValue());
    }
}
