// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.ArrayList;
import java.util.List;

import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The direct post path's invariants: it runs only on an idle send queue, takes a slot like any post, completes a
 * signaled request at once and an unsignaled one silently, and leaves the queue untouched when the executor
 * refuses.
 */
class DirectSendTest
{
    private static final int QPN = 7;
    private final BaseCompletionQueue cq = new BaseCompletionQueue(this, 64, Progress.NONE, new BackoffIdleStrategy(),
        singleThread());
    private final WorkQueue wq = new WorkQueue(true, 4, 1, 0, singleThread());
    private final List<Long> executedAt = new ArrayList<>();
    private long answer = 8;
    private final DirectSend direct = new DirectSend(wq, cq, QPN, (pos, request, regions, offsets) ->
    {
        executedAt.add(pos);
        return answer;
    });

    private static SendRequest write(final long wrId, final int flags)
    {
        return new SendRequest(1).wrId(wrId).opcode(Opcode.RDMA_WRITE).flags(flags);
    }

    private boolean postDirect(final long wrId, final int flags)
    {
        return direct.tryPost(write(wrId, flags), new AbstractMemoryRegion[1], new long[1]);
    }

    private long postOrdinary(final long wrId, final int flags)
    {
        final long pos = wq.reserve();
        wq.fillSend(pos, write(wrId, flags), new AbstractMemoryRegion[1], new long[1]);
        wq.publish(pos);
        return pos;
    }

    private List<String> pollAll()
    {
        final List<String> seen = new ArrayList<>();
        cq.poll((wrId, status, opcode, len, imm, flags, qp) -> seen.add(wrId + ":" + WcStatus.name(status) + ":" +
            Opcode.name(opcode) + ":" + len + ":" + qp), 64);
        return seen;
    }

    @Test
    void shouldCompleteASignaledDirectRequestAtOnceAndTakeItsSlot()
    {
        assertTrue(postDirect(1, SendRequest.SIGNALED));
        assertEquals(List.of(0L), executedAt, "the executor is given the position the request takes");
        assertEquals(1, wq.posted());
        assertTrue(wq.isDrained());
        assertEquals(3, wq.free(), "the slot is held until its completion is polled");
        assertEquals(List.of("1:SUCCESS:RDMA_WRITE:8:" + QPN), pollAll());
        assertEquals(4, wq.free());
    }

    @Test
    void shouldCompleteUnsignaledDirectRequestsSilentlyAndFreeTheirSlotsWithTheNextPolledCompletion()
    {
        assertTrue(postDirect(1, 0));
        assertTrue(postDirect(2, 0));
        assertTrue(postDirect(3, 0));
        assertEquals(List.of(), pollAll(), "no entry for unsignaled successes");
        assertEquals(1, wq.free(), "unsignaled requests hold their slots, as on an HCA");
        assertTrue(postDirect(4, SendRequest.SIGNALED));
        assertEquals(0, wq.free());
        assertEquals(List.of("4:SUCCESS:RDMA_WRITE:8:" + QPN), pollAll());
        assertEquals(4, wq.free(), "polling the signaled completion frees every earlier slot");
    }

    @Test
    void shouldNeverCompleteASuccessfulDirectInjectEvenIfSignaled()
    {
        assertTrue(postDirect(1, SendRequest.INJECT | SendRequest.SIGNALED));
        assertEquals(List.of(), pollAll(), "an inject has no completion on success");
        assertTrue(postDirect(2, SendRequest.SIGNALED));
        assertEquals(List.of("2:SUCCESS:RDMA_WRITE:8:" + QPN), pollAll());
        assertEquals(4, wq.free());
    }

