// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * Layout of a {@link WorkQueue} slot's 64-byte request record ({@link WorkRecords}), eight longs in one
 * {@code long[]}, written by the posting thread and read by the provider. The slot's completion, written by whichever
 * thread completes it and read by the drain, is a separate record laid out as a CQ entry ({@link CompletionRecord}) in
 * an array of its own, so that a completing thread does not write the line the poster fills next to it.
 * <pre>
 *   word 0  wrId
 *   word 1  opcode (high) | flags (low)
 *   word 2  total length
 *   word 3  remote address
 *   word 4  rkey (high) | immediate (low)
 *   word 5  compare-add
 *   word 6  swap
 *   word 7  SGE count
 * </pre>
 * The slot's state word (CAS'd by completers) and its SGEs (regions, offsets, lengths; {@code maxSge} per slot) stay
 * in arrays of their own. Pairs of ints are packed with {@link IntPair}.
 */
final class WorkRecord
{
    /** Longs per record. */
    static final int WORDS = 8;
    /** Bytes per record. */
    static final int LENGTH = WORDS * Long.BYTES;

    static final int WR_ID = 0;
    static final int OPCODE_FLAGS = 1;
    static final int TOTAL_LENGTH = 2;
    static final int REMOTE_ADDRESS = 3;
    static final int RKEY_IMMEDIATE = 4;
    static final int COMPARE_ADD = 5;
    static final int SWAP = 6;
    static final int SGE_COUNT = 7;

    private WorkRecord()
    {
    }
}
