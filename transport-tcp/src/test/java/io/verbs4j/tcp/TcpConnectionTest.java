// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.verbs4j.Access;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.Verbs;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TcpConnection} (the streaming frame decoder with its requester and responder) driven in isolation by an
 * {@link EmbeddedChannel}: the test plays the peer byte by byte, with fragmented, coalesced, garbage, wrong-version
 * and impossible-length input, and reads what the connection writes back.
 */
@Timeout(30)
class TcpConnectionTest
{
    private static final byte[] ACCEPT_DATA = {4, 5, 6};

    private Device device;
    private TcpQueuePair qp;
    private MemoryRegion region;
    private CompletableFuture<byte[]> connected;
    private EmbeddedChannel channel;

    @BeforeEach
    void setUp()
    {
        device = Verbs.open("tcp");
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final CompletionQueue cq = device.createCompletionQueue(64);
        qp = (TcpQueuePair)pd.createQueuePair(new QueuePairConfig(cq).sendDepth(16).recvDepth(16));
        qp.modify(QpState.INIT);
        region = pd.allocate(4096, Access.ALL);
        connected = new CompletableFuture<>();
        channel = new EmbeddedChannel(new TcpConnection((TcpDevice)device, qp, new byte[]{1, 2, 3}, connected));
    }

    @AfterEach
    void tearDown()
    {
        channel.finishAndReleaseAll();
        region.close();
        device.close();
    }

    @Test
    void shouldSendTheConnectRequestWithItsPrivateDataWhenActive()
    {
        final ByteBuf request = channel.readOutbound();
        try
        {
            final HandshakeFlyweight handshake = new HandshakeFlyweight().wrap(request, 0);
            assertEquals(FrameFlyweight.CURRENT_VERSION, request.getByte(HandshakeFlyweight.VERSION_OFFSET));
            assertEquals(FrameType.CONNECT_REQUEST, request.getByte(HandshakeFlyweight.TYPE_OFFSET));
            assertEquals(HandshakeFlyweight.MAGIC, handshake.magic());
            assertEquals(HandshakeFlyweight.HEADER_LENGTH + 3, request.readableBytes());
            assertEquals(1, request.getByte(HandshakeFlyweight.HEADER_LENGTH));
        }
        finally
        {
            request.release();
        }
    }

    @Test
    void shouldEstablishFromAnAcceptArrivingOneByteAtATime()
    {
        feedInPieces(accept(), 1);
        assertTrue(connected.isDone());
        assertArrayEquals(ACCEPT_DATA, connected.join());
        assertEquals(QpState.RTS, qp.state());
    }

    @Test
    void shouldPlaceAFragmentedWriteAndAcknowledgeItWhenAsked()
    {
        establish();
        final byte[] payload = new byte[300];
        new Random(1).nextBytes(payload);
        feedInPieces(write(0, FrameFlyweight.FLAG_ACK_REQUEST, 100, payload), 7);
        final byte[] placed = new byte[payload.length];
        region.getBytes(100, placed, 0, placed.length);
        assertArrayEquals(payload, placed);
        final ByteBuf ack = nextOutboundFrame();
        assertNotNull(ack, "an ACK for the request that asked for one");
        final FrameFlyweight frame = new FrameFlyweight().wrap(ack, 0);
        assertEquals(FrameType.ACK, frame.type());
        assertEquals(0, frame.sequence());
        ack.release();
    }

    @Test
    void shouldDeferTheAckOfWritesThatDoNotAskForOne()
    {
        establish();
        final ByteBuf frames = Unpooled.buffer();
        frames.writeBytes(write(0, 0, 0, new byte[]{1, 2, 3, 4}));
        frames.writeBytes(write(1, 0, 8, new byte[]{5, 6, 7, 8}));
        frames.writeBytes(frame(FrameType.HEARTBEAT, 0, 0, 0, 0));
        channel.writeInbound(frames);
        assertEquals(0x04030201, region.getInt(0));
        assertEquals(0x08070605, region.getInt(8));
        assertNull(nextOutboundFrame(), "no ACK written for unrequested acknowledgements");
        feedInPieces(write(2, FrameFlyweight.FLAG_ACK_REQUEST, 16, new byte[]{9}), 64);
        final ByteBuf ack = nextOutboundFrame();
        assertEquals(2, new FrameFlyweight().wrap(ack, 0).sequence(), "one cumulative ACK for all three");
        ack.release();
    }

    @Test
    void shouldNakAWriteWithABadRkeyAndLeaveTheMemoryAlone()
    {
        establish();
        feedInPieces(write(0, FrameFlyweight.FLAG_ACK_REQUEST, 0, new byte[]{1, 2, 3, 4}, region.rkey() + 1), 5);
        assertEquals(0, region.getInt(0));
        final ByteBuf nak = nextOutboundFrame();
        final FrameFlyweight frame = new FrameFlyweight().wrap(nak, 0);
        assertEquals(FrameType.NAK, frame.type());
        assertEquals(io.verbs4j.WcStatus.REM_ACCESS_ERR, frame.argument());
        nak.release();
    }

