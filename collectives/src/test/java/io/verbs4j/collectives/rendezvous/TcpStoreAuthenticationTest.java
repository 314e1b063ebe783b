// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.verbs4j.config.ClusterSecret;
import io.verbs4j.spi.ChallengeResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's challenge-response: matching secrets work; a wrong secret, a secret on one side only, a replayed or
 * garbage proof are refused, logged and counted by the server, and an authenticated client carries on. The secret
 * is configured as the system property {@link ClusterSecret#FILE_PROP_NAME} (restored after each test).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpStoreAuthenticationTest
{
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String SECRET_A = "store-secret-A-0123456789";
    private static final String SECRET_B = "store-secret-B-0123456789";

    @TempDir
    Path dir;

    private final CopyOnWriteArrayList<String> logLines = new CopyOnWriteArrayList<>();
    private final Logger julLogger = Logger.getLogger(TcpStoreServer.class.getName());
    private final Handler capture = new Handler()
    {
        public void publish(final LogRecord record)
        {
            logLines.add(record.getMessage());
        }

        public void flush()
        {
        }

        public void close()
        {
        }
    };
    private String previous;

    @BeforeEach
    void captureLog()
    {
        previous = System.getProperty(ClusterSecret.FILE_PROP_NAME);
        julLogger.addHandler(capture);
    }

    @AfterEach
    void restore()
    {
        julLogger.removeHandler(capture);
        if (null == previous)
        {
            System.clearProperty(ClusterSecret.FILE_PROP_NAME);
        }
        else
        {
            System.setProperty(ClusterSecret.FILE_PROP_NAME, previous);
        }
    }

    @Test
    void shouldServeAClientWithTheSameSecretAndRefuseAWrongOne() throws Exception
    {
        useSecret(SECRET_A);
        try (TcpStoreServer server = TcpStoreServer.start(new InetSocketAddress("127.0.0.1", 0));
            TcpStore good = TcpStore.connect(address(server), WAIT))
        {
            good.set("k", bytes("v"));
            assertArrayEquals(bytes("v"), good.get("k", WAIT));
            useSecret(SECRET_B);
            final RendezvousException refused = assertThrows(RendezvousException.class,
                () -> TcpStore.connect(address(server), WAIT).close());
            assertTrue(refused.getMessage().contains("authentication failed") &&
                refused.getMessage().contains("did not prove"), refused.getMessage());
            awaitFailures(server, 1);
            assertEquals(2, good.add("n", 2));
            assertArrayEquals(bytes("v"), good.get("k", WAIT));
            assertTrue(logLines.stream().anyMatch(l -> l.contains("authentication failed") && l.contains("127.0.0.1")),
                logLines.toString());
            assertFalse(logLines.stream().anyMatch(l -> l.contains(SECRET_A) || l.contains(SECRET_B)));
        }
    }

    @Test
    void shouldRefuseAClientWithoutTheSecret() throws Exception
    {
        useSecret(SECRET_A);
        try (TcpStoreServer server = TcpStoreServer.start(new InetSocketAddress("127.0.0.1", 0)))
        {
            System.clearProperty(ClusterSecret.FILE_PROP_NAME);
            try (TcpStore anonymous = TcpStore.connect(address(server), WAIT))
            {
                final RendezvousException refused = assertThrows(RendezvousException.class,
                    () -> anonymous.set("k", bytes("v")));
                assertTrue(refused.getMessage().contains("requires the cluster secret"), refused.getMessage());
            }
            awaitFailures(server, 1);
        }
    }

    @Test
    void shouldRefuseAClientWithASecretWhenTheServerHasNone() throws Exception
    {
        System.clearProperty(ClusterSecret.FILE_PROP_NAME);
        try (TcpStoreServer server = TcpStoreServer.start(new InetSocketAddress("127.0.0.1", 0)))
        {
            useSecret(SECRET_A);
            final RendezvousException refused = assertThrows(RendezvousException.class,
                () -> TcpStore.connect(address(server), WAIT).close());
            assertTrue(refused.getMessage().contains("this store server has none"), refused.getMessage());
            awaitFailures(server, 1);
        }
    }

    @Test
    void shouldRefuseAReplayedAndAGarbageProof() throws Exception
    {
        useSecret(SECRET_A);
        final ChallengeResponse knowsSecret = new ChallengeResponse(
            ClusterSecret.fromBytes(SECRET_A.getBytes(StandardCharsets.UTF_8), "test"), TcpStoreProtocol.AUTH_CONTEXT);
        final byte[] nonce = ChallengeResponse.newNonce();
        try (TcpStoreServer server = TcpStoreServer.start(new InetSocketAddress("127.0.0.1", 0)))
        {
            final byte[] recorded;
            try (Socket socket = new Socket("127.0.0.1", server.port()))
            {
                socket.setSoTimeout(5000);
                final byte[] challenge = request(socket, TcpStoreProtocol.OP_AUTH_HELLO, nonce,
                    TcpStoreProtocol.STATUS_OK);
                final byte[] serverNonce = Arrays.copyOf(challenge, ChallengeResponse.NONCE_LENGTH);
                recorded = knowsSecret.proof(nonce, serverNonce, ChallengeResponse.ROLE_CONNECTOR);
                request(socket, TcpStoreProtocol.OP_AUTH_RESPONSE, recorded, TcpStoreProtocol.STATUS_OK);
            }
            try (Socket socket = new Socket("127.0.0.1", server.port()))
            {
                socket.setSoTimeout(5000);
                request(socket, TcpStoreProtocol.OP_AUTH_HELLO, nonce, TcpStoreProtocol.STATUS_OK);
                final byte[] reason = request(socket, TcpStoreProtocol.OP_AUTH_RESPONSE, recorded,
                    TcpStoreProtocol.STATUS_AUTH_FAILED);
                assertTrue(new String(reason, StandardCharsets.UTF_8).contains("did not prove"));
                assertEquals(-1, socket.getInputStream().read(), "closed after the refusal");
            }
            awaitFailures(server, 1);
            try (Socket socket = new Socket("127.0.0.1", server.port()))
            {
                socket.setSoTimeout(5000);
                request(socket, TcpStoreProtocol.OP_AUTH_HELLO, ChallengeResponse.newNonce(),
                    TcpStoreProtocol.STATUS_OK);
                request(socket, TcpStoreProtocol.OP_AUTH_RESPONSE, new byte[TcpStoreProtocol.AUTH_VALUE_LENGTH],
                    TcpStoreProtocol.STATUS_AUTH_FAILED);
                assertEquals(-1, socket.getInputStream().read(), "closed after the refusal");
            }
            awaitFailures(server, 2);
        }
    }

    private void useSecret(final String secret) throws IOException
    {
        final Path file = Files.createTempFile(dir, "secret", "",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, secret.getBytes(StandardCharsets.UTF_8));
        System.setProperty(ClusterSecret.FILE_PROP_NAME, file.toString());
    }

    private static byte[] request(final Socket socket, final byte opcode, final byte[] value, final byte status)
        throws IOException
    {
        final ByteBuffer header = TcpStoreProtocol.newRequestHeader();
        TcpStoreProtocol.encodeRequestHeader(header, opcode, 0, value.length, 0);
        final OutputStream out = socket.getOutputStream();
        out.write(header.array());
        out.write(value);
        out.flush();
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        final ByteBuffer response = TcpStoreProtocol.newResponseHeader();
        in.readFully(response.array());
        assertEquals(null, TcpStoreProtocol.validateResponseHeader(response));
        assertEquals(status, response.get(TcpStoreProtocol.STATUS_OFFSET));
        final byte[] answer = new byte[response.getInt(TcpStoreProtocol.RESPONSE_VALUE_LENGTH_OFFSET)];
        in.readFully(answer);
        return answer;
    }

    private static void awaitFailures(final TcpStoreServer server, final long expected) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.authenticationFailures() != expected && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertEquals(expected, server.authenticationFailures());
    }

    private static InetSocketAddress address(final TcpStoreServer server)
    {
        return new InetSocketAddress("127.0.0.1", server.port());
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
