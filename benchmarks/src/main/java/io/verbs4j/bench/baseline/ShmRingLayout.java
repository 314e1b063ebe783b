// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import org.agrona.BitUtil;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Geometry of the {@code shm-memcpy} file: an Agrona {@link org.agrona.concurrent.ringbuffer.OneToOneRingBuffer}
 * (its record and trailer layout are Agrona's, see {@link RingBufferDescriptor} and {@link RecordDescriptor}) filling
 * the whole file. Both sides derive the capacity from the message size, so the endpoint is only the file's path.
 */
final class ShmRingLayout
{
    /** The ring aims at this many data bytes, so several messages are in flight at small sizes. */
    static final int TARGET_CAPACITY = 16 << 20;
    /** Largest capacity Agrona accepts: a power of two that fits an int. */
    static final int MAX_CAPACITY = 1 << 30;
    /** Agrona limits a record to an eighth of the capacity; this is the largest message of the largest ring. */
    static final int MAX_MESSAGE_BYTES = MAX_CAPACITY / 8 - RecordDescriptor.HEADER_LENGTH;

    private ShmRingLayout()
    {
    }

    /**
     * Ring capacity for a message size.
     *
     * @param messageBytes message size, 1..{@link #MAX_MESSAGE_BYTES}.
     * @return {@link #TARGET_CAPACITY}, or the power of two that holds eight records of this size if larger.
     */
    static int capacity(final int messageBytes)
    {
        final int recordLength = BitUtil.align(messageBytes + RecordDescriptor.HEADER_LENGTH,
            RecordDescriptor.ALIGNMENT);
        return Math.max(TARGET_CAPACITY, BitUtil.findNextPositivePowerOfTwo(recordLength * 8));
    }

    /**
     * File length for a message size.
     *
     * @param messageBytes message size.
     * @return the ring's capacity plus Agrona's trailer (head, tail and correlation counters).
     */
    static long fileLength(final int messageBytes)
    {
        return (long)capacity(messageBytes) + RingBufferDescriptor.TRAILER_LENGTH;
    }
}
