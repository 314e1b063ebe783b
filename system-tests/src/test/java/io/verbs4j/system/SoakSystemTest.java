// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.launch.ChildJvm;
import io.verbs4j.system.support.Messages;
import io.verbs4j.system.support.Resources;
import io.verbs4j.system.support.SystemTests;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Soak: a mixed workload for {@code verbs4j.faults.soakMinutes} (10) minutes with everything sampled every 5 s into
 * {@code target/reliability/soak.csv}, and no growth allowed. Each cycle, for shm and for tcp, this JVM opens a
 * protection domain and CQ, allocates and registers regions, connects 8 queue pairs to a {@link FaultPeerMain}
 * process of that provider ({@code SOAK}: accepts for ever, checks every SEND, closes connections the test closed)
 * and runs checked SENDs, WRITEs, READs of a patterned region and atomics on them, then closes it all; every 10th
 * cycle reopens the devices; every cycle also runs a 2-rank communicator (threads, shm and tcp alternately) with 20
 * checked AllReduces. Sampled: RSS and fds of this JVM and of both peers, this JVM's verbs4j threads, heap used
 * after GC, direct and mapped buffers, files and bytes in the shm directory. Asserted at the end: for every series,
 * the average of the last quarter is at most the first quarter's x 1.2 + a small slack, and no error or corrupted
 * message was seen.
 */
@Tag("slow")
class SoakSystemTest
{
    private static final int QPS = 8;
    private static final int OPS_PER_QP = 400;
    private static final int WINDOW = 16;
    private static final int MAX_MESSAGE = 16 * 1024;
    private static final int SLOT = Messages.HEADER_LENGTH + MAX_MESSAGE;
    private static final int REMOTE_BYTES = 1 << 20;
    private static final String[] COLUMNS = {"seconds", "cycles", "ops", "jvmRssKiB", "jvmFds", "verbsThreads",
        "heapUsedAfterGcKiB", "directKiB", "mappedBuffers", "shmPeerRssKiB", "shmPeerFds", "tcpPeerRssKiB",
        "tcpPeerFds", "shmDirFiles", "shmDirKiB"};
    /** Slack per column for the growth check (same units as the column). */
    private static final long[] SLACK = {0, 0, 0, 131072, 16, 2, 32768, 4096, 8, 65536, 16, 65536, 16, 64, 65536};

    /** Peers with a fixed, pre-touched heap, so that their resident memory shows native and mapped memory only. */
    private static final List<String> PEER_JVM = List.of("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch");

    private final AtomicLong cycles = new AtomicLong();
    private final AtomicLong ops = new AtomicLong();

