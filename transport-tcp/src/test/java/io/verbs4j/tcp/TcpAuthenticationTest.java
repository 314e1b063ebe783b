// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.ConnectionException;
import io.verbs4j.ConnectionRequest;
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
import io.verbs4j.config.ClusterSecret;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.spi.ChallengeResponse;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Admission by the cluster secret: matching secrets connect and carry traffic; a wrong secret, a secret on one side
 * only, a replayed proof and garbage are refused on both sides before any verb frame, counted and logged, and other
 * connections carry on.
 */
@Timeout(60)
class TcpAuthenticationTest
{
    private static final String SECRET_A = "secret-A-0123456789abcdef";
    private static final String SECRET_B = "secret-B-0123456789abcdef";

    @TempDir
    Path dir;

    @Test
    void shouldConnectAndCarryTrafficWhenTheSecretsMatch() throws Exception
    {
        try (TcpPair pair = new TcpPair(config -> { }, secretContext(SECRET_A), secretContext(SECRET_A)))
        {
            assertArrayEquals(new byte[]{1, 2, 3}, pair.serverGot);
            assertArrayEquals(new byte[]{4, 5, 6}, pair.clientGot);
            assertSendAndWrite(pair);
            assertEquals(1, pair.clientTcp().counter(TcpCounter.PEERS_AUTHENTICATED));
            assertEquals(1, pair.serverTcp().counter(TcpCounter.PEERS_AUTHENTICATED));
            assertEquals(0, pair.clientTcp().counter(TcpCounter.AUTH_FAILURES));
            assertEquals(0, pair.serverTcp().counter(TcpCounter.AUTH_FAILURES));
        }
    }

    @Test
    void shouldRefuseAWrongSecretOnBothSidesAndLeaveOtherConnectionsAlone() throws Exception
    {
        try (TcpPair pair = new TcpPair(config -> { }, secretContext(SECRET_A), secretContext(SECRET_A));
            Device intruder = Verbs.open("tcp", secretContext(SECRET_B));
            Listener listener = pair.serverDevice.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final ConnectionException refused = assertThrows(ConnectionException.class,
                () -> connect(intruder, listener.endpoint()));
            assertTrue(refused.getMessage().contains("authentication failed"), refused.getMessage());
            assertTrue(refused.getMessage().contains("secret mismatch"), refused.getMessage());
            assertNull(listener.accept(Duration.ofMillis(200)), "no request may reach the application");
            assertCounter(pair.serverTcp(), TcpCounter.AUTH_FAILURES, 1);
            assertEquals(1, ((TcpDevice)intruder).counter(TcpCounter.AUTH_FAILURES));
            assertEquals(0, ((TcpDevice)intruder).counter(TcpCounter.CONNECTIONS_ESTABLISHED));
            assertEquals(QpState.RTS, pair.server.state());
            assertSendAndWrite(pair);
        }
    }

    @Test
    void shouldRefuseWhenOnlyTheListenerHasASecret() throws Exception
    {
        try (Device server = Verbs.open("tcp", secretContext(SECRET_A));
            Device client = Verbs.open("tcp", new DeviceContext());
            Listener listener = server.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final ConnectionException refused = assertThrows(ConnectionException.class,
                () -> connect(client, listener.endpoint()));
            assertTrue(refused.getMessage().startsWith("authentication failed"), refused.getMessage());
            assertTrue(refused.getMessage().contains("requires the cluster secret"), refused.getMessage());
            assertNull(listener.accept(Duration.ofMillis(200)));
            assertCounter((TcpDevice)server, TcpCounter.AUTH_FAILURES, 1);
            assertEquals(1, ((TcpDevice)client).counter(TcpCounter.AUTH_FAILURES));
        }
    }

    @Test
    void shouldRefuseWhenOnlyTheConnectorHasASecret() throws Exception
    {
        try (Device server = Verbs.open("tcp", new DeviceContext());
            Device client = Verbs.open("tcp", secretContext(SECRET_A));
            Listener listener = server.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final ConnectionException refused = assertThrows(ConnectionException.class,
                () -> connect(client, listener.endpoint()));
            assertTrue(refused.getMessage().startsWith("authentication failed"), refused.getMessage());
            assertTrue(refused.getMessage().contains("this listener has none"), refused.getMessage());
            assertNull(listener.accept(Duration.ofMillis(200)));
            assertCounter((TcpDevice)server, TcpCounter.AUTH_FAILURES, 1);
            assertEquals(1, ((TcpDevice)client).counter(TcpCounter.AUTH_FAILURES));
        }
    }

