// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link QueuePairConfig#threadSafePosting(boolean)}: several threads post to one queue pair at once, each with its
 * own request objects, while one thread polls the completion queue. Every request must be carried out exactly once,
 * each thread's requests in its own posting order, and every completion must arrive.
 */
public abstract class AbstractThreadSafePostingConformanceTest extends AbstractConformanceTest
{
    private static final int THREADS = 4;
    private static final int PER_THREAD = 32;
    private static final int SLOT = 16;
    private static final int ALL_REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    @Test
    void shouldCarryOutSendsAndWritesFromManyPostingThreadsExactlyOnceEachInItsOrder() throws Exception
    {
        final QueuePair qp = connect(defaultConfig().threadSafePosting(true), THREADS * PER_THREAD, SLOT,
            QueuePairConfig.RNR_RETRY_INFINITE);
        final Peer.RegionInfo remote = peer.allocate(THREADS * PER_THREAD * 8L, ALL_REMOTE, false);
        final MemoryRegion local = allocate(THREADS * 2L * SLOT, Access.LOCAL_WRITE);
        final CountDownLatch start = new CountDownLatch(1);
        final AtomicReference<String> failure = new AtomicReference<>();
        final List<Thread> posters = new ArrayList<>();
        for (int t = 0; t < THREADS; t++)
        {
            final int thread = t;
            final Thread poster = new Thread(() -> post(qp, local, remote, thread, start, failure), "poster-" + t);
            poster.start();
            posters.add(poster);
        }
        start.countDown();
        final List<Peer.Completion> completions = await(cq, 2 * THREADS * PER_THREAD);
        for (final Thread poster : posters)
        {
            poster.join(TimeUnit.MILLISECONDS.toMillis(WAIT_MS));
        }
        assertNull(failure.get());
        for (final Peer.Completion c : completions)
        {
            assertStatus(WcStatus.SUCCESS, c);
        }
        assertQuiet(cq, 50);

        // SENDs: each (thread, seq) once, each thread's in its posting order.
        final int[] nextSeq = new int[THREADS];
        final Set<Long> seen = new HashSet<>();
        for (final Peer.Completion received : peer.pollRecv(THREADS * PER_THREAD, WAIT_MS))
        {
            assertStatus(WcStatus.SUCCESS, received);
            final ByteBuffer data = ByteBuffer.wrap(peer.recvData(received.wrId(), SLOT))
                .order(ByteOrder.nativeOrder());
            final int thread = (int)data.getLong(0);
            final int seq = (int)data.getLong(8);
            assertTrue(seen.add((long)thread << 32 | seq), () -> "received twice: " + thread + "/" + seq);
            assertEquals(nextSeq[thread]++, seq, () -> "thread " + thread + "'s sends out of order");
        }
        // WRITEs: every slot holds the value its one WRITE carried.
        final ByteBuffer written = ByteBuffer.wrap(peer.read(remote.id(), 0, THREADS * PER_THREAD * 8))
            .order(ByteOrder.nativeOrder());
        for (int t = 0; t < THREADS; t++)
        {
            for (int i = 0; i < PER_THREAD; i++)
            {
                assertEquals(value(t, i), written.getLong((t * PER_THREAD + i) * 8), "slot of " + t + "/" + i);
            }
        }
    }

    private static long value(final int thread, final int seq)
    {
        return (long)(thread + 1) << 32 | seq;
    }

    /** A poster: its own requests and its own slice of the local region; a refused post is retried. */
    private static void post(
        final QueuePair qp,
        final MemoryRegion local,
        final Peer.RegionInfo remote,
        final int thread,
        final CountDownLatch start,
        final AtomicReference<String> failure)
    {
        final int sendAt = thread * 2 * SLOT;
        final int writeAt = sendAt + SLOT;
        final SendRequest send = new SendRequest(1).opcode(Opcode.SEND)
            .flags(SendRequest.SIGNALED | SendRequest.INLINE).sge(local, sendAt, SLOT);
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE)
            .flags(SendRequest.SIGNALED | SendRequest.INLINE).sge(local, writeAt, 8);
        try
        {
            start.await();
            for (int i = 0; i < PER_THREAD; i++)
            {
                local.putLong(sendAt, thread);
                local.putLong(sendAt + 8, i);
                postUntilAccepted(qp, send.wrId((long)thread << 32 | i));
                local.putLong(writeAt, value(thread, i));
                postUntilAccepted(qp, write.wrId(1L << 62 | (long)thread << 32 | i)
                    .remote(remote.address() + (thread * PER_THREAD + i) * 8L, remote.rkey()));
            }
        }
        catch (final RuntimeException | InterruptedException ex)
        {
            failure.compareAndSet(null, "poster " + thread + ": " + ex);
        }
    }

    private static void postUntilAccepted(final QueuePair qp, final SendRequest request)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        int rc;
        while (QueuePair.BACK_PRESSURED == (rc = qp.postSend(request)))
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("send queue still full after " + WAIT_MS + " ms");
            }
            Thread.yield();
        }
        if (QueuePair.OK != rc)
        {
            throw new IllegalStateException("postSend: " + QueuePair.describe(rc));
        }
    }
}
