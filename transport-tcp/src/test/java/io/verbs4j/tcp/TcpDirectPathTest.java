// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import io.netty.channel.unix.FileDescriptor;
import io.verbs4j.Access;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.Verbs;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The two socket fast paths in isolation, over a pipe: {@link TcpDirectWriter} (a posting thread's gathered write of
 * headers, inline bytes and region payloads) and {@link PayloadSink#readDirect} (payload read straight into
 * destination regions, across segments).
 */
@Timeout(30)
class TcpDirectPathTest
{
    private Device device;
    private TcpMemoryRegion source;
    private TcpMemoryRegion destination;
    private FileDescriptor[] pipe;

    @BeforeEach
    void setUp() throws Exception
    {
        device = Verbs.open("tcp");
        final ProtectionDomain pd = device.allocateProtectionDomain();
        source = (TcpMemoryRegion)pd.allocate(1 << 16, Access.ALL);
        destination = (TcpMemoryRegion)pd.allocate(1 << 16, Access.ALL);
        pipe = FileDescriptor.pipe();
    }

    @AfterEach
    void tearDown() throws Exception
    {
        pipe[0].close();
        pipe[1].close();
        device.close();
    }

    @Test
    void shouldGatherHeadersInlineBytesAndRegionPayloadsInOneWrite()
    {
        for (int i = 0; i < 1024; i++)
        {
            source.putByte(i, (byte)i);
        }
        final TcpDirectWriter writer = new TcpDirectWriter();
        writer.reset();
        writer.header().encode(FrameType.WRITE, 0, 1000, 7, 0x1000, 42, 0);
        writer.addHeader(0);
        assertTrue(writer.addRegion(source, 24, 1000));
        writer.endFrame(7);
        writer.header().encode(FrameType.SEND, 0, 8, 8, 0, 0, 0);
        UnsafeApi.putLong(writer.inlineAddress(), 0x0807060504030201L);
        writer.addHeader(8);
        writer.endFrame(8);
        assertEquals(2, writer.frameCount());
        assertEquals(32 + 1000, writer.frameEnd(0));
        assertEquals(32 + 1000 + 40, writer.total());

        assertEquals(writer.total(), writer.write(pipe[1]));
        writer.reset();

        final ByteBuffer in = ByteBuffer.allocateDirect(2048);
        final int n = read(in, (int)(32 + 1000 + 40));
        assertEquals(1072, n);
        final io.netty.buffer.ByteBuf wrapped = io.netty.buffer.Unpooled.wrappedBuffer(in);
        final FrameFlyweight frame = new FrameFlyweight().wrap(wrapped, 0);
        assertEquals(FrameType.WRITE, frame.type());
        assertEquals(1000, frame.payloadLength());
        assertEquals(7, frame.sequence());
        for (int i = 0; i < 1000; i++)
        {
            assertEquals((byte)(24 + i), in.get(32 + i));
        }
        frame.wrap(wrapped, 1032);
        assertEquals(FrameType.SEND, frame.type());
        assertEquals(8, frame.sequence());
        assertEquals(1, in.get(1064));
        assertEquals(8, in.get(1071));
    }

    @Test
    void shouldPackInlineFramesIntoOneRangeAndKeepTheFrameBeforeAnAbandonedOne()
    {
        final TcpDirectWriter writer = new TcpDirectWriter();
        writer.reset();
        writer.header().encode(FrameType.WRITE, 0, 8, 5, 0x1000, 42, 0);
        UnsafeApi.putLong(writer.inlineAddress(), 0x1122334455667788L);
        writer.addHeader(8);
        writer.endFrame(5);
        // A frame begun and abandoned after a merge into the first frame's range: the first frame is intact.
        writer.header().encode(FrameType.SEND, 0, 4, 6, 0, 0, 0);
        writer.addHeader(4);
        writer.abandonFrame();
        assertEquals(40, writer.total());
        assertEquals(1, writer.iovCount());
        writer.header().encode(FrameType.ACK, 0, 0, 3, 0, 0, 0);
        writer.addHeader(0);
        writer.endFrame(-1);
        assertEquals(1, writer.iovCount(), "a small WRITE and its ACK: one range, one plain write");
        assertEquals(72, writer.total());
        assertEquals(72, writer.write(pipe[1]));
        writer.reset();

        final ByteBuffer in = ByteBuffer.allocateDirect(128);
        assertEquals(72, read(in, 72));
        final io.netty.buffer.ByteBuf wrapped = io.netty.buffer.Unpooled.wrappedBuffer(in);
        final FrameFlyweight frame = new FrameFlyweight().wrap(wrapped, 0);
        assertEquals(FrameType.WRITE, frame.type());
        assertEquals(5, frame.sequence());
        assertEquals(0x1122334455667788L, in.order(java.nio.ByteOrder.nativeOrder()).getLong(32));
        frame.wrap(wrapped, 40);
        assertEquals(FrameType.ACK, frame.type());
        assertEquals(3, frame.sequence());
    }

    @Test
    void shouldDropAnAbandonedFrameAndUnpinOnReset()
    {
        final TcpDirectWriter writer = new TcpDirectWriter();
        writer.reset();
        writer.header().encode(FrameType.WRITE, 0, 10, 1, 0, 0, 0);
        writer.addHeader(0);
        assertTrue(writer.addRegion(source, 0, 10));
        writer.abandonFrame();
        assertEquals(0, writer.total());
        writer.reset();
        final MemoryRegion closing = source;
        closing.close();
        writer.header().encode(FrameType.WRITE, 0, 10, 1, 0, 0, 0);
        writer.addHeader(0);
        assertFalse(writer.addRegion(source, 0, 10), "a closed region cannot be pinned");
    }

    @Test
    void shouldReadPayloadsStraightIntoTheirSegments() throws Exception
    {
        final byte[] payload = new byte[3000];
        for (int i = 0; i < payload.length; i++)
        {
            payload[i] = (byte)(i * 7);
        }
        final ByteBuffer out = ByteBuffer.allocateDirect(payload.length).put(payload).flip();
        assertEquals(payload.length, pipe[1].write(out, 0, payload.length));

        final PayloadSink sink = new PayloadSink(4);
        assertTrue(sink.add(destination, 100, 1000));
        assertTrue(sink.add(destination, 5000, 2000));
        assertEquals(1500, sink.readDirect(pipe[0], 1500), "stops at max");
        assertEquals(1500, sink.readDirect(pipe[0], 4000), "then up to the end of the last segment");
        sink.clear();
        assertTrue(sink.add(destination, 9000, 100));
        assertEquals(0, sink.readDirect(pipe[0], 100), "nothing ready: 0, not blocking");
        sink.clear();

        final byte[] placed = new byte[1000];
        destination.getBytes(100, placed, 0, 1000);
        assertArrayEquals(java.util.Arrays.copyOfRange(payload, 0, 1000), placed);
        final byte[] second = new byte[2000];
        destination.getBytes(5000, second, 0, 2000);
        assertArrayEquals(java.util.Arrays.copyOfRange(payload, 1000, 3000), second);
    }

    private int read(final ByteBuffer in, final int expected)
    {
        try
        {
            int n = 0;
            while (n < expected)
            {
                final int r = pipe[0].read(in, n, in.capacity());
                if (r <= 0)
                {
                    break;
                }
                n += r;
            }
            return n;
        }
        catch (final java.io.IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
