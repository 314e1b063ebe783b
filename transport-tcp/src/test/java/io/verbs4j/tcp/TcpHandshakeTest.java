// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.Verbs;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TcpHandshake} alone, on a connector without a cluster secret: a recording {@link TcpHandshake.Session} in
 * place of the connection, frames handed in as the decoder would, and what it writes read from an
 * {@link EmbeddedChannel}.
 */
@Timeout(30)
class TcpHandshakeTest
{
    private static final byte[] REQUEST_DATA = {1, 2, 3};

    private final FakeSession session = new FakeSession();
    private Device device;
    private TcpQueuePair qp;
    private CompletableFuture<byte[]> connected;
    private EmbeddedChannel channel;
    private TcpHandshake handshake;

    @BeforeEach
    void setUp()
    {
        device = Verbs.open("tcp");
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final CompletionQueue cq = device.createCompletionQueue(16);
        qp = (TcpQueuePair)pd.createQueuePair(new QueuePairConfig(cq).sendDepth(8).recvDepth(8));
        qp.modify(QpState.INIT);
        connected = new CompletableFuture<>();
        handshake = new TcpHandshake((TcpDevice)device, session, qp, REQUEST_DATA, connected);
        final ChannelHandlerContext[] context = new ChannelHandlerContext[1];
        channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter()
        {
            public void handlerAdded(final ChannelHandlerContext ctx)
            {
                context[0] = ctx;
            }
        });
        handshake.attach(context[0]);
        handshake.onActive();
    }

    @AfterEach
    void tearDown()
    {
        channel.finishAndReleaseAll();
        device.close();
    }

    @Test
    void shouldOpenWithTheConnectRequestAndEstablishOnAccept() throws Exception
    {
        final ByteBuf request = channel.readOutbound();
        final HandshakeFlyweight sent = new HandshakeFlyweight().wrap(request, 0);
        assertEquals(FrameType.CONNECT_REQUEST, sent.type());
        assertEquals(qp.qpNumber(), sent.qpNumber());
        assertEquals(REQUEST_DATA.length, sent.payloadLength());
        request.release();

        assertTrue(handshake.onHeader(FrameType.CONNECT_ACCEPT, header(FrameType.CONNECT_ACCEPT, 2, 77, 0)));
        handshake.onFrameEnd(FrameType.CONNECT_ACCEPT, new byte[]{4, 5});

        assertArrayEquals(new byte[]{4, 5}, connected.get());
        assertEquals(List.of("establish 77", "enableDirectWrites", "pump"), session.calls);
        assertFalse(session.closed);
    }

    @Test
    void shouldRefuseAChallengeWhenThisSideHasNoSecret()
    {
        releaseOutbound();
        assertFalse(handshake.onHeader(FrameType.AUTH_CHALLENGE,
            header(FrameType.AUTH_CHALLENGE, HandshakeFlyweight.AUTH_CHALLENGE_LENGTH, 0, 0)));

        assertTrue(session.closed);
        final ByteBuf refusal = channel.readOutbound();
        final HandshakeFlyweight reject = new HandshakeFlyweight().wrap(refusal, 0);
        assertEquals(FrameType.CONNECT_REJECT, reject.type());
        assertEquals(HandshakeFlyweight.FLAG_AUTH_REFUSAL, reject.flags());
        refusal.release();
        assertTrue(failure().contains("authentication failed"), failure());
        assertEquals(1, ((TcpDevice)device).counters().get(TcpCounter.AUTH_FAILURES));
        assertTrue(session.calls.contains("closeChannel"), session.calls.toString());
    }

    @Test
    void shouldCallAFrameOutOfTurnAProtocolError()
    {
        releaseOutbound();
        assertFalse(handshake.onHeader(FrameType.CONNECT_REQUEST, header(FrameType.CONNECT_REQUEST, 0, 0, 0)));
        assertEquals(List.of("protocolError unexpected CONNECT_REQUEST during the handshake"), session.calls);

        assertFalse(handshake.onHeader(FrameType.SEND, header(FrameType.SEND, 0, 0, 0)));
        assertEquals("protocolError expected a handshake, got a SEND frame", session.calls.get(1));
    }

    @Test
    void shouldFailTheConnectWhenRejected()
    {
        releaseOutbound();
        assertTrue(handshake.onHeader(FrameType.CONNECT_REJECT, header(FrameType.CONNECT_REJECT, 4, 0, 0)));
        handshake.onFrameEnd(FrameType.CONNECT_REJECT, "full".getBytes(StandardCharsets.UTF_8));

        assertTrue(failure().contains("rejected by peer: full"), failure());
        assertFalse(failure().contains("authentication"), failure());
        assertTrue(session.closed);
        assertEquals(List.of("closeChannel"), session.calls);
        handshake.onInactive();
        assertTrue(failure().contains("rejected by"), "a settled connect keeps its cause");
    }

    @Test
    void shouldFailAPendingConnectWhenTheChannelCloses()
    {
        releaseOutbound();
        handshake.onInactive();
        assertTrue(failure().contains("closed during the handshake"), failure());
    }

    private String failure()
    {
        try
        {
            connected.get();
            return "not failed";
        }
        catch (final ExecutionException ex)
        {
            return ex.getCause().getMessage();
        }
        catch (final InterruptedException ex)
        {
            throw new AssertionError(ex);
        }
    }

    private void releaseOutbound()
    {
        for (Object frame = channel.readOutbound(); null != frame; frame = channel.readOutbound())
        {
            ((ByteBuf)frame).release();
        }
    }

    private static ByteBuf header(final byte type, final int payloadLength, final long initialSequence, final int flags)
    {
        final ByteBuf buffer = Unpooled.buffer(HandshakeFlyweight.HEADER_LENGTH);
        buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH);
        new HandshakeFlyweight().wrap(buffer, 0).encode(type, payloadLength, 9, initialSequence, 50).flags(flags);
        return buffer;
    }

    /** Records what the handshake asks of its connection. */
    private static final class FakeSession implements TcpHandshake.Session
    {
        final List<String> calls = new ArrayList<>();
        boolean closed;

        public String peer()
        {
            return "peer";
        }

        public boolean isEstablished()
        {
            return false;
        }

        public boolean isClosed()
        {
            return closed;
        }

        public boolean markClosed()
        {
            final boolean wasOpen = !closed;
            closed = true;
            return wasOpen;
        }

        public void protocolError(final String reason)
        {
            calls.add("protocolError " + reason);
            closed = true;
        }

        public void closeChannel()
        {
            calls.add("closeChannel");
        }

        public void closeLocked()
        {
            calls.add("closeLocked");
        }

        public boolean lockIo()
        {
            return true;
        }

        public void unlockIo(final boolean locked)
        {
        }

        public void establish(final TcpQueuePair queuePair, final long peerInitialSequence)
        {
            calls.add("establish " + peerInitialSequence);
        }

        public void enableDirectWrites()
        {
            calls.add("enableDirectWrites");
        }

        public void pump()
        {
            calls.add("pump");
        }
    }
}
