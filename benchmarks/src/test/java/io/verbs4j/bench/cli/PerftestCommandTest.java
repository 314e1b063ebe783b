// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.Main;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerftestCommandTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    private void assertUsageError(final String expectedMessage, final String... args)
    {
        assertEquals(2, run(args), err::toString);
        assertTrue(err.toString().contains(expectedMessage), err::toString);
        assertTrue(err.toString().contains("Usage:"), err::toString);
    }

    @Test
    void shouldRequireATool()
    {
        assertUsageError("a tool is required");
    }

    @Test
    void shouldRejectUnknownOption()
    {
        assertUsageError("Unknown option", "perftest", "--frobnicate");
    }

    @Test
    void shouldRejectBadSize()
    {
        assertUsageError("invalid size suffix in '3X'", "perftest", "-s", "3X");
    }

    @Test
    void shouldRejectUnknownTransport()
    {
        assertUsageError("unknown transport 'rdma'", "perftest", "-T", "rdma");
    }

    @Test
    void shouldRejectTransportWithoutTheRequestedTest()
    {
        assertUsageError("supports none of the requested tests", "perftest", "-T", "shm-cacheline", "--test", "bw");
    }

    @Test
    void shouldRejectUnknownTest()
    {
        assertUsageError("unknown test 'throughput'", "perftest", "--test", "throughput");
    }

    @Test
    void shouldRejectTooFewIterations()
    {
        assertUsageError("-n/--iters must be between 5", "perftest", "-n", "1");
    }

    @Test
    void shouldRejectNonNumericIterations()
    {
        assertUsageError("Invalid value for option '--iters'", "perftest", "-n", "many");
    }

    @Test
    void shouldRejectServerAndClientTogether()
    {
        assertUsageError("mutually exclusive", "perftest", "--server", "--client", "localhost");
    }

    @Test
    void shouldRejectAllAndSizeTogether()
    {
        assertUsageError("mutually exclusive", "perftest", "-a", "-s", "8");
    }

    @Test
    void shouldRejectUnknownFormat()
    {
        assertUsageError("--format must be text or json", "perftest", "--format", "xml");
    }

    @Test
    void shouldRejectMalformedJmhOptions()
    {
        assertEquals(2, run("jmh", "-badopt"));
        assertTrue(err.toString().contains("not a recognized option"), err::toString);
    }

    @Test
    void shouldListTransports()
    {
        assertEquals(0, run("perftest", "--list"));
        for (final String name : new String[] { "socket", "nio", "nio-poll", "shm-cacheline", "shm-memcpy", "memcpy" })
        {
            assertTrue(out.toString().contains(name + " "), out::toString);
        }
    }

    @Test
    void shouldPrintBandwidthInMebibytesPerSecondByDefaultAndGigabitsWithReportGbits()
    {
        assertEquals(0, run("perftest", "-T", "memcpy", "--test", "bw", "-s", "4K", "-n", "64", "-w", "8",
            "--warmup-exact"));
        assertTrue(out.toString().contains("BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]"), out::toString);
        out.getBuffer().setLength(0);

        assertEquals(0, run("perftest", "-T", "memcpy", "--test", "bw", "-s", "4K", "-n", "64", "-w", "8",
            "--warmup-exact", "--report_gbits"));
        assertTrue(out.toString().contains("BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"), out::toString);
    }

    @Test
    void shouldKeepTheJsonKeysWhateverTheTableUnit()
    {
        assertEquals(0, run("perftest", "-T", "memcpy", "--test", "bw", "-s", "4K", "-n", "64", "-w", "8",
            "--warmup-exact", "--report_gbits", "--format", "json"));
        final String json = out.toString();
        for (final String key : new String[] { "\"type\":\"bandwidth\"", "\"transport\":\"memcpy\"",
            "\"bytes\":4096", "\"bw_peak_GBps\":", "\"bw_average_GBps\":", "\"msg_rate_Mpps\":" })
        {
            assertTrue(json.contains(key), () -> key + " in " + json);
        }
    }

    @Test
    void shouldRunInProcessTransportWithoutPeer()
    {
        assertEquals(0, run("perftest", "-T", "memcpy", "-s", "4K", "-n", "64", "-w", "8",
            "--warmup-exact", "--format", "json"));
        assertTrue(out.toString().contains("\"transport\":\"memcpy\""), out::toString);
        assertTrue(out.toString().contains("\"peer\":\"in-process\""), out::toString);
    }

    @Test
    void shouldWarmUpForTheLeastTimeInUntimedSessionsThenReportOneRowPerSize()
    {
        final long startNs = System.nanoTime();
        assertEquals(0, run("perftest", "-T", "memcpy", "--test", "bw", "-s", "1K,4K", "-n", "64", "-w", "8",
            "--warmup-ms", "300", "--format", "json"));
        final long tookMs = (System.nanoTime() - startNs) / 1_000_000;
        final String json = out.toString();
        assertTrue(tookMs >= 600, () -> "two sizes warmed up for >= 300 ms each took " + tookMs + " ms");
        assertEquals(2, json.split("\"type\":\"bandwidth\"", -1).length - 1, json);
        assertTrue(json.contains("\"warmup\":8,\"warmup_min_ms\":300"), json);
    }

    @Test
    void shouldRefuseANegativeWarmupTime()
    {
        assertEquals(2, run("perftest", "-T", "memcpy", "--warmup-ms", "-1"));
        assertTrue(err.toString().contains("--warmup-ms"), err::toString);
    }
}
