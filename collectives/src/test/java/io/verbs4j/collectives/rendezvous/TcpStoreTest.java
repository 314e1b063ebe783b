// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TcpStoreTest extends AbstractRendezvousStoreTest
{
    private final TcpStoreServer server = TcpStoreServer.start(new InetSocketAddress("127.0.0.1", 0));

    @Override
    RendezvousStore newHandle()
    {
        return TcpStore.connect(new InetSocketAddress("127.0.0.1", server.port()), LONG);
    }

    @Override
    void closeBackend()
    {
        server.close();
    }

    @Test
    void shouldHostItsOwnServer()
    {
        try (TcpStore host = TcpStore.host(new InetSocketAddress("127.0.0.1", 0), LONG);
            TcpStore client = TcpStore.connect(new InetSocketAddress("127.0.0.1", host.serverPort()), LONG))
        {
            client.set("from-client", bytes("hi"));
            assertArrayEquals(bytes("hi"), host.get("from-client", LONG));
            assertEquals(-1, client.serverPort());
        }
    }

    @Test
    void shouldTimeOutConnectingToNobody()
    {
        final int port;
        try (TcpStoreServer temporary = TcpStoreServer.start(new InetSocketAddress("127.0.0.1", 0)))
        {
            port = temporary.port(); // now closed: nothing listens there
        }
        final RendezvousTimeoutException ex = assertThrows(RendezvousTimeoutException.class,
            () -> TcpStore.connect(new InetSocketAddress("127.0.0.1", port), Duration.ofMillis(200)));
        assertTrue(ex.getMessage().contains(Integer.toString(port)), ex.getMessage());
    }

    @Test
    void shouldFailPendingCallsWhenServerStops() throws Exception
    {
        final RendezvousStore client = handle();
        client.set("warm", bytes("up"));
        server.close();
        final RuntimeException ex = assertThrows(RuntimeException.class, () -> client.get("never", LONG));
        assertTrue(ex instanceof RendezvousException, ex.toString());
        assertThrows(RendezvousException.class, () -> client.set("again", bytes("x")), "connection stays broken");
    }

    @Test
    void shouldRefuseToBindAPortInUse()
    {
        final RendezvousException ex = assertThrows(RendezvousException.class,
            () -> TcpStoreServer.start(new InetSocketAddress("127.0.0.1", server.port())));
        assertTrue(ex.getMessage().contains("MASTER_PORT"), ex.getMessage());
    }
}
