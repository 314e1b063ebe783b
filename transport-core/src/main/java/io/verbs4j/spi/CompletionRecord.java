// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * Layout of one completion entry of a {@link BaseCompletionQueue}: eight longs, 64 bytes, in one {@code long[]}. A
 * {@link WorkQueue} keeps each slot's completion in the same layout until the drain hands it to the CQ.
 * <pre>
 *   word 0  sequence      + 1 once published (release store; the consumer's acquire load)
 *   word 1  wrId
 *   word 2  position      of the work-queue slot the entry completes
 *   word 3  status        (high 32 bits)  | opcode     (low 32 bits)
 *   word 4  byteLength    (high 32 bits)  | immediate  (low 32 bits)
 *   word 5  flags         (high 32 bits)  | qpNumber   (low 32 bits)
 *   word 6-7 unused: an entry is 64 bytes, so a producer writes one entry's words and not its neighbour's
 * </pre>
 * One entry spans at most two cache lines (the JVM does not align the array's elements to a line), where the nine
 * parallel arrays it replaces touched ten lines per entry, written by the producer and read again by the consumer.
 * The work queue of the entry stays in a parallel {@code WorkQueue[]} (a reference, not a number). Pairs of ints are
 * packed with {@link IntPair}.
 */
final class CompletionRecord
{
    /** Longs per entry. */
    static final int WORDS = 8;
    /** Bytes per entry. */
    static final int LENGTH = WORDS * Long.BYTES;
    static final int SEQUENCE = 0;
    static final int WR_ID = 1;
    static final int POSITION = 2;
    static final int STATUS_OPCODE = 3;
    static final int BYTE_LENGTH_IMMEDIATE = 4;
    static final int FLAGS_QP_NUMBER = 5;

    private CompletionRecord()
    {
    }
}
