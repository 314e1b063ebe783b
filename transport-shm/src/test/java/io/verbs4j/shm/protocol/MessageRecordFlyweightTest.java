// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

import java.nio.ByteBuffer;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The message-record flyweight writes and reads exactly the {@link FrameDescriptor} layout that the buffer-based
 * code (rendezvous, WRITE_WITH_IMM notices, fragments, the fuzz test's records) uses, and copies payloads of every
 * small length and a large one without touching a byte outside them.
 */
class MessageRecordFlyweightTest
{
    private static final int GUARD = 64;
    private static final byte GUARD_BYTE = (byte)0xA5;

    @Test
    void shouldWriteTheDescriptorLayout()
    {
        final ByteBuffer memory = BufferUtil.allocateDirectAligned(256, 64);
        final UnsafeBuffer buffer = new UnsafeBuffer(memory);
        final int index = 40;
        final MessageRecordFlyweight record = new MessageRecordFlyweight().wrap(buffer.addressOffset() + index);
        record.putHeader(SegmentHeader.VERSION, FrameDescriptor.FLAG_WITH_IMM, 0xCAFEBABE, 0x1234_5678_9ABCL, 77, 3);

        assertEquals(SegmentHeader.VERSION, buffer.getShort(index + FrameDescriptor.VERSION_OFFSET));
        assertEquals(FrameDescriptor.FLAG_WITH_IMM, buffer.getShort(index + FrameDescriptor.FLAGS_OFFSET));
        assertEquals(0xCAFEBABE, buffer.getInt(index + FrameDescriptor.IMMEDIATE_OFFSET));
        assertEquals(0x1234_5678_9ABCL, buffer.getLong(index + FrameDescriptor.MSN_OFFSET));
        assertEquals(77, buffer.getInt(index + FrameDescriptor.MESSAGE_LENGTH_OFFSET));
        assertEquals(3, buffer.getInt(index + FrameDescriptor.SOURCE_COUNT_OFFSET));
        assertEquals(buffer.addressOffset() + index + FrameDescriptor.PAYLOAD_OFFSET, record.payloadAddress());

        assertEquals(SegmentHeader.VERSION, record.version());
        assertEquals(FrameDescriptor.FLAG_WITH_IMM, record.flags());
        assertEquals(0xCAFEBABE, record.immediate());
        assertEquals(0x1234_5678_9ABCL, record.msn());
        assertEquals(77, record.messageLength());
        assertEquals(3, record.sourceCount());
    }

    @Test
    void shouldReadWhatTheBufferWrote()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(128, 64));
        buffer.putShort(FrameDescriptor.VERSION_OFFSET, (short)SegmentHeader.VERSION);
        buffer.putShort(FrameDescriptor.FLAGS_OFFSET, (short)0);
        buffer.putInt(FrameDescriptor.IMMEDIATE_OFFSET, -1);
        buffer.putLong(FrameDescriptor.MSN_OFFSET, Long.MAX_VALUE);
        buffer.putInt(FrameDescriptor.MESSAGE_LENGTH_OFFSET, Integer.MAX_VALUE);
        buffer.putInt(FrameDescriptor.SOURCE_COUNT_OFFSET, -7);
        final MessageRecordFlyweight record = new MessageRecordFlyweight().wrap(buffer.addressOffset());

        assertEquals(0, record.flags());
        assertEquals(-1, record.immediate());
        assertEquals(Long.MAX_VALUE, record.msn());
        assertEquals(Integer.MAX_VALUE, record.messageLength());
        assertEquals(-7, record.sourceCount());
    }

    @Test
    void shouldCopyEveryPayloadLengthExactly()
    {
        for (int length = 0; length <= MessageRecordFlyweight.SMALL_COPY_LIMIT + 40; length++)
        {
            final UnsafeBuffer src = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
            final UnsafeBuffer dst = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
                GUARD + FrameDescriptor.PAYLOAD_OFFSET + length + GUARD, 64));
            dst.setMemory(0, dst.capacity(), GUARD_BYTE);
            for (int i = 0; i < length; i++)
            {
                src.putByte(3 + i, (byte)(i * 7 + 1));
            }
            final MessageRecordFlyweight record = new MessageRecordFlyweight().wrap(dst.addressOffset() + GUARD);
            record.putPayload(src.addressOffset() + 3, length);

            final int payloadAt = GUARD + FrameDescriptor.PAYLOAD_OFFSET;
            for (int i = 0; i < length; i++)
            {
                assertEquals((byte)(i * 7 + 1), dst.getByte(payloadAt + i), "length " + length + " byte " + i);
            }
            for (int i = 0; i < payloadAt; i++)
            {
                assertEquals(GUARD_BYTE, dst.getByte(i), "length " + length + ": byte before the payload");
            }
            for (int i = payloadAt + length; i < dst.capacity(); i++)
            {
                assertEquals(GUARD_BYTE, dst.getByte(i), "length " + length + ": byte after the payload");
            }
        }
    }
}