    @Test
    void shouldNotRunWhileAnEarlierRequestIsOutstanding()
    {
        final long first = postOrdinary(1, SendRequest.SIGNALED);
        assertFalse(postDirect(2, SendRequest.SIGNALED), "it would overtake request 1");
        assertEquals(List.of(), executedAt, "the executor is not even asked");
        assertEquals(1, wq.posted(), "nothing taken");
        assertTrue(wq.complete(first, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        wq.drain(cq, QPN);
        assertTrue(postDirect(2, SendRequest.SIGNALED), "idle again");
        assertEquals(List.of("1:SUCCESS:RDMA_WRITE:8:" + QPN, "2:SUCCESS:RDMA_WRITE:8:" + QPN), pollAll());
    }

    @Test
    void shouldLeaveTheQueueUntouchedWhenTheExecutorRefuses()
    {
        answer = DirectExecutor.NOT_DIRECT;
        assertFalse(postDirect(1, SendRequest.SIGNALED));
        assertEquals(List.of(0L), executedAt);
        assertEquals(0, wq.posted());
        assertEquals(4, wq.free());
        assertEquals(List.of(), pollAll());
        final long pos = postOrdinary(3, SendRequest.SIGNALED);
        assertEquals(0, pos, "the ordinary path takes the position the refused request did not");
    }

    @Test
    void shouldNotRunAfterAnErrorWasDrainedUntilTheQueueIsReset()
    {
        final long first = postOrdinary(1, SendRequest.SIGNALED);
        assertTrue(wq.complete(first, WcStatus.REM_ACCESS_ERR, Opcode.RDMA_WRITE, 0, 0, 0));
        wq.drain(cq, QPN);
        assertEquals(List.of("1:REM_ACCESS_ERR:RDMA_WRITE:0:" + QPN), pollAll());
        assertTrue(wq.isDrained());
        assertFalse(postDirect(2, SendRequest.SIGNALED), "after an error every request is flushed in order");
        assertEquals(List.of(), executedAt);
        wq.clearError();
        assertTrue(postDirect(3, SendRequest.SIGNALED));
        assertEquals(List.of("3:SUCCESS:RDMA_WRITE:8:" + QPN), pollAll());
    }

    @Test
    void shouldNotRunWhileAnotherThreadHoldsTheDrainAndNotLoseItsWork()
    {
        final long first = postOrdinary(1, SendRequest.SIGNALED);
        assertTrue(wq.complete(first, WcStatus.SUCCESS, Opcode.RDMA_WRITE, 8, 0, 0));
        wq.drain(cq, QPN);
        pollAll();
        assertTrue(wq.tryEnterDirect(cq, 1), "idle: the drain is free");
        assertFalse(postDirect(2, SendRequest.SIGNALED), "the drain is held");
        wq.exitDirect(cq, QPN);
        assertTrue(postDirect(3, SendRequest.SIGNALED));
        assertEquals(List.of("3:SUCCESS:RDMA_WRITE:8:" + QPN), pollAll());
    }

    @Test
    void shouldFlushNothingOfARetiredDirectRequest()
    {
        assertTrue(postDirect(1, 0));
        wq.flushPending();
        wq.drain(cq, QPN);
        assertEquals(List.of(), pollAll(), "a request carried out before the error stays a silent success");
        assertFalse(wq.completeOldestPending(WcStatus.RETRY_EXC_ERR), "nothing is pending");
    }

    @Test
    void shouldNeitherTakeTheDrainNorAskTheExecutorForAnOpcodeItNeverTakes()
    {
        final List<Long> asked = new ArrayList<>();
        final DirectSend writesOnly = new DirectSend(wq, cq, QPN, new DirectExecutor()
        {
            public long execute(
                final long pos, final SendRequest request, final AbstractMemoryRegion[] regions, final long[] offsets)
            {
                asked.add(pos);
                return 8;
            }

            public boolean mayExecute(final int opcode)
            {
                return Opcode.RDMA_WRITE == opcode;
            }
        });
        assertTrue(wq.tryEnterDirect(cq, QPN), "free before");
        wq.exitDirect(cq, QPN);
        final SendRequest send = new SendRequest(1).wrId(1).opcode(Opcode.SEND).flags(SendRequest.SIGNALED);
        assertFalse(writesOnly.tryPost(send, new AbstractMemoryRegion[1], new long[1]));
        assertEquals(List.of(), asked, "the executor is not asked");
        assertEquals(0, wq.posted(), "nothing taken");
        assertTrue(wq.tryEnterDirect(cq, QPN), "the drain was left free");
        wq.exitDirect(cq, QPN);
        assertTrue(writesOnly.tryPost(write(2, SendRequest.SIGNALED), new AbstractMemoryRegion[1], new long[1]));
        assertEquals(List.of(0L), asked);
        assertEquals(List.of("2:SUCCESS:RDMA_WRITE:8:" + QPN), pollAll());
    }

    /** @return whether the queues under test run single-threaded (a subclass runs every case that way too). */
    boolean singleThread()
    {
        return false;
    }
}
