// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
import io.verbs4j.launch.ChildJvm;
import io.verbs4j.system.support.Resources;
import io.verbs4j.system.support.SystemTests;
import org.agrona.collections.Int2IntHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Hundreds of queue pairs between two processes over one provider at once, all busy: {@value #QPS} QPs from this
 * JVM to a {@link FaultPeerMain} process, each keeping up to {@value #WINDOW} SENDs and WRITEs in flight on one
 * shared CQ. Every QP's completions equal its posts (all SUCCESS, in order), the peer received exactly the SENDs of
 * each QP, and after closing no socket, thread or shm file is left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ManyQueuePairsSystemTest
{
    private static final int QPS = 256;
    private static final int OPS_PER_QP = 200;
    private static final int WINDOW = 8;
    private static final int PEER_RECV_DEPTH = 16;
    private static final String RING = "verbs4j.shm.ring.capacity";

    private Path shmDir;

    @BeforeAll
    void dir()
    {
        shmDir = SystemTests.newShmDir("manyqps");
    }

    @AfterAll
    void removeDir()
    {
        SystemTests.deleteDir(shmDir);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void completionsEqualPostsOnEveryQueuePair(final String provider)
    {
        final Resources before = Resources.snapshot(shmDir);
        final List<String> peerArgs = new ArrayList<>(SystemTests.peerArgs(provider, shmDir));
        peerArgs.add(RING + "=65536"); // 256 connections x 4 x 64 KiB of /dev/shm instead of 256 KiB each
        final long start = System.nanoTime();
        try (ChildJvm child = new ChildJvm("many-QP peer", List.of("-Xmx256m"), FaultPeerMain.class, peerArgs);
            Device device = Verbs.open(provider, SystemTests.context(provider, shmDir).property(RING, "65536")))
        {
            final String endpoint = child.call("LISTEN mq-" + ProcessHandle.current().pid() + "-" + provider);
            final String[] region = child.call("SERVE " + QPS + " " + PEER_RECV_DEPTH + " 64 " + (QPS * 4096) +
                " 0 same").split(" ");
            final long remoteAddress = Long.parseLong(region[0]);
            final int rkey = Integer.parseInt(region[1]);
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(QPS * (WINDOW + 1) * 2);
            final MemoryRegion mr = pd.allocate((long)QPS * 4096, Access.LOCAL_WRITE);
            final QueuePair[] qps = new QueuePair[QPS];
            final Int2IntHashMap index = new Int2IntHashMap(-1);
            for (int i = 0; i < QPS; i++)
            {
                qps[i] = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(WINDOW).recvDepth(1)
                    .rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE));
                device.connectionManager().connect(qps[i], endpoint, new byte[0], Duration.ofSeconds(30));
                index.put(qps[i].qpNumber(), i);
            }
            final long connectedNs = System.nanoTime();
            final int[] posted = new int[QPS];
            final int[] completed = new int[QPS];
            final SendRequest send = new SendRequest(1);
            final CompletionBatch batch = new CompletionBatch(256);
            long total = 0;
            int maxBusy = 0;
            final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (total < (long)QPS * OPS_PER_QP)
            {
                int busy = 0;
                for (int i = 0; i < QPS; i++)
                {
                    while (posted[i] < OPS_PER_QP && posted[i] - completed[i] < WINDOW)
                    {
                        final long slot = i * 4096L;
                        final int op = posted[i];
                        send.clearSges().wrId(((long)i << 32) | op).flags(SendRequest.SIGNALED);
                        if (0 == (op & 1))
                        {
                            mr.putInt(slot, op);
                            send.opcode(Opcode.SEND).sge(mr, slot, 32);
                        }
                        else
                        {
                            send.opcode(Opcode.RDMA_WRITE).sge(mr, slot, 256).remote(remoteAddress + slot, rkey);
                        }
                        final int rc = qps[i].postSend(send);
                        assertEquals(QueuePair.OK, rc, () -> QueuePair.describe(rc));
                        posted[i]++;
                    }
                    if (posted[i] > completed[i])
                    {
                        busy++;
                    }
                }
                maxBusy = Math.max(maxBusy, busy);
                final int n = cq.poll(batch);
                for (int k = 0; k < n; k++)
                {
                    final int i = index.get(batch.qpNumber(k));
                    if (WcStatus.SUCCESS != batch.status(k))
                    {
                        fail("QP " + i + " op " + (int)batch.wrId(k) + ": " + WcStatus.name(batch.status(k)));
                    }
                    assertEquals(i, (int)(batch.wrId(k) >>> 32), "completion on the QP that posted it");
                    assertEquals(completed[i], (int)batch.wrId(k), "completions of QP " + i + " in order");
                    completed[i]++;
                    total++;
                }
                if (0 == n)
                {
                    LockSupport.parkNanos(10_000);
                }
                assertTrue(System.nanoTime() < deadline, "stalled at " + total + " completions");
            }
            for (int i = 0; i < QPS; i++)
            {
                assertEquals(OPS_PER_QP, posted[i]);
                assertEquals(posted[i], completed[i], "QP " + i + ": completions = posts");
            }
            assertEquals(QPS, maxBusy, "every QP had work in flight at once");
            // Each QP sent OPS_PER_QP / 2 SENDs; the peer counted the receives of each accepted QP.
            final long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String[] perQp;
            do
            {
                perQp = child.call("PERQP").split(",");
                final long sum = java.util.Arrays.stream(perQp).mapToLong(Long::parseLong).sum();
                if (sum == (long)QPS * OPS_PER_QP / 2)
                {
                    break;
                }
                LockSupport.parkNanos(50_000_000);
            }
            while (System.nanoTime() < waitUntil);
            assertEquals(QPS, perQp.length);
            for (int i = 0; i < QPS; i++)
            {
                assertEquals(OPS_PER_QP / 2, Long.parseLong(perQp[i]), "receives of peer QP " + i);
            }
            SystemTests.report("many-qps.txt", String.format("%s: %d QPs connected in %.1f s, %d operations " +
                "(SEND 32 B + WRITE 256 B, window %d per QP, %d QPs busy at once) in %.1f s, completions = posts " +
                "on every QP, peer receives = SENDs on every QP", provider, QPS,
                (connectedNs - start) / 1e9, total, WINDOW, maxBusy, (System.nanoTime() - connectedNs) / 1e9));
        }
        final Resources after = Resources.snapshot(shmDir);
        assertEquals(0, after.verbsThreads(), after.toString());
        assertTrue(after.fds() <= before.fds() + 16, "fds " + before.fds() + " -> " + after.fds());
        assertEquals(List.of(), after.shmFiles());
    }
}
