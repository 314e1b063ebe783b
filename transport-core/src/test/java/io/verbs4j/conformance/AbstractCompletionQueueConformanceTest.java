// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Completion queues: capacity admission, idle polls, batch polls into caller storage, blocking waits with timeout,
 * and sharing one queue between queue pairs.
 */
public abstract class AbstractCompletionQueueConformanceTest extends AbstractConformanceTest
{
    @Test
    void shouldRefuseQueuePairsThatCouldOverrunIt()
    {
        try (CompletionQueue small = device.createCompletionQueue(16))
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> pd.createQueuePair(new QueuePairConfig(small).sendDepth(16).recvDepth(16)));
            assertTrue(ex.getMessage().contains("capacity"), ex.getMessage());
            final QueuePair fits = pd.createQueuePair(new QueuePairConfig(small).sendDepth(8).recvDepth(8));
            assertThrows(IllegalArgumentException.class,
                () -> pd.createQueuePair(new QueuePairConfig(small).sendDepth(1).recvDepth(1)));
            fits.close();
            pd.createQueuePair(new QueuePairConfig(small).sendDepth(8).recvDepth(8)).close();
        }
        assertThrows(IllegalArgumentException.class, () -> device.createCompletionQueue(0));
    }

    @Test
    void shouldReturnZeroWhenIdleAndTimeOutWhenWaiting() throws InterruptedException
    {
        assertEquals(0, cq.poll((w, s, o, b, i, f, q) -> { }, 16));
        final long start = System.nanoTime();
        assertEquals(0, cq.poll((w, s, o, b, i, f, q) -> { }, 16, 50, TimeUnit.MILLISECONDS));
        final long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waitedMs >= 45, "waited only " + waitedMs + " ms");
    }

    @Test
    void shouldPollInBatchesIntoCallerStorage()
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE, false);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        for (int i = 0; i < 10; i++)
        {
            post(qp, new SendRequest(1).wrId(i).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 8)
                .remote(remote.address(), remote.rkey()));
        }
        final CompletionBatch batch = new CompletionBatch(4);
        int seen = 0;
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (seen < 10 && System.nanoTime() < deadline)
        {
            final int n = cq.poll(batch);
            assertTrue(n <= 4);
            assertEquals(n, batch.size());
            for (int i = 0; i < n; i++)
            {
                assertEquals(seen + i, batch.wrId(i));
                assertEquals(WcStatus.SUCCESS, batch.status(i));
                assertEquals(Opcode.RDMA_WRITE, batch.opcode(i));
                assertEquals(qp.qpNumber(), batch.qpNumber(i));
            }
            seen += n;
        }
        assertEquals(10, seen);
    }

    @Test
    void shouldServeSeveralQueuePairs()
    {
        final QueuePair a = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE, false);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        final QueuePair b = pd.createQueuePair(defaultConfig());
        post(a, new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 8)
            .remote(remote.address(), remote.rkey()));
        b.modify(io.verbs4j.QpState.ERROR);
        post(b, new SendRequest(1).wrId(2).sge(mr, 0, 8));
        final java.util.List<Peer.Completion> cs = await(cq, 2);
        final java.util.Set<Integer> qps = new java.util.HashSet<>();
        cs.forEach(c -> qps.add(c.qpNumber()));
        assertEquals(java.util.Set.of(a.qpNumber(), b.qpNumber()), qps);
    }
}
