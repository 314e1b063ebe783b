// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import io.verbs4j.CompletionHandler;
import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class WorkQueueAndCompletionQueueTest
{
    private final BaseCompletionQueue cq = completionQueue(this, 64, Progress.NONE, new BackoffIdleStrategy());

    private long post(final WorkQueue wq, final long wrId, final int flags)
    {
        final long pos = wq.reserve();
        wq.fillSend(pos, new SendRequest(1).wrId(wrId).opcode(Opcode.RDMA_WRITE).flags(flags),
            new AbstractMemoryRegion[1], new long[1]);
        wq.publish(pos);
        return pos;
    }

    private List<Long> pollAll()
    {
        final List<Long> ids = new ArrayList<>();
        cq.poll((wrId, status, opcode, len, imm, flags, qp) -> ids.add(wrId), 64);
        return ids;
    }

    @Test
    void shouldHandCompletionsToTheCqInPostingOrder()
    {
        final WorkQueue wq = queue(true, 8, 1, 0);
        final long a = post(wq, 1, SendRequest.SIGNALED);
        final long b = post(wq, 2, SendRequest.SIGNALED);
        assertTrue(wq.complete(b, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        wq.drain(cq, 1);
        assertEquals(List.of(), pollAll(), "b must wait for a");
        assertTrue(wq.complete(a, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        wq.drain(cq, 1);
        assertEquals(List.of(1L, 2L), pollAll());
    }

    @Test
    void shouldFlushARequestCarriedOutBeforeAnEarlierOneFailed()
    {
        final WorkQueue wq = queue(true, 8, 1, 0);
        post(wq, 1, SendRequest.SIGNALED);
        final long b = post(wq, 2, 0); // unsignaled: a flushed request is reported all the same
        final long c = post(wq, 3, SendRequest.SIGNALED);
        assertTrue(wq.complete(b, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        assertTrue(wq.complete(c, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        assertTrue(wq.completeOldestPending(WcStatus.RETRY_EXC_ERR)); // the peer died while 1 was outstanding
        wq.drain(cq, 1);
        final List<String> seen = new ArrayList<>();
        cq.poll((wrId, status, opcode, len, imm, flags, qp) -> seen.add(wrId + ":" + WcStatus.name(status) + ":" +
            len), 64);
        assertEquals(List.of("1:RETRY_EXC_ERR:0", "2:WR_FLUSH_ERR:0", "3:WR_FLUSH_ERR:0"), seen);
        wq.clearError();
        final long d = post(wq, 4, SendRequest.SIGNALED);
        assertTrue(wq.complete(d, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        wq.drain(cq, 1);
        seen.clear();
        cq.poll((wrId, status, opcode, len, imm, flags, qp) -> seen.add(wrId + ":" + WcStatus.name(status)), 64);
        assertEquals(List.of("4:SUCCESS"), seen, "after a reset, completions are reported as they are");
    }

    @Test
    void shouldPublishARunOfSlotsWithOneProducerIndexStore()
    {
        final WorkQueue wq = queue(true, 8, 1, 0);
        final long first = wq.reserve();
        for (int i = 0; i < 3; i++)
        {
            wq.fillSend(first + i, new SendRequest(1).wrId(10 + i).opcode(Opcode.RDMA_WRITE),
                new AbstractMemoryRegion[1], new long[1]);
        }
        assertEquals(0, wq.posted(), "filled slots are invisible until published");
        assertEquals(-1, wq.take());
        wq.publish(first, first + 2);
        assertEquals(3, wq.posted());
        assertEquals(5, wq.free());
        for (int i = 0; i < 3; i++)
        {
            assertEquals(first + i, wq.take(), "taken in order");
            assertTrue(wq.complete(first + i, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        }
        wq.drain(cq, 1);
        assertEquals(List.of(10L, 11L, 12L), pollAll());
        assertEquals(8, wq.free());
    }

    @Test
    void shouldStoreAnInjectAsAnUnsignaledInlineRequestAndStillReportItsError()
    {
        final WorkQueue wq = queue(true, 8, 1, 0);
        assertEquals(SendRequest.INJECT | SendRequest.INLINE | SendRequest.FENCE,
            WorkQueue.postedFlags(SendRequest.INJECT | SendRequest.SIGNALED | SendRequest.FENCE));
        assertEquals(SendRequest.SIGNALED, WorkQueue.postedFlags(SendRequest.SIGNALED));
        final long ok = post(wq, 1, SendRequest.INJECT | SendRequest.SIGNALED);
        assertTrue(wq.isInline(ok));
        final long failed = post(wq, 2, SendRequest.INJECT);
        assertTrue(wq.complete(ok, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 0, 0, 0));
        assertTrue(wq.complete(failed, WcStatus.REM_ACCESS_ERR, Opcode.RDMA_WRITE, 0, 0, 0));
        wq.drain(cq, 1);
        assertEquals(List.of(2L), pollAll(), "a successful inject has no completion, a failed one has");
    }

    @Test
    void shouldCompleteTheNextSlotInOrderAtOnceAndLeaveEverythingElseToTheGeneralPath()
    {
        final WorkQueue wq = queue(true, 8, 1, 0);
        final long a = post(wq, 1, SendRequest.SIGNALED);
        final long b = post(wq, 2, 0);
        final long c = post(wq, 3, SendRequest.SIGNALED);
        assertFalse(wq.completeInOrder(b, Opcode.RDMA_WRITE, 8, 0, 0, cq, 1), "b is not next in line");
        assertTrue(wq.isPending(b), "a refused in-order completion changes nothing");
        assertTrue(wq.completeInOrder(a, Opcode.RDMA_WRITE, 8, 0, 0, cq, 1));
        assertFalse(wq.isPending(a));
        assertFalse(wq.complete(a, WcStatus.WR_FLUSH_ERR, Opcode.RDMA_WRITE, 0, 0, 0), "completed once");
        assertTrue(wq.complete(c, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        assertTrue(wq.completeInOrder(b, Opcode.RDMA_WRITE, 8, 0, 0, cq, 1));
        assertEquals(List.of(1L, 3L), pollAll(), "b unsignaled, and c, completed out of order, handed over after it");
        assertTrue(wq.isDrained());
        assertEquals(8, wq.free());
    }

    @Test
    void shouldNotCompleteInOrderWhatAFlushCompletedOrAfterAnError()
    {
        final WorkQueue wq = queue(false, 8, 1, 0);
        final long a = post(wq, 1, SendRequest.SIGNALED);
        post(wq, 2, SendRequest.SIGNALED);
        wq.flushPending();
        assertFalse(wq.completeInOrder(a, Opcode.RECV, 8, 0, 0, cq, 1), "the flush got there first");
        wq.drain(cq, 1);
        final List<String> seen = new ArrayList<>();
        cq.poll((wrId, status, opcode, len, imm, flags, qp) -> seen.add(wrId + ":" + WcStatus.name(status)), 64);
        assertEquals(List.of("1:WR_FLUSH_ERR", "2:WR_FLUSH_ERR"), seen);
        final long c = post(wq, 3, SendRequest.SIGNALED);
        assertFalse(wq.completeInOrder(c, Opcode.RECV, 8, 0, 0, cq, 1), "an error was drained: c must be flushed");
        assertTrue(wq.isPending(c));
        assertTrue(wq.complete(c, WcStatus.SUCCESS, Opcode.RECV, 8, 0, 0));
        wq.drain(cq, 1);
        seen.clear();
        cq.poll((wrId, status, opcode, len, imm, flags, qp) -> seen.add(wrId + ":" + WcStatus.name(status)), 64);
        assertEquals(List.of("3:WR_FLUSH_ERR"), seen);
    }

    @Test
    void shouldCompleteASlotOnlyOnce()
    {
        final WorkQueue wq = queue(true, 8, 1, 0);
        final long a = post(wq, 1, SendRequest.SIGNALED);
        assertTrue(wq.complete(a, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        assertFalse(wq.complete(a, WcStatus.WR_FLUSH_ERR, Opcode.RDMA_WRITE, 0, 0, 0));
        wq.flushPending();
        wq.drain(cq, 1);
        final List<Integer> statuses = new ArrayList<>();
        cq.poll((wrId, status, opcode, len, imm, flags, qp) -> statuses.add(status), 8);
        assertEquals(List.of(WcStatus.SUCCESS), statuses);
    }

    @Test
    void shouldSuppressUnsignaledSuccessesButReleaseTheirSlotsWithTheNextSignaled()
    {
        final WorkQueue wq = queue(true, 4, 1, 0);
        for (int i = 0; i < 3; i++)
        {
            wq.complete(post(wq, i, 0), WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0);
        }
        wq.complete(post(wq, 3, SendRequest.SIGNALED), WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0);
        assertEquals(0, wq.free());
        wq.drain(cq, 1);
        assertEquals(0, wq.free(), "slots are released when polled, not when drained");
        assertEquals(List.of(3L), pollAll());
        assertEquals(4, wq.free());
    }

    @Test
    void shouldReportUnsignaledFailures()
    {
        final WorkQueue wq = queue(true, 4, 1, 0);
        final long a = post(wq, 7, 0);
        wq.complete(a, WcStatus.REM_ACCESS_ERR, Opcode.RDMA_WRITE, 0, 0, 0);
        post(wq, 8, 0);
        wq.flushPending();
        wq.drain(cq, 1);
        assertEquals(List.of(7L, 8L), pollAll());
    }

    @Test
    void shouldAcceptCompletionsFromManyThreads() throws InterruptedException
    {
        // Completers on many threads at once are what a single-threaded queue is promised never to see.
        assumeFalse(singleThread(), "many completing threads break the SINGLE_THREAD promise");
        final int depth = 32;
        final BaseCompletionQueue big = completionQueue(this, depth, Progress.NONE, new BackoffIdleStrategy());
        final WorkQueue wq = queue(true, depth, 1, 0);
        final long[] positions = new long[depth];
        for (int i = 0; i < depth; i++)
        {
            positions[i] = post(wq, i, SendRequest.SIGNALED);
        }
        final CountDownLatch done = new CountDownLatch(4);
        for (int t = 0; t < 4; t++)
        {
            final int start = t;
            new Thread(() ->
            {
                for (int i = start; i < depth; i += 4)
                {
                    wq.complete(positions[i], WcStatus.SUCCESS, Opcode.RDMA_WRITE, 1, 0, 0);
                    wq.drain(big, 1);
                }
                done.countDown();
            }).start();
        }
        done.await();
        final List<Long> ids = new ArrayList<>();
        big.poll((wrId, status, opcode, len, imm, flags, qp) -> ids.add(wrId), 64);
        assertEquals(depth, ids.size());
        for (int i = 0; i < depth; i++)
        {
            assertEquals(i, ids.get(i));
        }
    }

    @Test
    void shouldDriveProgressOnEveryEmptyPollAndAtLeastEveryFewPollsThatFindEntries()
    {
        final int[] rounds = new int[1];
        final BaseCompletionQueue counted = completionQueue(this, 64, () -> rounds[0]++,
            new BackoffIdleStrategy());
        final WorkQueue wq = queue(true, 64, 1, 0);
        final CompletionHandler ignore = (wrId, status, opcode, len, imm, flags, qp) -> { };
        assertEquals(0, counted.poll(ignore, 8));
        assertEquals(1, rounds[0], "a poll that finds nothing drives progress");
        final int polls = 4 * (BaseCompletionQueue.MAX_POLLS_WITHOUT_PROGRESS + 1);
        for (int i = 0; i < polls; i++)
        {
            final long pos = post(wq, i, SendRequest.SIGNALED);
            assertTrue(wq.complete(pos, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
            wq.drain(counted, 1);
            assertEquals(1, counted.poll(ignore, 8));
        }
        assertEquals(1 + 4, rounds[0], "polls that find entries drive progress every " +
            (BaseCompletionQueue.MAX_POLLS_WITHOUT_PROGRESS + 1) + "th time");
        assertEquals(0, counted.poll(ignore, 0));
        assertEquals(5, rounds[0], "a poll for no entries drives nothing");
    }

    /** @return whether the queues under test run single-threaded (a subclass runs every case that way too). */
    boolean singleThread()
    {
        return false;
    }

    private WorkQueue queue(final boolean sendQueue, final int depth, final int maxSge, final int maxInline)
    {
        return new WorkQueue(sendQueue, depth, maxSge, maxInline, singleThread());
    }

    private BaseCompletionQueue completionQueue(
        final Object owner, final int capacity, final Progress progress, final IdleStrategy idle)
    {
        return new BaseCompletionQueue(owner, capacity, progress, idle, singleThread());
    }
}