    @Test
    void shouldCloseOnAWrongVersion()
    {
        establish();
        final byte[] bad = frame(FrameType.HEARTBEAT, 0, 0, 0, 0);
        bad[FrameFlyweight.VERSION_OFFSET] = 1;
        feedInPieces(bad, 3);
        assertProtocolError();
    }

    @Test
    void shouldCloseOnAnImpossiblePayloadLength()
    {
        establish();
        feedInPieces(frame(FrameType.READ_REQUEST, 0, 5, 0, 16), 32);
        assertProtocolError();
    }

    @Test
    void shouldCloseOnANegativePayloadLength()
    {
        establish();
        feedInPieces(frame(FrameType.WRITE, 0, -1, 0, 0), 32);
        assertProtocolError();
    }

    @Test
    void shouldCloseOnAnOutOfOrderSequence()
    {
        establish();
        feedInPieces(write(5, 0, 0, new byte[]{1}), 32);
        assertProtocolError();
    }

    @Test
    void shouldCloseOnAnUnsolicitedResponse()
    {
        establish();
        feedInPieces(frame(FrameType.ACK, 0, 0, 99, 0), 32);
        assertProtocolError();
    }

    @Test
    void shouldCloseOnGarbageBeforeTheHandshake()
    {
        final byte[] garbage = new byte[64];
        new Random(7).nextBytes(garbage);
        garbage[0] = 77;
        feedInPieces(garbage, 13);
        assertFalse(channel.isOpen());
        assertEquals(1, ((TcpDevice)device).counter(TcpCounter.PROTOCOL_ERRORS));
        assertTrue(connected.isCompletedExceptionally());
    }

    @Test
    void shouldCloseOnADataFrameBeforeTheHandshake()
    {
        feedInPieces(write(0, 0, 0, new byte[]{1}), 32);
        assertFalse(channel.isOpen());
        assertEquals(1, ((TcpDevice)device).counter(TcpCounter.PROTOCOL_ERRORS));
    }

    // ---------------------------------------------------------------- helpers

    private void establish()
    {
        channel.writeInbound(Unpooled.wrappedBuffer(accept()));
        assertEquals(QpState.RTS, qp.state());
        channel.releaseOutbound();
    }

    private void assertProtocolError()
    {
        assertFalse(channel.isOpen(), "connection closed");
        assertEquals(1, ((TcpDevice)device).counter(TcpCounter.PROTOCOL_ERRORS));
        assertEquals(QpState.ERROR, qp.state());
    }

    private void feedInPieces(final byte[] bytes, final int piece)
    {
        for (int i = 0; i < bytes.length && channel.isOpen(); i += piece)
        {
            channel.writeInbound(Unpooled.wrappedBuffer(bytes, i, Math.min(piece, bytes.length - i)));
        }
    }

    private ByteBuf nextOutboundFrame()
    {
        channel.flushOutbound();
        return channel.readOutbound();
    }

    private static byte[] accept()
    {
        final ByteBuf buffer = Unpooled.buffer(HandshakeFlyweight.HEADER_LENGTH + ACCEPT_DATA.length);
        new HandshakeFlyweight().wrap(buffer, 0).encode(FrameType.CONNECT_ACCEPT, ACCEPT_DATA.length, 9, 0, 1000);
        buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH).writeBytes(ACCEPT_DATA);
        return bytes(buffer);
    }

    private byte[] write(final long sequence, final int flags, final long offset, final byte[] payload)
    {
        return write(sequence, flags, offset, payload, region.rkey());
    }

    private byte[] write(final long sequence, final int flags, final long offset, final byte[] payload, final int rkey)
    {
        final ByteBuf buffer = Unpooled.buffer(FrameFlyweight.HEADER_LENGTH + payload.length);
        new FrameFlyweight().wrap(buffer, 0).encode(FrameType.WRITE, flags, payload.length, sequence,
            region.address() + offset, rkey, 0);
        buffer.writerIndex(FrameFlyweight.HEADER_LENGTH).writeBytes(payload);
        return bytes(buffer);
    }

    private static byte[] frame(final byte type, final int flags, final int length, final long sequence,
        final int argument)
    {
        final ByteBuf buffer = Unpooled.buffer(FrameFlyweight.HEADER_LENGTH);
        new FrameFlyweight().wrap(buffer, 0).encode(type, flags, length, sequence, 0, 0, argument);
        buffer.writerIndex(FrameFlyweight.HEADER_LENGTH);
        return bytes(buffer);
    }

    private static byte[] bytes(final ByteBuf buffer)
    {
        final byte[] bytes = new byte[buffer.readableBytes()];
        buffer.readBytes(bytes);
        buffer.release();
        return bytes;
    }
}
