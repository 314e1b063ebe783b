// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.report.BandwidthStats;
import io.verbs4j.bench.report.CollectingResultSink;
import io.verbs4j.bench.report.LatencyStats;
import io.verbs4j.bench.run.LocalRun;
import io.verbs4j.bench.run.PerftestTransport;
import io.verbs4j.bench.run.TestPlan;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.WaitLoop;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code verbs4j demo --verbs}: the verbs layer in one screen. Two processes (this JVM and a child JVM) exchange RDMA
 * WRITE, SEND/RECV and RDMA READ over the shm provider at 8 B, 4 KiB, 64 KiB and 1 MiB; the same run measures
 * {@code java.net.Socket} over loopback and the raw shared-memory floors (one cache line, a two-copy ring, a single
 * memcpy); then prints latency and bandwidth as a compact table with ratios. The measurements are the perftest
 * tool's ({@code verbs4j perftest} prints the full tables); the demo only picks the transports, sizes and counts so
 * that the whole run takes 30-60 s on two cores.
 */
final class VerbsDemo
{
    /** Sizes shown. */
    static final int[] SIZES = { 8, 4 << 10, 64 << 10, 1 << 20 };
    /** Sizes of the {@code --quick} plumbing run. */
    static final int[] QUICK_SIZES = { 8, 4 << 10 };
    /** Verbs transports shown, in column order. */
    static final String[] VERBS = { "shm-write", "shm-send", "shm-read" };
    /** Messages per bandwidth window (perftest's default tx depth). */
    static final int WINDOW = 128;

    private static final String SOCKET = "socket";
    private static final String CACHE_LINE = "shm-cacheline";
    private static final String SHM_RING = "shm-memcpy";
    private static final String MEMCPY = "memcpy";

    private final boolean busyPoll;
    private final boolean quick;
    private final long timeoutSeconds;

    VerbsDemo(final boolean busyPoll, final boolean quick, final long timeoutSeconds)
    {
        this.busyPoll = busyPoll;
        this.quick = quick;
        this.timeoutSeconds = timeoutSeconds;
    }

    /**
     * Runs the demo.
     *
     * @param out the tables.
     * @param err progress and diagnostics.
     * @return the exit code.
     * @throws IOException if the peer JVM or the control connection fails.
     */
    int run(final PrintWriter out, final PrintWriter err) throws IOException
    {
        LocalRun.quietProviderLogs();
        final int[] sizes = quick ? QUICK_SIZES : SIZES;
        final long timeoutMs = TimeUnit.SECONDS.toMillis(timeoutSeconds);
        final List<TestPlan> plans = plans(sizes, timeoutMs);
        err.println("verbs4j demo --verbs: measuring " + plans.size() +
            " sessions (two JVMs over shm and loopback TCP)...");
        err.flush();
        final CollectingResultSink results = new CollectingResultSink(err);
        final long startNs = System.nanoTime();
        final int failures = LocalRun.run(plans, results, timeoutMs, List.of("--quiet-provider-logs"), err);
        err.println();
        err.println();
        err.flush();
        print(out, results, sizes, (System.nanoTime() - startNs) / 1e9);
        return 0 == failures ? CommandLine.ExitCode.OK : CommandLine.ExitCode.SOFTWARE;
    }

    private List<TestPlan> plans(final int[] sizes, final long timeoutMs)
    {
        final List<TestPlan> plans = new ArrayList<>();
        final String[] latencyTransports = { VERBS[0], VERBS[1], VERBS[2], SOCKET, CACHE_LINE };
        final String[] bandwidthTransports = { VERBS[0], VERBS[1], VERBS[2], SOCKET, SHM_RING, MEMCPY };
        for (final String name : latencyTransports)
        {
            final PerftestTransport transport = PerftestTransport.find(name);
            for (final int size : sizes)
            {
                if (transport.instance().supports(TestKind.LATENCY, size))
                {
                    final long iterations = quick ? 50 : latencyIterations(size);
                    plans.add(new TestPlan(transport, TestKind.LATENCY, List.of(size), iterations / 2, iterations, 1,
                        busyPoll, timeoutMs));
                }
            }
        }
        for (final String name : bandwidthTransports)
        {
            final PerftestTransport transport = PerftestTransport.find(name);
            for (final int size : sizes)
            {
                final long messages = quick ? 256 : bandwidthMessages(size);
                plans.add(new TestPlan(transport, TestKind.BANDWIDTH, List.of(size), messages / 4, messages,
                    quick ? 16 : WINDOW, busyPoll, timeoutMs));
            }
        }
        return plans;
    }

    static long latencyIterations(final int size)
    {
        return size <= 4096 ? 5_000 : (size <= 65536 ? 1_000 : 200);
    }

