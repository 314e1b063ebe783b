// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.verbs4j.ConnectionException;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Listener;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.Verbs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection manager: private data both ways, reject, timeouts, malformed and unreachable endpoints, and
 * refusing queue pairs that cannot be connected.
 */
public abstract class AbstractConnectionConformanceTest extends AbstractConformanceTest
{
    private String localEndpoint()
    {
        return Verbs.provider(device.name()).listenEndpoint("127.0.0.1", uniqueName());
    }

    @Test
    void shouldExchangePrivateDataUpToTheAdvertisedMaximum()
    {
        final int max = device.capabilities().maxPrivateDataLength();
        final byte[] mine = pattern(max, 1);
        final byte[] theirs = pattern(max, 2);
        try (Listener listener = device.connectionManager().listen(localEndpoint()))
        {
            final QueuePair server = pd.createQueuePair(defaultConfig());
            final CompletableFuture<byte[]> accepted = CompletableFuture.supplyAsync(() ->
            {
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(10));
                request.accept(server, theirs);
                return request.privateData();
            });
            final QueuePair client = pd.createQueuePair(defaultConfig());
            final byte[] reply = device.connectionManager().connect(client, listener.endpoint(), mine,
                Duration.ofSeconds(10));
            assertArrayEquals(theirs, reply);
            assertArrayEquals(mine, accepted.join());
            assertEquals(QpState.RTS, client.state());
            assertEquals(QpState.RTS, server.state());
            final QueuePair other = pd.createQueuePair(defaultConfig());
            assertThrows(RuntimeException.class, () -> device.connectionManager().connect(other,
                listener.endpoint(), new byte[max + 1], Duration.ofSeconds(2)), "private data over the maximum");
        }
    }

    @Test
    void shouldReportARejectionToTheConnector()
    {
        try (Listener listener = device.connectionManager().listen(localEndpoint()))
        {
            CompletableFuture.runAsync(() -> listener.accept(Duration.ofSeconds(10)).reject("not today"));
            final QueuePair client = pd.createQueuePair(defaultConfig());
            final ConnectionException ex = assertThrows(ConnectionException.class, () -> device.connectionManager()
                .connect(client, listener.endpoint(), "x".getBytes(StandardCharsets.US_ASCII), Duration.ofSeconds(10)));
            assertTrue(ex.getMessage().contains("not today"), ex.getMessage());
            assertTrue(QpState.RTS != client.state());
        }
    }

    @Test
    void shouldTimeOutWhenNobodyAccepts()
    {
        try (Listener listener = device.connectionManager().listen(localEndpoint()))
        {
            final QueuePair client = pd.createQueuePair(defaultConfig());
            final long start = System.nanoTime();
            assertThrows(ConnectionException.class, () -> device.connectionManager().connect(client,
                listener.endpoint(), new byte[0], Duration.ofMillis(300)));
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "connect must honour its timeout");
        }
    }

    @Test
    void shouldFailFastForAnEndpointNobodyListensOn()
    {
        final String endpoint;
        try (Listener listener = device.connectionManager().listen(localEndpoint()))
        {
            endpoint = listener.endpoint();
        }
        final QueuePair client = pd.createQueuePair(defaultConfig());
        assertThrows(ConnectionException.class,
            () -> device.connectionManager().connect(client, endpoint, new byte[0], Duration.ofSeconds(2)));
    }

    @Test
    void shouldRefuseMalformedEndpoints()
    {
        final QueuePair client = pd.createQueuePair(defaultConfig());
        assertThrows(ConnectionException.class,
            () -> device.connectionManager().connect(client, "nonsense", new byte[0], Duration.ofSeconds(1)));
        assertThrows(ConnectionException.class, () -> device.connectionManager().listen("bogus://x"));
    }

    @Test
    void shouldRefuseToConnectAQueuePairInError()
    {
        final QueuePair client = pd.createQueuePair(defaultConfig());
        client.modify(QpState.ERROR);
        assertThrows(ConnectionException.class,
            () -> device.connectionManager().connect(client, endpoint, new byte[0], Duration.ofSeconds(1)));
    }

    @Test
    void shouldReturnNullFromAcceptWhenNoRequestCame()
    {
        try (Listener listener = device.connectionManager().listen(localEndpoint()))
        {
            assertNull(listener.accept(Duration.ofMillis(50)));
        }
    }

    @Test
    void shouldReconnectAQueuePairAfterReset()
    {
        final QueuePair qp = connect(0, 1);
        qp.modify(QpState.ERROR);
        await(cq, 0);
        qp.modify(QpState.RESET);
        peer.acceptAsync(0, 1, 7, new byte[0]);
        device.connectionManager().connect(qp, endpoint, new byte[0], Duration.ofSeconds(10));
        peer.awaitAccepted(WAIT_MS);
        assertEquals(QpState.RTS, qp.state());
    }
}
