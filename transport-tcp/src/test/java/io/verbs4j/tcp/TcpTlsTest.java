// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.ConnectionException;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TLS on both sides carries WRITE, READ and SEND (large messages too, which take the normal decoder path instead of
 * the direct socket reads); TLS on one side only, or an untrusted certificate, fails the connect cleanly.
 */
@Timeout(60)
class TcpTlsTest
{
    private static TlsFixture tls;

    @BeforeAll
    static void createStores()
    {
        tls = new TlsFixture();
    }

    @AfterAll
    static void deleteStores()
    {
        tls.close();
    }

    @Test
    void shouldCarryWriteReadAndSendOverTls()
    {
        // The I/O thread encrypts a whole 4 MiB message before the first byte leaves (and cold, that is slow): a
        // peer timeout above that time keeps the heartbeats' silence check out of it.
        try (TcpPair pair = new TcpPair(config -> { }, context(tls.properties()).peerTimeoutNs(
            TimeUnit.SECONDS.toNanos(5)), context(tls.properties()).peerTimeoutNs(TimeUnit.SECONDS.toNanos(5))))
        {
            final long start = System.nanoTime();
            final int length = 4 << 20;
            final MemoryRegion src = pair.clientPd.allocate(length, Access.LOCAL_WRITE);
            final MemoryRegion dst = pair.serverPd.allocate(length, Access.LOCAL_WRITE | Access.REMOTE_WRITE |
                Access.REMOTE_READ);
            final MemoryRegion back = pair.clientPd.allocate(length, Access.LOCAL_WRITE);
            for (int i = 0; i < length; i += 8)
            {
                src.putLong(i, i * 31L + 7);
            }
            assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE)
                .sge(src, 0, length).remote(dst.address(), dst.rkey())));
            assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_READ)
                .sge(back, 0, length).remote(dst.address(), dst.rkey())));
            final CompletionBatch done = TcpPair.await(pair.clientCq, 2);
            assertEquals(2, done.size());
            assertEquals(WcStatus.SUCCESS, done.status(0), WcStatus.name(done.status(0)));
            assertEquals(WcStatus.SUCCESS, done.status(1), WcStatus.name(done.status(1)));
            for (int i = 0; i < length; i += 8)
            {
                assertEquals(i * 31L + 7, dst.getLong(i), "WRITE at " + i);
                assertEquals(i * 31L + 7, back.getLong(i), "READ at " + i);
            }
            assertEquals(QueuePair.OK, pair.server.postRecv(new RecvRequest(1).wrId(3).sge(dst, 0, length)));
            for (int i = 0; i < length; i += 8)
            {
                src.putLong(i, -i);
            }
            assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(4).opcode(Opcode.SEND)
                .sge(src, 0, length)));
            final CompletionBatch sent = TcpPair.await(pair.clientCq, 1);
            assertEquals(WcStatus.SUCCESS, sent.status(0));
            final CompletionBatch received = TcpPair.await(pair.serverCq, 1);
            assertEquals(WcStatus.SUCCESS, received.status(0));
            assertEquals(length, received.byteLength(0));
            for (int i = 0; i < length; i += 8)
            {
                assertEquals(-i, dst.getLong(i), "SEND at " + i);
            }
            System.out.println("TcpTlsTest: 4 MiB WRITE, READ and SEND over TLS took " +
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms (cold)");
            assertEquals(0, pair.serverTcp().counter(TcpCounter.BYTES_RECEIVED_DIRECT), "no direct reads under TLS");
            assertEquals(0, pair.clientTcp().counter(TcpCounter.BYTES_RECEIVED_DIRECT), "no direct reads under TLS");
            assertEquals(0, pair.clientTcp().counter(TcpCounter.FRAMES_SENT_DIRECT), "no direct writes under TLS");
            src.close();
            dst.close();
            back.close();
        }
    }

    @Test
    void shouldFailCleanlyWhenOnlyTheListenerHasTls() throws Exception
    {
        assertRefused(tls.properties(), Map.of(), "does the listener require TLS");
    }

    @Test
    void shouldFailCleanlyWhenOnlyTheConnectorHasTls() throws Exception
    {
        assertRefused(Map.of(), tls.properties(), "TLS handshake");
    }

    @Test
    void shouldRefuseAnUntrustedCertificate() throws Exception
    {
        assertRefused(tls.properties(), tls.untrustedProperties(), "certificate");
    }

    private static void assertRefused(
        final Map<String, String> serverProperties, final Map<String, String> clientProperties, final String message)
        throws Exception
    {
        try (Device server = Verbs.open("tcp", context(serverProperties));
            Device client = Verbs.open("tcp", context(clientProperties));
            Listener listener = server.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final QueuePair qp = client.allocateProtectionDomain().createQueuePair(
                new QueuePairConfig(client.createCompletionQueue(256)));
            qp.modify(QpState.INIT);
            final ConnectionException ex = assertThrows(ConnectionException.class, () ->
                client.connectionManager().connect(qp, listener.endpoint(), new byte[0], Duration.ofSeconds(10)));
            assertTrue(ex.getMessage().contains(message), ex.getMessage());
            assertNull(listener.accept(Duration.ofMillis(200)));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (0 == refusals((TcpDevice)server) && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            assertEquals(1, refusals((TcpDevice)server), "the listener refused and counted it");
        }
    }

    private static long refusals(final TcpDevice device)
    {
        return device.counter(TcpCounter.AUTH_FAILURES) + device.counter(TcpCounter.PROTOCOL_ERRORS);
    }

    private static DeviceContext context(final Map<String, String> properties)
    {
        final DeviceContext context = new DeviceContext();
        properties.forEach(context::property);
        return context;
    }
}
