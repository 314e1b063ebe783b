// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * Layout of a {@link WorkQueue} slot's two 64-byte records, eight longs each, in two {@code long[]}: the request,
 * written by the posting thread and read by the provider, and its completion, written by whichever thread completes
 * it and read by the drain. Separate records, so that a completing thread does not write the line the poster fills
 * next to it.
 * <pre>
 *   request                                          completion
 *   word 0  wrId                                     word 0  status (high) | opcode (low)
 *   word 1  opcode (high) | flags (low)              word 1  byteLength (high) | immediate (low)
 *   word 2  total length                             word 2  completion flags
 *   word 3  remote address                           word 3-7 unused
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

    static final int STATUS_OPCODE = 0;
    static final int BYTE_LENGTH_IMMEDIATE = 1;
    static final int COMPLETION_FLAGS = 2;

    private WorkRecord()
    {
    }
}
