// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.unix.FileDescriptor;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;
import org.junit.jupiter.api.Test;

/**
 * {@link TcpFrameDecoder} alone: a recording {@link TcpFrameDecoder.FrameListener} in place of the connection, fed
 * the same stream of frames cut at every byte boundary, byte by byte and all at once.
 */
class TcpFrameDecoderTest
{
    private final Recorder recorder = new Recorder();
    private final TcpCounters counters = recorder.counters;
    private final TcpFrameDecoder decoder = decoderFor(recorder);

    @Test
    void shouldDecodeTheSameFramesWhereverTheStreamIsCut()
    {
        final byte[] stream = established();
        decoder.established();
        decoder.decode(Unpooled.wrappedBuffer(stream));
        final List<String> whole = new ArrayList<>(recorder.events);
        assertEquals(List.of(
            "header HEARTBEAT flags=0 length=0 seq=0 addr=0 rkey=0 arg=0", "end HEARTBEAT",
            "header SEND flags=1 length=5 seq=7 addr=0 rkey=0 arg=42", "end SEND",
            "header ATOMIC_REQUEST flags=2 length=16 seq=8 addr=4096 rkey=99 arg=0", "end ATOMIC_REQUEST 3 5",
            "header ACK flags=0 length=0 seq=8 addr=0 rkey=0 arg=0", "end ACK",
            "header WRITE flags=8 length=3 seq=9 addr=64 rkey=5 arg=0", "end WRITE"), whole);
        assertEquals(5, counters.get(TcpCounter.FRAMES_RECEIVED));
        decoder.publishReceiveCounters();
        assertEquals(5 + 16 + 3, counters.get(TcpCounter.BYTES_RECEIVED));
        assertEquals(5 + 3, counters.get(TcpCounter.BYTES_DISCARDED));

        for (int cut = 1; cut < stream.length; cut++)
        {
            final Recorder split = new Recorder();
            final TcpFrameDecoder other = decoderFor(split);
            other.established();
            other.decode(Unpooled.wrappedBuffer(stream, 0, cut));
            other.decode(Unpooled.wrappedBuffer(stream, cut, stream.length - cut));
            assertEquals(whole, split.events, "cut at " + cut);
            assertEquals(5, other.framesDecoded());
        }

        final Recorder bytes = new Recorder();
        final TcpFrameDecoder byByte = decoderFor(bytes);
        byByte.established();
        for (int i = 0; i < stream.length; i++)
        {
            byByte.decode(Unpooled.wrappedBuffer(stream, i, 1));
        }
        assertEquals(whole, bytes.events);
    }