    @Test
    @Timeout(value = 120, unit = TimeUnit.MINUTES)
    void mixedWorkloadStaysFlat() throws Exception
    {
        final long minutes = SystemTests.intProperty("verbs4j.faults.soakMinutes", 10);
        final Path shmDir = SystemTests.newShmDir("soak");
        final Path csv = Path.of(System.getProperty("verbs4j.faults.reportDir", "target/reliability"), "soak.csv");
        Files.createDirectories(csv.getParent());
        Files.writeString(csv, String.join(",", COLUMNS) + "\n", StandardCharsets.UTF_8);
        final List<long[]> samples = new ArrayList<>();
        final AtomicReference<Throwable> samplerFailure = new AtomicReference<>();
        final long start = System.nanoTime();
        final long end = start + TimeUnit.MINUTES.toNanos(minutes);
        try (ChildJvm shmPeer = new ChildJvm("soak shm peer", PEER_JVM, FaultPeerMain.class,
            SystemTests.peerArgs("shm", shmDir));
            ChildJvm tcpPeer = new ChildJvm("soak tcp peer", PEER_JVM, FaultPeerMain.class,
                SystemTests.peerArgs("tcp", shmDir)))
        {
            final Peer[] peers = {peer("shm", shmPeer), peer("tcp", tcpPeer)};
            final Thread sampler = new Thread(() ->
            {
                while (!Thread.currentThread().isInterrupted())
                {
                    try
                    {
                        final long[] row = sample(start, shmPeer.pid(), tcpPeer.pid(), shmDir);
                        synchronized (samples)
                        {
                            samples.add(row);
                        }
                        Files.writeString(csv, join(row) + "\n", StandardCharsets.UTF_8,
                            java.nio.file.StandardOpenOption.APPEND);
                        Thread.sleep(5_000);
                    }
                    catch (final InterruptedException ex)
                    {
                        return;
                    }
                    catch (final IOException | RuntimeException ex)
                    {
                        // Reported at the end: a sampler that died silently would leave the run unsampled.
                        samplerFailure.set(ex);
                        return;
                    }
                }
            }, "soak-sampler");
            sampler.setDaemon(true);
            sampler.start();
            final SplittableRandom random = new SplittableRandom(SystemTests.seed());
            Device[] devices = null;
            long cycle = 0;
            while (System.nanoTime() < end)
            {
                if (0 == cycle % 10)
                {
                    if (null != devices)
                    {
                        devices[0].close();
                        devices[1].close();
                    }
                    devices = new Device[]{Verbs.open("shm", SystemTests.context("shm", shmDir)),
                        Verbs.open("tcp", SystemTests.context("tcp", shmDir))};
                }
                for (int p = 0; p < 2; p++)
                {
                    verbsCycle(devices[p], peers[p], random);
                }
                collectiveCycle(0 == cycle % 2 ? "shm" : "tcp", shmDir, cycle);
                cycle++;
                cycles.set(cycle);
            }
            devices[0].close();
            devices[1].close();
            sampler.interrupt();
            sampler.join(10_000);
            assertNull(samplerFailure.get(), () -> "the sampler stopped: " + samplerFailure.get());
            for (final ChildJvm child : List.of(shmPeer, tcpPeer))
            {
                final String[] stats = child.call("STATS").split(" ");
                assertEquals(List.of(), child.badLines(), "corrupted messages at the peer");
                assertEquals("0", stats[2], "bad messages at the peer");
                SystemTests.report("soak.txt", "peer " + child.pid() + ": " + stats[0] + " receives checked, " +
                    stats[4] + " connections accepted, " + stats[5] + " closed again");
            }
        }
        finally
        {
            SystemTests.deleteDir(shmDir);
        }
        assertFlat(samples, (System.nanoTime() - start) / 1e9);
    }

    private record Peer(String endpoint, long address, int rkey)
    {
    }

    private static Peer peer(final String provider, final ChildJvm child)
    {
        final String endpoint = child.call("LISTEN soak-" + ProcessHandle.current().pid() + "-" + provider);
        final String[] r = child.call("SOAK 8 " + SLOT + " " + REMOTE_BYTES).split(" ");
        return new Peer(endpoint, Long.parseLong(r[0]), Integer.parseInt(r[1]));
    }

