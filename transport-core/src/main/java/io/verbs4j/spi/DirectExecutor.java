// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import io.verbs4j.SendRequest;

/**
 * A provider's way to carry a send work request out on the posting thread, at once, without a work-queue record:
 * the path of one-sided operations on memory the provider can reach directly (shm: a mapped peer region).
 * <p>
 * Contract: {@link #execute} is called by {@link DirectSend} on the posting thread, for a request that passed every
 * post-time check (shape, lkeys, local access), with the queue pair seen in RTS at the post (it may go to ERROR
 * concurrently: the executor re-checks under its own exclusion), its send queue idle (every earlier request
 * completed and handed to the completion queue) and its drain held, so no completion of the send queue is produced
 * meanwhile. It either carries the request out completely and successfully, or touches nothing (no local or
 * remote byte, no provider state) and returns {@link #NOT_DIRECT}; the request then takes the ordinary path, which
 * also reports every error. It never blocks.
 */
public interface DirectExecutor
{
    /** {@link #execute}: not carried out, nothing touched; post the request the ordinary way. */
    long NOT_DIRECT = -1;

    /**
     * @param pos     the send-queue position the request takes if carried out (the provider's own send cursor may
     *                step past it).
     * @param request the validated request.
     * @param regions the region of each SGE (index-aligned), resolved and checked at post.
     * @param offsets the offset of each SGE in its region.
     * @return the bytes transferred (the completion's byte length), or {@link #NOT_DIRECT}.
     */
    long execute(long pos, SendRequest request, AbstractMemoryRegion[] regions, long[] offsets);

    /**
     * Whether {@link #execute} could ever carry out a request of this opcode. Asked before anything is taken, so a
     * request the executor never takes (shm: a SEND) pays no exclusion for a refusal. A {@code true} promises
     * nothing: {@link #execute} may still refuse.
     *
     * @param opcode the request's opcode.
     * @return false only if {@link #execute} would return {@link #NOT_DIRECT} for every request of this opcode.
     */
    default boolean mayExecute(int opcode)
    {
        return true;
    }
}
