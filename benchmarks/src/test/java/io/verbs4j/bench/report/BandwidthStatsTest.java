// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BandwidthStatsTest
{
    @Test
    void shouldComputeAverageAndMessageRateFromTotalTime()
    {
        final Histogram windows = Histograms.newNanosHistogram();
        windows.recordValueWithCount(100_000, 9);
        windows.recordValue(50_000);

        final BandwidthStats stats = BandwidthStats.from(1_000, 1_000, 1_000_000, windows, 100);

        assertEquals(1.0, stats.averageGBps(), 1e-9);
        assertEquals(1.0, stats.msgRateMpps(), 1e-9);
        assertEquals(1_000 * 100 / 50_000.0, stats.peakGBps(), 0.01);
        assertEquals(1_000, stats.iterations());
    }

    @Test
    void shouldUseAverageAsPeakWithoutFullWindows()
    {
        final BandwidthStats stats = BandwidthStats.from(64, 10, 640, Histograms.newNanosHistogram(), 128);

        assertEquals(1.0, stats.averageGBps(), 1e-9);
        assertEquals(stats.averageGBps(), stats.peakGBps(), 1e-12);
    }

    @Test
    void shouldRejectZeroElapsedTime()
    {
        assertThrows(IllegalArgumentException.class,
            () -> BandwidthStats.from(8, 10, 0, Histograms.newNanosHistogram(), 1));
    }
}
