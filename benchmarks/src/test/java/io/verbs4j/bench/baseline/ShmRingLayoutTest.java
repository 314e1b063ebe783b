// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShmRingLayoutTest
{
    @Test
    void shouldGiveAgronaARingThatTakesTheMessage()
    {
        for (final int messageBytes : new int[] { 1, 8, 65536, 2 << 20 })
        {
            final long length = ShmRingLayout.fileLength(messageBytes);
            final OneToOneRingBuffer ring = new OneToOneRingBuffer(
                new UnsafeBuffer(ByteBuffer.allocateDirect((int)length)));

            assertEquals(ShmRingLayout.capacity(messageBytes), ring.capacity(), messageBytes + " B");
            assertTrue(ring.maxMsgLength() >= messageBytes, messageBytes + " B fits one record");
        }
    }

    @Test
    void shouldKeepTheLargestMessageWithinTheLargestRing()
    {
        final int capacity = ShmRingLayout.capacity(ShmRingLayout.MAX_MESSAGE_BYTES);

        assertEquals(ShmRingLayout.MAX_CAPACITY, capacity);
        assertTrue(BitUtil.isPowerOfTwo(capacity));
        assertEquals(capacity / 8, ShmRingLayout.MAX_MESSAGE_BYTES + 8, "Agrona's limit is capacity / 8 per record");
        assertEquals((long)capacity + RingBufferDescriptor.TRAILER_LENGTH,
            ShmRingLayout.fileLength(ShmRingLayout.MAX_MESSAGE_BYTES));
    }
}
