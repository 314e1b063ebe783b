// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

/**
 * Layout of the {@code shm-memcpy} file: a single-producer single-consumer ring of fixed-size slots.
 * <pre>
 *   0                 128               256          4096 (data, page aligned)
 *   +-----------------+-----------------+---- ... ---+-----------+-----------+-- ... --+
 *   | PRODUCED (long) | CONSUMED (long) | padding    | slot 0    | slot 1    |         |
 *   | initiator       | responder       |            | slotLength bytes each ...       |
 *   +-----------------+-----------------+---- ... ---+-----------+-----------+-- ... --+
 * </pre>
 * PRODUCED and CONSUMED count messages since the start of the session; message {@code m} lives in slot
 * {@code m % slotCount}. The producer copies a message in, then releases PRODUCED; the consumer copies it out to
 * its private buffer, then releases CONSUMED. Both sides derive the geometry from the message size.
 */
final class ShmRingLayout
{
    /** Offset of the producer's counter. */
    static final int PRODUCED_OFFSET = 0;
    /** Offset of the consumer's counter, two cache lines after PRODUCED. */
    static final int CONSUMED_OFFSET = 128;
    /** Offset of slot 0. */
    static final int DATA_OFFSET = 4096;
    /** Slot alignment: a cache line. */
    static final int SLOT_ALIGNMENT = 64;
    /** The ring aims at this many data bytes (fewer slots for bigger messages). */
    static final long TARGET_DATA_BYTES = 16L << 20;
    /** Fewest slots, so producer and consumer can overlap. */
    static final int MIN_SLOTS = 2;
    /** Most slots. */
    static final int MAX_SLOTS = 1024;
    /** Largest message: two slots plus the header must fit in one mapping. */
    static final int MAX_MESSAGE_BYTES = 256 << 20;

    private ShmRingLayout()
    {
    }

    /**
     * Slot length for a message size.
     *
     * @param messageBytes message size.
     * @return the size rounded up to {@link #SLOT_ALIGNMENT}.
     */
    static long slotLength(final int messageBytes)
    {
        return (messageBytes + (long)SLOT_ALIGNMENT - 1) & -SLOT_ALIGNMENT;
    }

    /**
     * Slot count for a message size.
     *
     * @param messageBytes message size.
     * @return {@link #TARGET_DATA_BYTES} / slot length, clamped to [{@link #MIN_SLOTS}, {@link #MAX_SLOTS}].
     */
    static int slotCount(final int messageBytes)
    {
        final long slots = TARGET_DATA_BYTES / slotLength(messageBytes);
        return (int)Math.max(MIN_SLOTS, Math.min(MAX_SLOTS, slots));
    }

    /**
     * File length for a message size.
     *
     * @param messageBytes message size.
     * @return header plus all slots.
     */
    static long fileLength(final int messageBytes)
    {
        return DATA_OFFSET + slotLength(messageBytes) * slotCount(messageBytes);
    }
}
