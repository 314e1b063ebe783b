// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The drain's hand-over between two completing threads: a completer that finds the drain taken leaves its slot to the
 * holder, which must see it when it lets go. Two threads complete the two slots of a round at the same moment, each
 * as a provider does (in order if it can, else it marks its slot done and tries the drain); after both return, with
 * no further drain, both slots must be in the CQ. The soak test once lost the last WRITE of a queue pair here, when
 * the holder freed the drain with a plain release store and x86 let its look at the slot state pass that store.
 */
class WorkQueueDrainRaceTest
{
    private static final long BUDGET_NS = TimeUnit.SECONDS.toNanos(2);

    private final BaseCompletionQueue cq = new BaseCompletionQueue(this, 64, Progress.NONE, new BackoffIdleStrategy());
    private final WorkQueue wq = new WorkQueue(true, 8, 1, 0);
    private final SendRequest request = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED);
    private final AbstractMemoryRegion[] regions = new AbstractMemoryRegion[1];
    private final long[] offsets = new long[1];
    private final AtomicLong round = new AtomicLong();
    private final AtomicLong finished = new AtomicLong();
    private volatile long first;
    private volatile boolean stop;

    @Test
    void shouldHandEveryCompletedSlotToTheCqWhenTwoThreadsCompleteAtOnce() throws Exception
    {
        final Thread behind = new Thread(() ->
        {
            long seen = 0;
            while (!stop)
            {
                final long r = round.get();
                if (r == seen)
                {
                    Thread.onSpinWait();
                    continue;
                }
                seen = r;
                complete(first + 1);
                finished.incrementAndGet();
            }
        }, "drain-race-behind");
        behind.setDaemon(true);
        behind.start();
        final long[] polled = new long[1];
        final long end = System.nanoTime() + BUDGET_NS;
        long rounds = 0;
        try
        {
            while (System.nanoTime() < end)
            {
                final long a = post(2 * rounds);
                post(2 * rounds + 1);
                first = a;
                final long target = finished.get() + 1;
                round.incrementAndGet();
                complete(a);
                while (finished.get() < target)
                {
                    Thread.onSpinWait();
                }
                polled[0] = 0;
                cq.poll((wrId, status, opcode, len, imm, flags, qp) -> polled[0]++, 64);
                assertEquals(2, polled[0], "round " + rounds + ": a completed slot never reached the CQ (drained " +
                    wq.isDrained() + ", posted " + wq.posted() + ", first " + a + ")");
                rounds++;
            }
        }
        finally
        {
            stop = true;
            round.incrementAndGet();
            behind.join(TimeUnit.SECONDS.toMillis(5));
        }
    }

    /** As a provider completes a send (QueuePairStateMachine.completeSend): in order if it can, else mark and drain. */
    private void complete(final long pos)
    {
        if (!wq.completeInOrder(pos, Opcode.RDMA_WRITE, 8, 0, 0, cq, 1))
        {
            wq.complete(pos, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0);
            wq.drain(cq, 1);
        }
    }

    private long post(final long wrId)
    {
        final long pos = wq.reserve();
        wq.fillSend(pos, request.wrId(wrId), regions, offsets);
        wq.publish(pos);
        return pos;
    }
}