    static long bandwidthMessages(final int size)
    {
        return size <= 4096 ? 20_000 : (size <= 65536 ? 4_000 : 400);
    }

    private void print(final PrintWriter out, final CollectingResultSink results, final int[] sizes,
        final double seconds)
    {
        out.printf(Locale.ROOT,
            "verbs4j demo --verbs: shm provider between two JVMs vs java.net.Socket (loopback) and raw " +
            "shared memory%n");
        out.printf(Locale.ROOT, "idle: %s | JDK %s | %d CPUs | %.0f s | one run on a possibly busy machine: " +
            "compare ratios, not absolutes%n%n", WaitLoop.modeName(busyPoll), System.getProperty("java.version"),
            Runtime.getRuntime().availableProcessors(), seconds);

        out.println("One-way latency, median usec (WRITE/SEND: round trip / 2; READ: one full READ, as ib_read_lat)");
        out.printf(Locale.ROOT, "%8s %10s %10s %10s %10s %10s  | %12s %12s%n",
            "size", "shm WRITE", "shm SEND", "shm READ", "socket", "cache line", "socket/WRITE", "socket/SEND");
        for (final int size : sizes)
        {
            final double write = typicalUs(results.latency(VERBS[0], size));
            final double send = typicalUs(results.latency(VERBS[1], size));
            final double read = typicalUs(results.latency(VERBS[2], size));
            final double socket = typicalUs(results.latency(SOCKET, size));
            final double line = typicalUs(results.latency(CACHE_LINE, size));
            out.printf(Locale.ROOT, "%8s %10s %10s %10s %10s %10s  | %12s %12s%n", sizeName(size), value(write),
                value(send), value(read), value(socket), value(line), ratio(socket, write), ratio(socket, send));
        }

        out.println();
        out.println("Bandwidth, average GB/s (1e9 B/s; windows of " + (quick ? 16 : WINDOW) +
            " messages, each window completed by the receiver; memcpy: one thread, no peer)");
        out.printf(Locale.ROOT, "%8s %10s %10s %10s %10s %10s %10s  | %12s %12s %12s%n",
            "size", "shm WRITE", "shm SEND", "shm READ", "socket", "shm-memcpy", "memcpy",
            "WRITE/socket", "SEND/socket", "WRITE/ring");
        for (final int size : sizes)
        {
            final double write = averageGBps(results.bandwidth(VERBS[0], size));
            final double send = averageGBps(results.bandwidth(VERBS[1], size));
            final double read = averageGBps(results.bandwidth(VERBS[2], size));
            final double socket = averageGBps(results.bandwidth(SOCKET, size));
            final double ring = averageGBps(results.bandwidth(SHM_RING, size));
            final double memcpy = averageGBps(results.bandwidth(MEMCPY, size));
            out.printf(Locale.ROOT, "%8s %10s %10s %10s %10s %10s %10s  | %12s %12s %12s%n", sizeName(size),
                value(write), value(send), value(read), value(socket), value(ring), value(memcpy),
                ratio(write, socket), ratio(send, socket), ratio(write, ring));
        }
        out.println();
        out.println("Ratios > 1x favour verbs4j. cache line = one 8-byte word ping-ponged through /dev/shm " +
            "(the floor);");
        out.println("shm-memcpy = two-copy SPSC ring between the two JVMs. Full perftest tables (min/max/p99/p99.9):");
        out.println("  ./verbs4j perftest -T shm-write,shm-send,shm-read,socket,shm-cacheline -s 8,4K,64K,1M" +
            (busyPoll ? " --busy-poll" : ""));
        for (final String note : results.notes())
        {
            out.println("# " + note);
        }
        out.flush();
    }

    private static double typicalUs(final LatencyStats stats)
    {
        return null == stats ? Double.NaN : stats.typicalNs() / 1_000.0;
    }

    private static double averageGBps(final BandwidthStats stats)
    {
        return null == stats ? Double.NaN : stats.averageGBps();
    }

    static String value(final double value)
    {
        if (Double.isNaN(value))
        {
            return "-";
        }
        return String.format(Locale.ROOT, value >= 100 ? "%.0f" : (value >= 1 ? "%.2f" : "%.3g"), value);
    }

    static String ratio(final double numerator, final double denominator)
    {
        if (Double.isNaN(numerator) || Double.isNaN(denominator) || 0 == denominator)
        {
            return "-";
        }
        final double ratio = numerator / denominator;
        return String.format(Locale.ROOT, ratio >= 10 ? "%.0fx" : "%.1fx", ratio);
    }

    static String sizeName(final int size)
    {
        if (size >= 1 << 20 && 0 == size % (1 << 20))
        {
            return (size >> 20) + " MiB";
        }
        if (size >= 1 << 10 && 0 == size % (1 << 10))
        {
            return (size >> 10) + " KiB";
        }
        return size + " B";
    }
}
