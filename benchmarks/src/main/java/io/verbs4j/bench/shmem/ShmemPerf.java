// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.shmem;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;

import io.verbs4j.bench.report.BandwidthStats;
import io.verbs4j.bench.report.Histograms;
import io.verbs4j.bench.report.LatencyStats;
import io.verbs4j.bench.report.PerftestFormat;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.shmem.Cmp;
import io.verbs4j.shmem.SignalOp;
import io.verbs4j.shmem.SymmetricHeap;
import io.verbs4j.shmem.SymmetricMemory;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * NVSHMEM-perftest-style measurements of a two-PE {@link SymmetricHeap} (PEs as threads of this JVM, over the
 * chosen transport: shm = the direct path, tcp = the verbs path), printed as perftest latency or bandwidth tables,
 * each followed by its same-run baseline:
 * <ul>
 *   <li>{@code put_latency}: PE 0 {@code putSignal}s {@code size} bytes + flag, PE 1 waits and answers the same way;
 *       half round trip. Baseline: cache-line ping-pong (shm) or 8-byte tcp RDMA WRITE ping-pong (tcp).</li>
 *   <li>{@code p_latency}: the same with {@code putLong} (the flag is the data), 8 bytes.</li>
 *   <li>{@code get_latency}, {@code atomic_latency}: PE 0's blocking get / fetch-add on PE 1, whole operation.</li>
 *   <li>{@code put_bw}, {@code get_bw}: windows of {@code putNbi}/{@code getNbi} then quiet. Baseline: memcpy.</li>
 * </ul>
 * The timed loops allocate nothing (the heap's calls do not).
 */
public final class ShmemPerf
{
    /** The tests, in NVSHMEM perftest's names. */
    public static final String[] TESTS = {"put_latency", "p_latency", "get_latency", "atomic_latency", "put_bw",
        "get_bw"};

    /** What to run. */
    public static final class Settings
    {
        /** Test name (one of {@link #TESTS}). */
        public String test = "put_latency";
        /** shm or tcp. */
        public String transport = "shm";
        /** Smallest size, bytes. */
        public int minBytes = 8;
        /** Largest size, bytes. */
        public int maxBytes = 8;
        /** Timed iterations per size. */
        public int iterations = 10_000;
        /** Untimed iterations per size. */
        public int warmup = 1_000;
        /** Operations per bandwidth window. */
        public int window = 64;
    }

    private ShmemPerf()
    {
    }

    /**
     * Runs one test over a size sweep (doubling) and prints its table and baseline.
     *
     * @param settings what to run.
     * @param out      where the table goes.
     */
    public static void run(final Settings settings, final PrintWriter out)
    {
        final boolean latency = settings.test.endsWith("latency");
        out.println(PerftestFormat.RESULT_LINE);
        out.println("# shmem " + settings.test + " over " + settings.transport + " (2 PEs as threads" +
            (latency ? "; latency = half round trip for put/p, whole operation for get/atomic)" : ")"));
        out.println(latency ? PerftestFormat.LATENCY_HEADER : PerftestFormat.BANDWIDTH_HEADER);
        new ThreadCluster(2, Duration.ofMinutes(10)).run((rank, size, store) ->
        {
            final CommunicatorContext context = new CommunicatorContext().rank(rank).size(size).store(store)
                .transport(settings.transport).name("shmem-perf").calibrate(false);
            if (latency)
            {
                // latency rows busy-poll, as perftest does; bandwidth rows leave the cores to the I/O threads
                context.idle(Long.MAX_VALUE, 0, 1, 1);
            }
            try (SymmetricHeap heap = SymmetricHeap.create(context))
            {
                final int capacity = Math.max(64, settings.maxBytes);
                final SymmetricMemory data = heap.allocate(capacity);
                final SymmetricMemory flags = heap.allocate(64);
                final UnsafeBuffer local = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
                for (int bytes = settings.minBytes; bytes <= settings.maxBytes; bytes = Math.max(1, bytes * 2))
                {
                    final String row = measure(heap, settings, data, flags, local, bytes);
                    if (0 == rank)
                    {
                        out.println(row);
                        out.flush();
                    }
                    heap.barrierAll();
                }
            }
        });
        baseline(settings, out);
        out.println(PerftestFormat.RESULT_LINE);
        out.flush();
    }

    private static String measure(final SymmetricHeap heap, final ShmemPerf.Settings settings,
        final SymmetricMemory data, final SymmetricMemory flags, final UnsafeBuffer local, final int bytes)
    {
        final int me = heap.myPe();
        final int total = settings.warmup + settings.iterations;
        final Histogram histogram = Histograms.newNanosHistogram();
        flags.local().putLongVolatile(0, 0);
        heap.barrierAll();
        switch (settings.test)
        {
            case "put_latency":
            case "p_latency":
            {
                final boolean p = "p_latency".equals(settings.test);
                final int peer = 1 - me;
                for (long i = 1; i <= total; i++)
                {
                    final long start = System.nanoTime();
                    if (0 == me)
                    {
                        send(heap, p, data, flags, bytes, i, peer);
                    }
                    heap.waitUntil(flags, 0, Cmp.GE, i);
                    if (1 == me)
                    {
                        send(heap, p, data, flags, bytes, i, peer);
                    }
                    else if (i > settings.warmup)
                    {
                        Histograms.record(histogram, System.nanoTime() - start);
                    }
                }
                return 0 == me ? PerftestFormat.latencyRow(LatencyStats.fromRoundTrips(p ? 8 : bytes, histogram)) :
                    "";
            }
            case "get_latency":
            case "atomic_latency":
            {
                if (0 == me)
                {
                    final boolean get = "get_latency".equals(settings.test);
                    for (int i = 1; i <= total; i++)
                    {
                        final long start = System.nanoTime();
                        if (get)
                        {
                            heap.get(local, 0, data, 0, bytes, 1);
                        }
                        else
                        {
                            heap.atomicFetchAdd(flags, 8, 1, 1);
                        }
                        if (i > settings.warmup)
                        {
                            Histograms.record(histogram, System.nanoTime() - start);
                        }
                    }
                    return PerftestFormat.latencyRow(LatencyStats.fromOperations(get ? bytes : 8, histogram));
                }
                return "";
            }
            default:
            {
                if (0 == me)
                {
                    final boolean put = "put_bw".equals(settings.test);
                    for (int i = 0; i < settings.warmup; i++)
                    {
                        transfer(heap, put, data, local, bytes);
                    }
                    heap.quiet();
                    final long start = System.nanoTime();
                    for (int done = 0; done < settings.iterations; done += settings.window)
                    {
                        final long windowStart = System.nanoTime();
                        final int n = Math.min(settings.window, settings.iterations - done);
                        for (int i = 0; i < n; i++)
                        {
                            transfer(heap, put, data, local, bytes);
                        }
                        heap.quiet();
                        if (n == settings.window)
                        {
                            Histograms.record(histogram, System.nanoTime() - windowStart);
                        }
                    }
                    return PerftestFormat.bandwidthRow(BandwidthStats.from(bytes, settings.iterations,
                        System.nanoTime() - start, histogram, settings.window));
                }
                return "";
            }
        }
    }

    private static void send(final SymmetricHeap heap, final boolean p, final SymmetricMemory data,
        final SymmetricMemory flags, final int bytes, final long i, final int peer)
    {
        if (p)
        {
            heap.putLong(flags, 0, i, peer);
        }
        else
        {
            heap.putSignal(data, 0, data.local(), 0, bytes, flags, 0, i, SignalOp.SET, peer);
        }
    }

    private static void transfer(final SymmetricHeap heap, final boolean put, final SymmetricMemory data,
        final UnsafeBuffer local, final int bytes)
    {
        if (put)
        {
            heap.putNbi(data, 0, data.local(), 0, bytes, 1);
        }
        else
        {
            heap.getNbi(data.local(), 0, data, 0, bytes, 1);
        }
    }

    private static void baseline(final Settings settings, final PrintWriter out)
    {
        if (settings.test.endsWith("bw"))
        {
            out.println("# baseline: memcpy between two off-heap buffers, same run");
            for (int bytes = settings.minBytes; bytes <= settings.maxBytes; bytes = Math.max(1, bytes * 2))
            {
                final Histogram windows = Histograms.newNanosHistogram();
                ShmemBaselines.memcpy(bytes, settings.warmup, settings.window, Histograms.newNanosHistogram());
                final long elapsed = ShmemBaselines.memcpy(bytes, settings.iterations, settings.window, windows);
                out.println(PerftestFormat.bandwidthRow(BandwidthStats.from(bytes, settings.iterations, elapsed,
                    windows, settings.window)));
            }
            return;
        }
        final boolean tcp = "tcp".equals(settings.transport);
        out.println(String.format(Locale.ROOT, "# baseline: %s, same run", tcp ?
            "8-byte inline tcp RDMA WRITE ping-pong (two queue pairs on loopback), half round trip" :
            "cache-line ping-pong between two threads, half round trip"));
        final Histogram rtt = tcp ? ShmemBaselines.tcpWritePingPong(settings.warmup, settings.iterations) :
            ShmemBaselines.cacheLinePingPong(settings.warmup, settings.iterations);
        out.println(PerftestFormat.latencyRow(LatencyStats.fromRoundTrips(8, rtt)));
    }
}
