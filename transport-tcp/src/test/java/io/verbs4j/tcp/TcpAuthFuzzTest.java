// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.Verbs;
import io.verbs4j.config.ClusterSecret;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;
import org.junit.jupiter.api.AfterAll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz target for the authenticated handshake: a listener with a cluster secret gets, from a raw loopback socket,
 * fuzzed sequences of mostly well-formed authentication and connection frames (AUTH_HELLO, AUTH_RESPONSE with fuzzed
 * proofs, CONNECT_REQUEST, CONNECT_REJECT, unexpected types, wrong lengths) mixed with raw bytes, then EOF. Per input:
 * the device closes the connection (no hang), no connection request ever reaches the application and no peer is
 * counted as authenticated (the fuzzer does not know the secret, so nothing it sends may get in), and no exception
 * other than a socket error reached the logs. Without {@code JAZZER_FUZZ} the inputs in
 * {@code TcpAuthFuzzTestInputs/fuzzAuthentication/} run as regression tests.
 */
class TcpAuthFuzzTest
{
    private static final long WAIT_MS = 10_000;
    private static final byte[] TYPES =
    {
        FrameType.AUTH_HELLO, FrameType.AUTH_RESPONSE, FrameType.AUTH_CHALLENGE, FrameType.CONNECT_REQUEST,
        FrameType.CONNECT_REJECT, FrameType.CONNECT_ACCEPT, FrameType.WRITE, FrameType.HEARTBEAT
    };

    private static Path secretFile;
    private static Device device;
    private static Listener listener;
    private static int port;

    @AfterAll
    static void closeDevice() throws IOException
    {
        if (null != device)
        {
            listener.close();
            device.close();
            device = null;
        }
        if (null != secretFile)
        {
            Files.delete(secretFile);
            secretFile = null;
        }
    }

    /** Fuzzed authentication and handshake frames against a listener that requires the cluster secret. */
    @FuzzTest
    void fuzzAuthentication(final FuzzedDataProvider data) throws Exception
    {
        try (SilentCloseable ignored = TcpFrameFuzzTest.allowLoopback())
        {
            fuzzAuthenticationBody(data);
        }
    }

    private static void fuzzAuthenticationBody(final FuzzedDataProvider data) throws Exception
    {
        open();
        final byte[] bytes = input(data);
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            socket.setSoTimeout((int)WAIT_MS);
            final CompletableFuture<Void> drained = TcpFrameFuzzTest.drain(socket);
            TcpFrameFuzzTest.sendAndHalfClose(socket, bytes);
            TcpFrameFuzzTest.awaitClosed(drained, "authentication");
        }
        final ConnectionRequest request = listener.accept(Duration.ZERO);
        assertNull(request, "a connection request got past authentication");
        assertEquals(0, ((TcpDevice)device).counter(TcpCounter.PEERS_AUTHENTICATED),
            "authenticated without the secret");
        final List<String> problems = FuzzLogWatch.instance().drain();
        assertTrue(problems.isEmpty(), () -> "exceptions escaped: " + problems);
    }

    private static byte[] input(final FuzzedDataProvider data)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int frames = data.consumeInt(0, 6);
        for (int i = 0; i < frames && data.remainingBytes() > 0; i++)
        {
            if (0 == data.consumeInt(0, 7))
            {
                out.writeBytes(data.consumeBytes(data.consumeInt(0, 64)));
                continue;
            }
            final byte type = data.pickValue(TYPES);
            final int natural = FrameType.AUTH_HELLO == type || FrameType.AUTH_RESPONSE == type ?
                HandshakeFlyweight.AUTH_HELLO_LENGTH : FrameType.AUTH_CHALLENGE == type ?
                HandshakeFlyweight.AUTH_CHALLENGE_LENGTH : data.consumeInt(0, 48);
            final int length = 0 == data.consumeInt(0, 7) ? data.consumeInt(-1, 4100) : natural;
            final ByteBuffer header = ByteBuffer.allocate(HandshakeFlyweight.HEADER_LENGTH)
                .order(ByteOrder.LITTLE_ENDIAN);
            header.put(HandshakeFlyweight.VERSION_OFFSET, 0 == data.consumeInt(0, 15) ? data.consumeByte() :
                FrameFlyweight.CURRENT_VERSION)
                .put(HandshakeFlyweight.TYPE_OFFSET, type)
                .putShort(HandshakeFlyweight.FLAGS_OFFSET, data.consumeShort())
                .putInt(HandshakeFlyweight.PAYLOAD_LENGTH_OFFSET, length)
                .putInt(HandshakeFlyweight.MAGIC_OFFSET, 0 == data.consumeInt(0, 15) ? data.consumeInt() :
                    HandshakeFlyweight.MAGIC)
                .putInt(HandshakeFlyweight.HEARTBEAT_INTERVAL_OFFSET, 100_000);
            out.writeBytes(header.array());
            final byte[] payload = data.consumeBytes(Math.max(0, Math.min(length, 4096)));
            out.writeBytes(payload);
        }
        out.writeBytes(data.consumeRemainingAsBytes());
        return out.toByteArray();
    }

    private static synchronized void open() throws IOException
    {
        if (null != device)
        {
            return;
        }
        FuzzLogWatch.instance().drain();
        secretFile = Files.createTempFile("verbs4j-fuzz-secret", "",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(secretFile, "fuzz-cluster-secret-0123456789".getBytes(StandardCharsets.UTF_8));
        device = Verbs.open("tcp", new DeviceContext()
            .peerTimeoutNs(TimeUnit.SECONDS.toNanos(30))
            .property(TcpConfiguration.HANDSHAKE_TIMEOUT_PROP_NAME, "3000")
            .property(ClusterSecret.FILE_PROP_NAME, secretFile.toString()));
        listener = device.connectionManager().listen("tcp://127.0.0.1:0");
        port = TcpEndpoint.parse(listener.endpoint()).port();
    }
}