    @Test
    void shouldRefuseAReplayedProofGarbageAndARequestWithoutProof() throws Exception
    {
        try (Device server = Verbs.open("tcp", secretContext(SECRET_A));
            Listener listener = server.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final int port = TcpEndpoint.parse(listener.endpoint()).port();
            final ChallengeResponse knowsSecret = new ChallengeResponse(
                ClusterSecret.fromBytes(SECRET_A.getBytes(StandardCharsets.UTF_8), "test"), TcpAuthenticator.CONTEXT);
            final byte[] nonce = ChallengeResponse.newNonce();
            final byte[] captured;
            // A session that proves the secret properly reaches the application; its proof is recorded.
            try (Socket socket = new Socket("127.0.0.1", port))
            {
                socket.setSoTimeout(5000);
                final byte[] challenge = hello(socket, nonce);
                final byte[] serverNonce = Arrays.copyOf(challenge, ChallengeResponse.NONCE_LENGTH);
                assertTrue(knowsSecret.verify(Arrays.copyOfRange(challenge, 32, 64), serverNonce, nonce,
                    ChallengeResponse.ROLE_ACCEPTOR));
                captured = knowsSecret.proof(nonce, serverNonce, ChallengeResponse.ROLE_CONNECTOR);
                write(socket, frame(FrameType.AUTH_RESPONSE, captured));
                write(socket, frame(FrameType.CONNECT_REQUEST, new byte[]{9}));
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(5));
                assertNotNull(request);
                assertArrayEquals(new byte[]{9}, request.privateData());
                request.reject("test done");
            }
            assertEquals(1, ((TcpDevice)server).counter(TcpCounter.PEERS_AUTHENTICATED));

            // The same hello and the recorded proof in a new session: the server's nonce differs, so it fails.
            try (Socket socket = new Socket("127.0.0.1", port))
            {
                socket.setSoTimeout(5000);
                hello(socket, nonce);
                write(socket, frame(FrameType.AUTH_RESPONSE, captured));
                write(socket, frame(FrameType.CONNECT_REQUEST, new byte[]{9}));
                assertRefused(socket, "did not prove");
            }
            assertCounter((TcpDevice)server, TcpCounter.AUTH_FAILURES, 1);

            // Garbage in place of the proof.
            try (Socket socket = new Socket("127.0.0.1", port))
            {
                socket.setSoTimeout(5000);
                hello(socket, ChallengeResponse.newNonce());
                final byte[] garbage = new byte[HandshakeFlyweight.AUTH_RESPONSE_LENGTH];
                Arrays.fill(garbage, (byte)0x5A);
                write(socket, frame(FrameType.AUTH_RESPONSE, garbage));
                assertRefused(socket, "did not prove");
            }
            assertCounter((TcpDevice)server, TcpCounter.AUTH_FAILURES, 2);

            // A connection request with no authentication at all.
            try (Socket socket = new Socket("127.0.0.1", port))
            {
                socket.setSoTimeout(5000);
                write(socket, frame(FrameType.CONNECT_REQUEST, new byte[]{9}));
                assertRefused(socket, "requires the cluster secret");
            }
            assertCounter((TcpDevice)server, TcpCounter.AUTH_FAILURES, 3);
            assertNull(listener.accept(Duration.ofMillis(200)), "no refused session may reach the application");
            assertEquals(1, ((TcpDevice)server).counter(TcpCounter.PEERS_AUTHENTICATED));
        }
    }

    @Test
    void shouldRefuseToOpenWithASecretFileOthersCanRead() throws Exception
    {
        final Path file = dir.resolve("secret");
        Files.write(file, SECRET_A.getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        final DeviceContext context = new DeviceContext().property(ClusterSecret.FILE_PROP_NAME, file.toString());
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> Verbs.open("tcp", context).close());
        assertTrue(ex.getMessage().contains("too open") && ex.getMessage().contains("chmod 600"), ex.getMessage());
    }

    private DeviceContext secretContext(final String secret) throws IOException
    {
        final Path file = Files.createTempFile(dir, "secret", "");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.write(file, (secret + "\n").getBytes(StandardCharsets.UTF_8));
        return new DeviceContext().property(ClusterSecret.FILE_PROP_NAME, file.toString());
    }

    private static void connect(final Device device, final String endpoint)
    {
        final QueuePair qp = device.allocateProtectionDomain().createQueuePair(
            new QueuePairConfig(device.createCompletionQueue(256)));
        qp.modify(QpState.INIT);
        device.connectionManager().connect(qp, endpoint, new byte[0], Duration.ofSeconds(10));
    }

    private static void assertSendAndWrite(final TcpPair pair)
    {
        final MemoryRegion src = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        src.putLong(0, 0x1122334455667788L);
        src.putLong(8, 42);
        assertEquals(QueuePair.OK, pair.server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 1024, 64)));
        assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.SEND)
            .sge(src, 0, 16)));
        assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(3).opcode(Opcode.RDMA_WRITE)
            .sge(src, 0, 8).remote(dst.address(), dst.rkey())));
        final CompletionBatch sent = TcpPair.await(pair.clientCq, 2);
        assertEquals(2, sent.size());
        assertEquals(WcStatus.SUCCESS, sent.status(0));
        assertEquals(WcStatus.SUCCESS, sent.status(1));
        final CompletionBatch received = TcpPair.await(pair.serverCq, 1);
        assertEquals(WcStatus.SUCCESS, received.status(0));
        assertEquals(0x1122334455667788L, dst.getLong(1024));
        assertEquals(42, dst.getLong(1032));
        assertEquals(0x1122334455667788L, dst.getLong(0));
        src.close();
        dst.close();
    }

    /** Sends AUTH_HELLO and returns the AUTH_CHALLENGE payload. */
    private static byte[] hello(final Socket socket, final byte[] nonce) throws IOException
    {
        write(socket, frame(FrameType.AUTH_HELLO, nonce));
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        final ByteBuffer header = readHeader(in);
        assertEquals(FrameType.AUTH_CHALLENGE, header.get(HandshakeFlyweight.TYPE_OFFSET));
        final byte[] payload = new byte[header.getInt(HandshakeFlyweight.PAYLOAD_LENGTH_OFFSET)];
        in.readFully(payload);
        assertEquals(HandshakeFlyweight.AUTH_CHALLENGE_LENGTH, payload.length);
        return payload;
    }

    private static void assertRefused(final Socket socket, final String reason) throws IOException
    {
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        final ByteBuffer header = readHeader(in);
        assertEquals(FrameType.CONNECT_REJECT, header.get(HandshakeFlyweight.TYPE_OFFSET));
        assertEquals(HandshakeFlyweight.FLAG_AUTH_REFUSAL, header.getShort(HandshakeFlyweight.FLAGS_OFFSET));
        final byte[] text = new byte[header.getInt(HandshakeFlyweight.PAYLOAD_LENGTH_OFFSET)];
        in.readFully(text);
        final String message = new String(text, StandardCharsets.UTF_8);
        assertTrue(message.contains(reason), message);
        assertEquals(-1, drain(socket.getInputStream()), "closed after the refusal");
    }

    private static ByteBuffer readHeader(final DataInputStream in) throws IOException
    {
        final byte[] header = new byte[HandshakeFlyweight.HEADER_LENGTH];
        in.readFully(header);
        final ByteBuffer buffer = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(FrameFlyweight.CURRENT_VERSION, buffer.get(HandshakeFlyweight.VERSION_OFFSET));
        assertEquals(HandshakeFlyweight.MAGIC, buffer.getInt(HandshakeFlyweight.MAGIC_OFFSET));
        return buffer;
    }

    private static int drain(final InputStream in) throws IOException
    {
        int n;
        do
        {
            n = in.read();
        }
        while (n >= 0);
        return n;
    }

    private static byte[] frame(final byte type, final byte[] payload)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(HandshakeFlyweight.HEADER_LENGTH + payload.length)
            .order(ByteOrder.LITTLE_ENDIAN);
        buffer.put(HandshakeFlyweight.VERSION_OFFSET, FrameFlyweight.CURRENT_VERSION)
            .put(HandshakeFlyweight.TYPE_OFFSET, type)
            .putInt(HandshakeFlyweight.PAYLOAD_LENGTH_OFFSET, payload.length)
            .putInt(HandshakeFlyweight.MAGIC_OFFSET, HandshakeFlyweight.MAGIC)
            .putInt(HandshakeFlyweight.HEARTBEAT_INTERVAL_OFFSET, 100_000);
        buffer.position(HandshakeFlyweight.HEADER_LENGTH);
        buffer.put(payload);
        return buffer.array();
    }

    private static void write(final Socket socket, final byte[] bytes) throws IOException
    {
        final OutputStream out = socket.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    /** The listener side counts asynchronously (its I/O thread): wait a little for it. */
    private static void assertCounter(final TcpDevice device, final TcpCounter counter, final long expected)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (device.counter(counter) != expected && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertEquals(expected, device.counter(counter), counter.label());
    }
}
