// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import io.verbs4j.bench.spi.TestKind;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerftestFormatTest
{
    @Test
    void shouldPrintLatencyRowWithPerftestFormat()
    {
        final LatencyStats stats = new LatencyStats(2, 1000, 920, 3_140, 950, 960, 50, 1_020, 3_140);

        assertEquals(
            " 2       1000          0.92           3.14         0.95     \t       0.96        \t0.05   \t\t1.02    " +
            "\t\t3.14   ",
            PerftestFormat.latencyRow(stats));
    }

    @Test
    void shouldPrintBandwidthRowInGigabytesPerSecond()
    {
        final BandwidthStats stats = new BandwidthStats(65536, 5000, 12.5, 11.25, 0.171661);

        assertEquals(
            " 65536      5000           12.500000            11.250000            0.171661",
            PerftestFormat.bandwidthRow(stats));
    }

    @Test
    void shouldPrintBandwidthRowInPerftestUnits()
    {
        final BandwidthStats stats = new BandwidthStats(65536, 5000, 12.5, 11.25, 0.171661);

        assertEquals(
            " 65536      5000             11920.93            10728.84\t\t   0.171661",
            PerftestFormat.bandwidthRow(stats, BandwidthUnit.MIB_PER_SEC));
        assertEquals(
            " 65536      5000             100.00             90.00  \t\t   0.171661",
            PerftestFormat.bandwidthRow(stats, BandwidthUnit.GBIT_PER_SEC));
    }

    @Test
    void shouldUsePerftestBandwidthHeaders()
    {
        assertEquals(" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]",
            PerftestFormat.bandwidthHeader(BandwidthUnit.MIB_PER_SEC));
        assertEquals(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
            PerftestFormat.bandwidthHeader(BandwidthUnit.GBIT_PER_SEC));
    }

    @Test
    void shouldWriteBandwidthTableInTheSinksUnit()
    {
        final StringWriter text = new StringWriter();
        final TextResultSink sink = new TextResultSink(new PrintWriter(text), BandwidthUnit.GBIT_PER_SEC);

        sink.begin(new TestHeader(
            "socket", "plain sockets", TestKind.BANDWIDTH, "127.0.0.1", "backoff", 10, 128, "17", null));
        sink.bandwidth(new BandwidthStats(65536, 5000, 12.5, 11.25, 0.171661));
        sink.end();

        assertTrue(text.toString().contains("Gb/sec = 1e9 bit/s"), text.toString());
        assertTrue(text.toString().contains(PerftestFormat.bandwidthHeader(BandwidthUnit.GBIT_PER_SEC) + "\n" +
            " 65536      5000             100.00 "), text.toString());
    }

    @Test
    void shouldKeepPerftestHeaders()
    {
        assertEquals(
            " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   " +
            "99% percentile[usec]   99.9% percentile[usec] ",
            PerftestFormat.LATENCY_HEADER);
        assertEquals(
            " #bytes     #iterations    BW peak[GB/s]    BW average[GB/s]   MsgRate[Mpps]",
            PerftestFormat.BANDWIDTH_HEADER);
        assertEquals(87, PerftestFormat.RESULT_LINE.length());
    }

    @Test
    void shouldWriteTableWithBannerHeaderRowsAndNotes()
    {
        final StringWriter text = new StringWriter();
        final TextResultSink sink = new TextResultSink(new PrintWriter(text));

        sink.begin(new TestHeader(
            "socket", "plain sockets", TestKind.LATENCY, "127.0.0.1", "backoff", 10, 1, "17", null));
        sink.latency(new LatencyStats(8, 100, 1_000, 2_000, 1_500, 1_500, 100, 1_900, 2_000));
        sink.note("sizes not supported, skipped: [4]");
        sink.end();

        final String[] lines = text.toString().split("\n");
        assertEquals(PerftestFormat.RESULT_LINE, lines[0]);
        assertTrue(lines[1].contains("socket Latency Test"));
        assertTrue(text.toString().contains(PerftestFormat.LATENCY_HEADER + "\n" + " 8       100 "));
        assertEquals(" # sizes not supported, skipped: [4]", lines[lines.length - 2]);
        assertEquals(PerftestFormat.RESULT_LINE, lines[lines.length - 1]);
    }

    @Test
    void shouldNoteEachSizesWarmupTimeAtTheEndOfTheTable()
    {
        final StringWriter text = new StringWriter();
        final TextResultSink sink = new TextResultSink(new PrintWriter(text));

        sink.begin(new TestHeader(
            "tcp-write", "verbs", TestKind.BANDWIDTH, "127.0.0.1", "backoff", 1000, 128, "17", null, 1000));
        sink.warmedUp(1_040_000_000L);
        sink.bandwidth(new BandwidthStats(65536, 5000, 2.5, 2.0, 0.5));
        sink.warmedUp(9_960_000_000L);
        sink.bandwidth(new BandwidthStats(1048576, 5000, 2.5, 2.0, 0.5));
        sink.end();

        final String[] lines = text.toString().split("\n");
        assertTrue(text.toString().contains("Warm-up iters  : 1000 + >= 1000 ms, more while a JIT compiles"),
            text.toString());
        assertEquals(" # warm-up per size: 65536 B 1.0 s, 1048576 B 10.0 s", lines[lines.length - 2]);
    }
}