    private void verbsCycle(final Device device, final Peer peer, final SplittableRandom random)
    {
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final CompletionQueue cq = device.createCompletionQueue(QPS * (WINDOW + 1));
        try
        {
            final MemoryRegion mr = pd.allocate((long)QPS * WINDOW * SLOT, Access.LOCAL_WRITE);
            final MemoryRegion registered = pd.register(ByteBuffer.allocateDirect(64 * 1024), Access.LOCAL_WRITE);
            final byte[] pool = new byte[MAX_MESSAGE + 4096];
            random.nextBytes(pool);
            final QueuePair[] qps = new QueuePair[QPS];
            for (int i = 0; i < QPS; i++)
            {
                qps[i] = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(WINDOW).recvDepth(1)
                    .rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE));
                device.connectionManager().connect(qps[i], peer.endpoint(), new byte[0], Duration.ofSeconds(30));
            }
            final int[] posted = new int[QPS];
            final int[] done = new int[QPS];
            final long[] seq = new long[QPS];
            final int[] kind = new int[QPS * WINDOW];
            final long[] remoteAt = new long[QPS * WINDOW];
            final int[] lengths = new int[QPS * WINDOW];
            final int[] outstanding = new int[QPS * WINDOW];
            final SendRequest send = new SendRequest(1);
            final CompletionBatch batch = new CompletionBatch(64);
            int total = 0;
            final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (total < QPS * OPS_PER_QP)
            {
                for (int i = 0; i < QPS; i++)
                {
                    while (posted[i] < OPS_PER_QP && posted[i] - done[i] < WINDOW)
                    {
                        final int s = i * WINDOW + posted[i] % WINDOW;
                        final long slot = (long)s * SLOT;
                        final int length = 1 + random.nextInt(MAX_MESSAGE);
                        final int k = random.nextInt(4);
                        kind[s] = k;
                        send.clearSges().wrId(s).flags(SendRequest.SIGNALED);
                        if (0 == k)
                        {
                            Messages.writeSend(mr, slot, seq[i]++, pool, random.nextInt(4096), length);
                            send.opcode(Opcode.SEND).sge(mr, slot, Messages.HEADER_LENGTH + length);
                        }
                        else if (1 == k)
                        {
                            // From the registered (not allocated) buffer: the path that copies on shm.
                            final int n = Math.min(length, 64 * 1024);
                            send.opcode(Opcode.RDMA_WRITE).sge(registered, 0, n)
                                .remote(peer.address() + REMOTE_BYTES / 2 + random.nextInt(REMOTE_BYTES / 2 - n),
                                    peer.rkey());
                        }
                        else if (2 == k)
                        {
                            final long at = random.nextInt(REMOTE_BYTES / 2 - length);
                            remoteAt[s] = at;
                            send.opcode(Opcode.RDMA_READ).sge(mr, slot, length).remote(peer.address() + at,
                                peer.rkey());
                        }
                        else
                        {
                            send.opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(mr, slot, 8)
                                .remote(peer.address() + REMOTE_BYTES - 8 - 8L * (i % 4), peer.rkey()).atomic(1, 0);
                        }
                        final int rc = qps[i].postSend(send);
                        assertEquals(QueuePair.OK, rc, () -> QueuePair.describe(rc));
                        posted[i]++;
                        outstanding[s]++;
                        lengths[s] = length;
                    }
                }
                final int n = cq.poll(batch);
                for (int c = 0; c < n; c++)
                {
                    final int s = (int)batch.wrId(c);
                    final int i = s / WINDOW;
                    outstanding[s]--;
                    assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(batch.status(c)), "soak op");
                    if (2 == kind[s])
                    {
                        assertEquals(-1, Messages.firstPatternMismatch(mr, (long)s * SLOT, remoteAt[s], lengths[s]),
                            "READ brought the peer's bytes");
                    }
                    done[i]++;
                    total++;
                    ops.incrementAndGet();
                }
                if (0 == n)
                {
                    LockSupport.parkNanos(20_000);
                }
                if (System.nanoTime() >= deadline)
                {
                    final StringBuilder state = new StringBuilder();
                    for (int i = 0; i < QPS; i++)
                    {
                        state.append(' ').append(posted[i]).append('/').append(done[i]).append(' ')
                            .append(qps[i].state());
                    }
                    for (int s = 0; s < QPS * WINDOW; s++)
                    {
                        if (0 != outstanding[s])
                        {
                            state.append("; slot ").append(s).append(" kind ").append(kind[s]).append(" length ")
                                .append(lengths[s]).append(" outstanding ").append(outstanding[s]);
                        }
                    }
                    final int late = cq.poll(batch);
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2));
                    state.append("; polled late ").append(late).append(" then ").append(cq.poll(batch));
                    fail(device.name() + " soak cycle stalled at " + total + "; per queue pair posted/done, state:" +
                        state);
                }
            }
            for (final QueuePair qp : qps)
            {
                qp.close();
            }
            registered.close();
            mr.close();
        }
        finally
        {
            pd.close();
            cq.close();
        }
    }

    private static void collectiveCycle(final String transport, final Path shmDir, final long cycle) throws Exception
    {
        final Path store = Files.createTempDirectory("verbs4j-soak-store-");
        try
        {
            final List<CompletableFuture<Void>> ranks = new ArrayList<>();
            for (int rank = 0; rank < 2; rank++)
            {
                final int r = rank;
                ranks.add(CompletableFuture.runAsync(() ->
                {
                    try (FileStore fs = new FileStore(store);
                        Communicator comm = Communicator.create(new CommunicatorContext().rank(r).size(2).store(fs)
                            .name("soak-" + cycle).transport(transport).calibrate(false)
                            .deviceProperty(SystemTests.SHM_DIR_PROP, shmDir.toString())))
                    {
                        final long[] v = new long[10_000];
                        for (int call = 0; call < 20; call++)
                        {
                            java.util.Arrays.fill(v, (r + 1) * (call + 1L));
                            comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), v.length, DataType.INT64, ReduceOp.SUM);
                            if (v[0] != 3L * (call + 1) || v[v.length - 1] != v[0])
                            {
                                throw new AssertionError("AllReduce " + call + " gave " + v[0]);
                            }
                        }
                    }
                }));
            }
            for (final CompletableFuture<Void> rank : ranks)
            {
                rank.get(2, TimeUnit.MINUTES);
            }
        }
        finally
        {
            SystemTests.deleteDir(store);
        }
    }

    private long[] sample(final long start, final long shmPid, final long tcpPid, final Path shmDir)
    {
        System.gc();
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        final Resources r = Resources.snapshot(shmDir);
        final long self = ProcessHandle.current().pid();
        return new long[]{TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), cycles.get(), ops.get(),
            Resources.rssKiB(self), r.fds(), r.verbsThreads(), memory.getHeapMemoryUsage().getUsed() / 1024,
            r.directBytes() / 1024, r.mappedCount(), Resources.rssKiB(shmPid), Resources.fdCount(shmPid),
            Resources.rssKiB(tcpPid), Resources.fdCount(tcpPid), r.shmFiles().size(),
            Resources.usedBytes(shmDir) / 1024};
    }

    private static String join(final long[] row)
    {
        final StringBuilder sb = new StringBuilder();
        for (final long v : row)
        {
            sb.append(sb.length() == 0 ? "" : ",").append(v);
        }
        return sb.toString();
    }

    private void assertFlat(final List<long[]> samples, final double seconds)
    {
        assertTrue(samples.size() >= 8, "too few samples: " + samples.size());
        final int q = samples.size() / 4;
        final List<String> lines = new ArrayList<>();
        final List<String> growing = new ArrayList<>();
        lines.add(SystemTests.runHeader());
        lines.add(String.format("soak: %.0f s, %d cycles, %d verbs operations, %d samples", seconds, cycles.get(),
            ops.get(), samples.size()));
        for (int c = 3; c < COLUMNS.length; c++)
        {
            double first = 0;
            double last = 0;
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int i = 0; i < samples.size(); i++)
            {
                final long v = samples.get(i)[c];
                min = Math.min(min, v);
                max = Math.max(max, v);
                if (i < q)
                {
                    first += v;
                }
                if (i >= samples.size() - q)
                {
                    last += v;
                }
            }
            first /= q;
            last /= q;
            final boolean flat = last <= first * 1.2 + SLACK[c];
            lines.add(String.format("  %-20s first quarter %12.0f  last quarter %12.0f  min %10d  max %10d  %s",
                COLUMNS[c], first, last, min, max, flat ? "flat" : "GROWING"));
            if (!flat)
            {
                growing.add(COLUMNS[c]);
            }
        }
        SystemTests.report("soak.txt", lines);
        assertEquals(List.of(), growing, "series growing from the first to the last quarter");
    }
}
