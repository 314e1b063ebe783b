// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import io.verbs4j.SendRequest;

/**
 * The direct post path of a queue pair: a send work request carried out by the posting thread at once through the
 * provider's {@link DirectExecutor}, when the send queue is idle. The request still takes its send-queue position
 * (so slot accounting and {@link io.verbs4j.QueuePair#sendQueueFree()} are as on the ordinary path) but skips the
 * record, the pending and completing states and the drain loop: a signaled request gets its CQ entry right away,
 * an unsignaled success or an inject none (its slot is freed when a later completion is polled).
 * <p>
 * Cost against the ordinary path: the drain try-lock (one CAS) instead of the publish fence, the completion CAS and
 * the drain try-lock; nothing is written to the slot's request arrays and no payload is staged. A request whose
 * opcode the executor never takes ({@link DirectExecutor#mayExecute}) costs nothing here: the drain is not taken.
 * <p>
 * Ordering: taken only while every earlier request is completed and handed over, under the drain, so it cannot
 * overtake anything; anything the executor refuses (including every error) goes the ordinary way, which keeps the
 * in-order completion and the flush on ERROR. Threading: the posting thread of the queue pair only.
 */
public final class DirectSend
{
    private final WorkQueue queue;
    private final BaseCompletionQueue cq;
    private final int qpNumber;
    private final DirectExecutor executor;

    /**
     * @param queue    the send queue.
     * @param cq       its completion queue.
     * @param qpNumber the queue pair's number.
     * @param executor the provider's executor.
     */
    DirectSend(final WorkQueue queue, final BaseCompletionQueue cq, final int qpNumber, final DirectExecutor executor)
    {
        this.queue = queue;
        this.cq = cq;
        this.qpNumber = qpNumber;
        this.executor = executor;
    }

    /**
     * Tries to carry a validated request out at once.
     *
     * @param request the request, with every SGE resolved.
     * @param regions the region of each SGE.
     * @param offsets the offset of each SGE.
     * @return true if it was carried out (and completed, if signaled); false if nothing happened.
     */
    boolean tryPost(final SendRequest request, final AbstractMemoryRegion[] regions, final long[] offsets)
    {
        if (!executor.mayExecute(request.opcode()) || !queue.tryEnterDirect(cq, qpNumber))
        {
            return false;
        }
        try
        {
            final long bytes = executor.execute(queue.reserve(), request, regions, offsets);
            if (DirectExecutor.NOT_DIRECT == bytes)
            {
                return false;
            }
            queue.retireDirect(cq, qpNumber, request.wrId(), request.opcode(),
                WorkQueue.postedFlags(request.flags()), (int)bytes);
            return true;
        }
        finally
        {
            queue.exitDirect(cq, qpNumber);
        }
    }
}
