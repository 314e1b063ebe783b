// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * Receives work completions from {@link CompletionQueue#poll(CompletionHandler, int)}, one call each, as primitives
 * (the fields of {@code struct ibv_wc}). Called on the polling thread; must not block and must not poll the same
 * queue again from inside.
 */
@FunctionalInterface
public interface CompletionHandler
{
    /** Completion flag: {@code immediateData} is valid. */
    int WITH_IMM = 1;

    /**
     * @param wrId          the work request's correlation id.
     * @param status        a {@link WcStatus}.
     * @param opcode        an {@link Opcode} (RECV / RECV_RDMA_WITH_IMM on receive completions).
     * @param byteLength    bytes transferred (received length for receives; 8 for atomics).
     * @param immediateData immediate data when {@code flags} has {@link #WITH_IMM}.
     * @param flags         completion flags.
     * @param qpNumber      the queue pair the work request was posted on.
     */
    void onCompletion(long wrId, int status, int opcode, int byteLength, int immediateData, int flags, int qpNumber);
}
