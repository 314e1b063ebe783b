// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import io.netty.channel.unix.FileDescriptor;
import io.verbs4j.tcp.protocol.FrameType;
import org.junit.jupiter.api.Test;

/**
 * {@link TcpFrameRouter} on an established connection, against a recording connection: the life-cycle frames and the
 * protocol errors (requests and responses go to the responder and the response handler, covered end to end by the
 * conformance kit).
 */
class TcpFrameRouterTest
{
    private final Recorder connection = new Recorder();
    private final TcpFrameRouter router = new TcpFrameRouter(connection);

    @Test
    void shouldTellTheConnectionAboutAnOrderlyDisconnect()
    {
        assertTrue(router.onFrameHeader(FrameType.DISCONNECT, 0, 0, 0, 0, 0, 0));
        assertEquals(List.of("disconnect header"), connection.events);
        router.onFrameEnd(FrameType.DISCONNECT);
        assertEquals(List.of("disconnect header", "disconnect"), connection.events);
    }

    @Test
    void shouldTakeAHeartbeatAsNothingButASignOfLife()
    {
        assertTrue(router.onFrameHeader(FrameType.HEARTBEAT, 0, 0, 0, 0, 0, 0));
        router.onFrameEnd(FrameType.HEARTBEAT);
        assertEquals(List.of(), connection.events);
    }

    @Test
    void shouldCloseOnAHandshakeFrameAfterTheHandshake()
    {
        assertFalse(router.onFrameHeader(FrameType.CONNECT_REQUEST, 0, 0, 0, 0, 0, 0), "decoding stops");
        assertEquals(1, connection.events.size());
        assertTrue(connection.events.get(0).startsWith("protocol error: unexpected"), connection.events.get(0));
        assertTrue(connection.events.get(0).contains("on an established connection"), connection.events.get(0));
    }

    @Test
    void shouldStopDecodingOnceTheConnectionClosed()
    {
        connection.closed = true;
        assertFalse(router.onFrameHeader(FrameType.HEARTBEAT, 0, 0, 0, 0, 0, 0));
        assertTrue(router.isClosed());
    }

    @Test
    void shouldPassTheDecodersErrorsAndTheSocketThrough()
    {
        router.onProtocolError("bad length");
        assertEquals(List.of("protocol error: bad length"), connection.events);
        assertNull(router.directReadFd(), "no socket for direct reads yet");
    }

    /** An established connection that records what the router asks of it. */
    private static final class Recorder implements TcpFrameRouter.Connection
    {
        final List<String> events = new ArrayList<>();
        boolean closed;

        /** {@inheritDoc} */
        public boolean isEstablished()
        {
            return true;
        }

        /** {@inheritDoc} */
        public boolean isClosed()
        {
            return closed;
        }

        /** {@inheritDoc} */
        public FileDescriptor socketFd()
        {
            return null;
        }

        /** {@inheritDoc} */
        public void protocolError(final String reason)
        {
            events.add("protocol error: " + reason);
        }

        /** {@inheritDoc} */
        public void onDisconnectHeader()
        {
            events.add("disconnect header");
        }

        /** {@inheritDoc} */
        public void onDisconnect()
        {
            events.add("disconnect");
        }
    }
}
