// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import java.util.Locale;

/**
 * perftest's result lines, with its exact format strings ({@code linux-rdma/perftest:src/perftest_parameters.h}):
 * latency {@code RESULT_FMT_LAT}/{@code REPORT_FMT_LAT}; bandwidth {@code RESULT_FMT} with
 * {@code REPORT_FMT} in perftest's units ({@link BandwidthUnit}: {@code MiB/sec}, or {@code Gb/sec} with
 * {@code --report_gbits}), so rows can be set beside {@code ib_write_bw}'s. {@link #BANDWIDTH_HEADER} and
 * {@link #bandwidthRow(BandwidthStats)} are the GB/s (1e9 B/s) variant with {@code REPORT_FMT_EXT}'s six decimals,
 * which the NVSHMEM-style {@code shmem} tables keep (NVSHMEM's perftest reports GB/s).
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

    /** Bandwidth table header in GB/s ({@code RESULT_FMT} with GB/s: the {@code shmem} tables). */
    public static final String BANDWIDTH_HEADER =
        " #bytes     #iterations    BW peak[GB/s]    BW average[GB/s]   MsgRate[Mpps]";

    private static final String LATENCY_ROW =
        " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f";

    private static final String BANDWIDTH_ROW = " %-7d    %d           %-7.6f            %-7.6f            %-7.6f";

    /** perftest's {@code REPORT_FMT}. */
    private static final String PERFTEST_BANDWIDTH_ROW = " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f";

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
     * perftest's bandwidth table header ({@code RESULT_FMT}, or {@code RESULT_FMT_G} for Gb/sec).
     *
     * @param unit the unit.
     * @return the line, e.g. {@code #bytes #iterations BW peak[MiB/sec] BW average[MiB/sec] MsgRate[Mpps]} (perftest's
     *         spacing).
     */
    public static String bandwidthHeader(final BandwidthUnit unit)
    {
        return " #bytes     #iterations    BW peak[" + unit.label() + "]    BW average[" + unit.label() +
            "]   MsgRate[Mpps]";
    }

    /**
     * A bandwidth row with perftest's {@code REPORT_FMT}.
     *
     * @param stats the row.
     * @param unit  the unit of the two bandwidth columns.
     * @return the line, without a line terminator.
     */
    public static String bandwidthRow(final BandwidthStats stats, final BandwidthUnit unit)
    {
        return String.format(
            Locale.ROOT,
            PERFTEST_BANDWIDTH_ROW,
            stats.bytes(),
            stats.iterations(),
            unit.fromGBps(stats.peakGBps()),
            unit.fromGBps(stats.averageGBps()),
            stats.msgRateMpps());
    }

    /**
     * A bandwidth row in GB/s with six decimals (the {@code shmem} tables).
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
