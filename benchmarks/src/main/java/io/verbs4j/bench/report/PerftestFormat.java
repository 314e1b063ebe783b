// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import java.util.Locale;

/**
 * perftest's result lines, with its exact format strings ({@code linux-rdma/perftest:src/perftest_parameters.h}):
 * latency {@code RESULT_FMT_LAT}/{@code REPORT_FMT_LAT}; bandwidth {@code RESULT_FMT} with
 * {@code REPORT_FMT_EXT}, perftest's six-decimal row. The only change: the bandwidth unit is GB/s (1e9 B/s) where
 * perftest prints MB/sec or Gb/sec, and the header says so; six decimals keep small-message rows readable in GB/s.
 */
public final class PerftestFormat
{
    /** perftest's {@code RESULT_LINE}. */
    public static final String RESULT_LINE =
        "---------------------------------------------------------------------------------------";

    /** Latency table header ({@code RESULT_FMT_LAT}). */
    public static final String LATENCY_HEADER =
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   " +
        "99% percentile[usec]   99.9% percentile[usec] ";

    /** Bandwidth table header ({@code RESULT_FMT}, GB/s). */
    public static final String BANDWIDTH_HEADER =
        " #bytes     #iterations    BW peak[GB/s]    BW average[GB/s]   MsgRate[Mpps]";

    private static final String LATENCY_ROW =
        " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f";

    private static final String BANDWIDTH_ROW = " %-7d    %d           %-7.6f            %-7.6f            %-7.6f";

    private PerftestFormat()
    {
    }

    /**
     * A latency row in microseconds.
     *
     * @param stats the row.
     * @return the line, without a line terminator.
     */
    public static String latencyRow(final LatencyStats stats)
    {
        return String.format(
            Locale.ROOT,
            LATENCY_ROW,
            stats.bytes(),
            stats.iterations(),
            stats.minNs() / 1_000.0,
            stats.maxNs() / 1_000.0,
            stats.typicalNs() / 1_000.0,
            stats.avgNs() / 1_000.0,
            stats.stdevNs() / 1_000.0,
            stats.p99Ns() / 1_000.0,
            stats.p999Ns() / 1_000.0);
    }

    /**
     * A bandwidth row.
     *
     * @param stats the row.
     * @return the line, without a line terminator.
     */
    public static String bandwidthRow(final BandwidthStats stats)
    {
        return String.format(
            Locale.ROOT,
            BANDWIDTH_ROW,
            stats.bytes(),
            stats.iterations(),
            stats.peakGBps(),
            stats.averageGBps(),
            stats.msgRateMpps());
    }
}
