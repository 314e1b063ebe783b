// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class FrameFlyweightTest
{
    @Test
    void shouldPlaceFrameFieldsAtTheirOffsets()
    {
        assertEquals(0, FrameFlyweight.VERSION_OFFSET);
        assertEquals(1, FrameFlyweight.TYPE_OFFSET);
        assertEquals(2, FrameFlyweight.FLAGS_OFFSET);
        assertEquals(4, FrameFlyweight.PAYLOAD_LENGTH_OFFSET);
        assertEquals(8, FrameFlyweight.SEQUENCE_OFFSET);
        assertEquals(16, FrameFlyweight.ADDRESS_OFFSET);
        assertEquals(24, FrameFlyweight.RKEY_OFFSET);
        assertEquals(28, FrameFlyweight.ARGUMENT_OFFSET);
        assertEquals(32, FrameFlyweight.HEADER_LENGTH);
        assertEquals(0, FrameFlyweight.SEQUENCE_OFFSET % 8, "64-bit fields are naturally aligned");
        assertEquals(0, FrameFlyweight.ADDRESS_OFFSET % 8, "64-bit fields are naturally aligned");
        assertEquals(0, FrameFlyweight.COMPARE_ADD_OFFSET);
        assertEquals(8, FrameFlyweight.SWAP_OFFSET);
        assertEquals(16, FrameFlyweight.ATOMIC_OPERANDS_LENGTH);

        final ByteBuf buffer = Unpooled.buffer(40).writerIndex(40);
        final FrameFlyweight frame = new FrameFlyweight().wrap(buffer, 8);
        frame.encode(FrameType.WRITE_WITH_IMM, FrameFlyweight.FLAG_IMMEDIATE, 0x01020304, 0x1112131415161718L,
            0x2122232425262728L, 0x31323334, 0x41424344);
        assertEquals(FrameFlyweight.CURRENT_VERSION, buffer.getByte(8 + FrameFlyweight.VERSION_OFFSET));
        assertEquals(FrameType.WRITE_WITH_IMM, buffer.getByte(8 + FrameFlyweight.TYPE_OFFSET));
        assertEquals(FrameFlyweight.FLAG_IMMEDIATE, buffer.getShortLE(8 + FrameFlyweight.FLAGS_OFFSET));
        assertEquals(0x04, buffer.getByte(8 + FrameFlyweight.PAYLOAD_LENGTH_OFFSET), "little-endian");
        assertEquals(0x01020304, buffer.getIntLE(8 + FrameFlyweight.PAYLOAD_LENGTH_OFFSET));
        assertEquals(0x1112131415161718L, buffer.getLongLE(8 + FrameFlyweight.SEQUENCE_OFFSET));
        assertEquals(0x2122232425262728L, buffer.getLongLE(8 + FrameFlyweight.ADDRESS_OFFSET));
        assertEquals(0x31323334, buffer.getIntLE(8 + FrameFlyweight.RKEY_OFFSET));
        assertEquals(0x41424344, buffer.getIntLE(8 + FrameFlyweight.ARGUMENT_OFFSET));
        assertEquals(FrameFlyweight.CURRENT_VERSION, frame.version());
        assertEquals(FrameType.WRITE_WITH_IMM, frame.type());
        assertEquals(0x01020304, frame.payloadLength());
        assertEquals(0x1112131415161718L, frame.sequence());
        assertEquals(0x2122232425262728L, frame.address());
        assertEquals(0x31323334, frame.rkey());
        assertEquals(0x41424344, frame.argument());
    }

    @Test
    void shouldReadAndWriteNativeMemoryAsTheHeapBuffer()
    {
        final ByteBuf heap = Unpooled.buffer(48).writerIndex(48);
        final ByteBuf direct = Unpooled.directBuffer(48).writerIndex(48);
        try
        {
            // Neither buffer is zeroed by Netty (4.2 allocates heap arrays uninitialized, unsafe direct memory is
            // malloc'd): the 16 bytes before the frame are compared too
            heap.setZero(0, 48);
            direct.setZero(0, 48);
            assertTrue(direct.hasMemoryAddress(), "the plain-load path is what this test covers");
            final FrameFlyweight onHeap = new FrameFlyweight().wrap(heap, 16);
            final FrameFlyweight offHeap = new FrameFlyweight().wrap(direct, 16);
            onHeap.encode(FrameType.ATOMIC_RESPONSE, 0xFFFE, -2, -3L, 0x8000000000000001L, -5, 0x80000000);
            offHeap.encode(FrameType.ATOMIC_RESPONSE, 0xFFFE, -2, -3L, 0x8000000000000001L, -5, 0x80000000);
            assertEquals(ByteBufUtil.hexDump(heap), ByteBufUtil.hexDump(direct), "the same bytes, little-endian");
            assertEquals(0xFFFE, offHeap.flags(), "unsigned");
            assertEquals(FrameType.ATOMIC_RESPONSE, offHeap.type());
            assertEquals(FrameFlyweight.CURRENT_VERSION, offHeap.version());
            assertEquals(-2, offHeap.payloadLength());
            assertEquals(-3L, offHeap.sequence());
            assertEquals(0x8000000000000001L, offHeap.address());
            assertEquals(-5, offHeap.rkey());
            assertEquals(0x80000000, offHeap.argument());

            direct.setByte(16 + FrameFlyweight.TYPE_OFFSET, 0xF0);
            assertEquals(0xF0, offHeap.type(), "a change in the buffer is seen at the next read (no caching)");
        }
        finally
        {
            direct.release();
        }
    }

    @Test
    void shouldUseTheLastBytesOfTheBufferForAHeaderThatEndsThere()
    {
        final ByteBuf direct = Unpooled.directBuffer(40).writerIndex(40);
        try
        {
            final FrameFlyweight frame = new FrameFlyweight().wrap(direct, 40 - FrameFlyweight.HEADER_LENGTH);
            frame.encode(FrameType.ACK, 0, 0, 9, 0, 0, 0x01020304);
            assertEquals(0x01020304, direct.getIntLE(36));
            assertEquals(0x01020304, frame.argument());
            assertEquals(9L, frame.sequence());
        }
        finally
        {
            direct.release();
        }
    }

    @Test
    void shouldPlaceHandshakeFieldsAtTheirOffsets()
    {
        assertEquals(FrameFlyweight.VERSION_OFFSET, HandshakeFlyweight.VERSION_OFFSET);
        assertEquals(FrameFlyweight.TYPE_OFFSET, HandshakeFlyweight.TYPE_OFFSET);
        assertEquals(FrameFlyweight.PAYLOAD_LENGTH_OFFSET, HandshakeFlyweight.PAYLOAD_LENGTH_OFFSET);
        assertEquals(8, HandshakeFlyweight.MAGIC_OFFSET);
        assertEquals(12, HandshakeFlyweight.QP_NUMBER_OFFSET);
        assertEquals(16, HandshakeFlyweight.INITIAL_SEQUENCE_OFFSET);
        assertEquals(24, HandshakeFlyweight.HEARTBEAT_INTERVAL_OFFSET);
        assertEquals(28, HandshakeFlyweight.RESERVED_OFFSET);
        assertEquals(FrameFlyweight.HEADER_LENGTH, HandshakeFlyweight.HEADER_LENGTH);

        final ByteBuf buffer = Unpooled.buffer(32).writerIndex(32);
        final HandshakeFlyweight handshake = new HandshakeFlyweight().wrap(buffer, 0);
        handshake.encode(FrameType.CONNECT_ACCEPT, 7, 42, 0x0102030405060708L, 125_000);
        assertEquals(FrameFlyweight.CURRENT_VERSION, buffer.getByte(0));
        assertEquals(FrameType.CONNECT_ACCEPT, buffer.getByte(1));
        assertEquals(7, buffer.getIntLE(4));
        assertEquals(HandshakeFlyweight.MAGIC, buffer.getIntLE(8));
        assertEquals('T', buffer.getByte(8), "magic reads V4JT backwards in little-endian");
        assertEquals(42, buffer.getIntLE(12));
        assertEquals(0x0102030405060708L, buffer.getLongLE(16));
        assertEquals(125_000, buffer.getIntLE(24));
        assertEquals(0, buffer.getIntLE(28));
        assertEquals(42, handshake.qpNumber());
        assertEquals(0x0102030405060708L, handshake.initialSequence());
        assertEquals(125_000, handshake.heartbeatIntervalUs());
    }

    @Test
    void shouldNameEveryType()
    {
        for (int type = FrameType.SEND; type <= FrameType.MAX_TYPE; type++)
        {
            assertEquals(false, FrameType.name(type).startsWith("UNKNOWN"));
        }
        assertEquals(false, FrameType.isValid(0));
        assertEquals(false, FrameType.isValid(FrameType.MAX_TYPE + 1));
    }
}