    @Test
    void shouldHandTheHandshakeHeaderAndPrivateDataToTheListener()
    {
        final ByteBuf buffer = Unpooled.buffer();
        buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH);
        new HandshakeFlyweight().wrap(buffer, 0).encode(FrameType.CONNECT_REQUEST, 3, 11, 1234, 50);
        buffer.writeBytes(new byte[]{1, 2, 3});
        final byte[] stream = new byte[buffer.readableBytes()];
        buffer.readBytes(stream);
        for (int cut = 1; cut < stream.length; cut++)
        {
            final Recorder split = new Recorder();
            final TcpFrameDecoder other = decoderFor(split);
            other.decode(Unpooled.wrappedBuffer(stream, 0, cut));
            other.decode(Unpooled.wrappedBuffer(stream, cut, stream.length - cut));
            assertEquals(List.of("header CONNECT_REQUEST magic=" + HandshakeFlyweight.MAGIC + " initial=1234",
                "end CONNECT_REQUEST [1, 2, 3]"), split.events, "cut at " + cut);
            other.publishReceiveCounters();
            assertEquals(0, split.counters.get(TcpCounter.BYTES_RECEIVED), "handshake bytes are not counted");
        }
    }

    @Test
    void shouldRefuseABadVersionAnUnknownTypeAnImpossibleLengthAndTls()
    {
        assertRefused(header(FrameFlyweight.CURRENT_VERSION + 1, FrameType.ACK, 0), "unsupported protocol version");
        assertRefused(header(FrameFlyweight.CURRENT_VERSION, 0x7f, 0), "unknown frame type");
        assertRefused(header(FrameFlyweight.CURRENT_VERSION, FrameType.ACK, 4), "ACK with a payload of 4 bytes");
        assertRefused(header(FrameFlyweight.CURRENT_VERSION, FrameType.SEND, -1), "impossible payload length");
        assertRefused(header(FrameFlyweight.CURRENT_VERSION, FrameType.ATOMIC_REQUEST, 8), "ATOMIC_REQUEST with");
        assertRefused(header(FrameFlyweight.CURRENT_VERSION, FrameType.AUTH_HELLO, 1), "AUTH_HELLO with");
        assertRefused(header(0x16, 3, 0), "the peer speaks TLS");
    }

    @Test
    void shouldStopDecodingOnceTheListenerClosed()
    {
        final byte[] stream = established();
        decoder.established();
        recorder.closeAfterHeaders = 1;
        decoder.decode(Unpooled.wrappedBuffer(stream));
        assertEquals(List.of("header HEARTBEAT flags=0 length=0 seq=0 addr=0 rkey=0 arg=0", "end HEARTBEAT"),
            recorder.events);
        assertEquals(1, decoder.framesDecoded());
    }

    private static TcpFrameDecoder decoderFor(final Recorder recorder)
    {
        final TcpFrameDecoder decoder = new TcpFrameDecoder(recorder, recorder.counters, new PayloadSink(2), false, 0);
        recorder.current = decoder;
        return decoder;
    }

    private static void assertRefused(final byte[] header, final String reason)
    {
        final Recorder refusing = new Recorder();
        final TcpFrameDecoder other = decoderFor(refusing);
        other.decode(Unpooled.wrappedBuffer(header));
        assertEquals(1, refusing.events.size(), refusing.events.toString());
        assertTrue(refusing.events.get(0).startsWith("error " + reason), refusing.events.get(0));
    }

    private static byte[] header(final int version, final int type, final int length)
    {
        final ByteBuf buffer = Unpooled.buffer(FrameFlyweight.HEADER_LENGTH);
        buffer.writerIndex(FrameFlyweight.HEADER_LENGTH);
        new FrameFlyweight().wrap(buffer, 0).encode((byte)type, 0, length, 0, 0, 0, 0);
        buffer.setByte(FrameFlyweight.VERSION_OFFSET, version);
        final byte[] bytes = new byte[FrameFlyweight.HEADER_LENGTH];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    /** Five frames of an established connection: payloads discarded, kept (atomic operands) and empty. */
    private static byte[] established()
    {
        final ByteBuf buffer = Unpooled.buffer();
        frame(buffer, FrameType.HEARTBEAT, 0, 0, 0, 0, 0, 0);
        frame(buffer, FrameType.SEND, FrameFlyweight.FLAG_IMMEDIATE, 5, 7, 0, 0, 42);
        buffer.writeBytes(new byte[]{9, 9, 9, 9, 9});
        frame(buffer, FrameType.ATOMIC_REQUEST, FrameFlyweight.FLAG_CMP_SWAP, 16, 8, 4096, 99, 0);
        buffer.writeLongLE(3).writeLongLE(5);
        frame(buffer, FrameType.ACK, 0, 0, 8, 0, 0, 0);
        frame(buffer, FrameType.WRITE, FrameFlyweight.FLAG_ACK_REQUEST, 3, 9, 64, 5, 0);
        buffer.writeBytes(new byte[]{1, 2, 3});
        final byte[] bytes = new byte[buffer.readableBytes()];
        buffer.readBytes(bytes);
        return bytes;
    }

    private static void frame(
        final ByteBuf buffer,
        final byte type,
        final int flags,
        final int length,
        final long sequence,
        final long address,
        final int rkey,
        final int argument)
    {
        final int start = buffer.writerIndex();
        buffer.writerIndex(start + FrameFlyweight.HEADER_LENGTH);
        new FrameFlyweight().wrap(buffer, start).encode(type, flags, length, sequence, address, rkey, argument);
    }

    /** Records what the decoder hands over; keeps atomic operands and handshake data, discards other payloads. */
    private static final class Recorder implements TcpFrameDecoder.FrameListener
    {
        final List<String> events = new ArrayList<>();
        final TcpCounters counters = new TcpCounters();
        int closeAfterHeaders = Integer.MAX_VALUE;
        TcpFrameDecoder current;
        private boolean closed;
        private int headers;

        public boolean onFrameHeader(
            final int type,
            final int flags,
            final int length,
            final long sequence,
            final long address,
            final int rkey,
            final int argument)
        {
            if (FrameType.isHandshake(type))
            {
                final HandshakeFlyweight handshake = new HandshakeFlyweight().wrap(current.header(), 0);
                events.add("header " + FrameType.name(type) + " magic=" + handshake.magic() + " initial=" +
                    handshake.initialSequence());
                current.payloadIntoSmall();
            }
            else
            {
                events.add("header " + FrameType.name(type) + " flags=" + flags + " length=" + length + " seq=" +
                    sequence + " addr=" + address + " rkey=" + rkey + " arg=" + argument);
                if (FrameType.ATOMIC_REQUEST == type)
                {
                    current.payloadIntoSmall();
                }
                else
                {
                    current.discardPayload();
                }
            }
            closed = ++headers >= closeAfterHeaders;
            return true;
        }

        public void onFrameEnd(final int type)
        {
            if (FrameType.ATOMIC_REQUEST == type)
            {
                events.add("end " + FrameType.name(type) + " " + current.smallLong(FrameFlyweight.COMPARE_ADD_OFFSET) +
                    " " + current.smallLong(FrameFlyweight.SWAP_OFFSET));
            }
            else if (FrameType.isHandshake(type))
            {
                events.add("end " + FrameType.name(type) + " " + Arrays.toString(current.smallCopy()));
            }
            else
            {
                events.add("end " + FrameType.name(type));
            }
        }

        public void onProtocolError(final String reason)
        {
            events.add("error " + reason);
            closed = true;
        }

        public boolean isClosed()
        {
            return closed;
        }

        public FileDescriptor directReadFd()
        {
            return null;
        }
    }
}
