// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzz target for the TcpStore server: arbitrary request bytes over a socket (mostly well-formed headers with fuzzed
 * fields, keys and values, mixed with raw bytes). Per input: every response the server sends is a well-formed
 * response frame, the server closes or keeps the connection (never hangs once the client half-closes), no session
 * thread dies with an uncaught exception, and a well-behaved client ({@link TcpStore}) on its own connection keeps
 * getting correct answers.
 */
class TcpStoreServerFuzzTest
{
    private static final int HEALTH_CHECK_EVERY = 32;
    private static final int WAIT_MS = 10_000;

    private static TcpStoreServer server;
    private static TcpStore healthy;
    private static long inputs;
    private static long healthChecks;
    private static final ConcurrentLinkedQueue<String> UNCAUGHT = new ConcurrentLinkedQueue<>();

    @AfterAll
    static void stop()
    {
        if (null != server)
        {
            try
            {
                checkHealthy();
            }
            finally
            {
                healthy.close();
                server.close();
                server = null;
            }
        }
    }

    @FuzzTest
    void fuzzRequests(final FuzzedDataProvider data) throws Exception
    {
        try (SilentCloseable ignored = BugDetectors.allowNetworkConnections(
            (host, port) -> "127.0.0.1".equals(host) || "localhost".equals(host)))
        {
            start();
            final byte[] bytes = requests(data);
            try (Socket socket = new Socket())
            {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 5000);
                socket.setSoTimeout(WAIT_MS);
                final OutputStream out = socket.getOutputStream();
                try
                {
                    out.write(bytes);
                    out.flush();
                    socket.shutdownOutput();
                }
                catch (final IOException closedByTheServer)
                {
                    // the server refused a frame part way
                }
                readResponsesUntilClosed(socket.getInputStream());
            }
            final List<String> uncaught = List.copyOf(UNCAUGHT);
            UNCAUGHT.clear();
            assertTrue(uncaught.isEmpty(), () -> "session threads died: " + uncaught);
            if (++inputs % HEALTH_CHECK_EVERY == 0)
            {
                checkHealthy();
            }
        }
    }

    private static byte[] requests(final FuzzedDataProvider data)
    {
        final ByteBuffer out = ByteBuffer.allocate(64 * 1024);
        for (int i = 0; i < 8 && data.remainingBytes() > 0; i++)
        {
            if (0 == data.consumeInt(0, 7))
            {
                final byte[] raw = data.consumeBytes(Math.min(out.remaining(), data.consumeInt(1, 64)));
                out.put(raw);
                continue;
            }
            final byte opcode = 0 == data.consumeInt(0, 15) ? data.consumeByte() :
                (byte)data.consumeInt(TcpStoreProtocol.OP_SET, TcpStoreProtocol.OP_WAIT);
            final byte[] key = 0 == data.consumeInt(0, 3) ? data.consumeBytes(data.consumeInt(0, 40)) :
                ("k" + data.consumeInt(0, 3)).getBytes(StandardCharsets.UTF_8);
            final byte[] value = TcpStoreProtocol.OP_SET == opcode ? data.consumeBytes(data.consumeInt(0, 64)) :
                new byte[0];
            final long argument;
            if (TcpStoreProtocol.OP_GET == opcode || TcpStoreProtocol.OP_WAIT == opcode)
            {
                // Valid waits stay short so that each input runs fast; abandoned long waits: TcpStoreAbandonedWaitTest.
                argument = data.consumeBoolean() ? data.consumeLong(1, 20) :
                    data.consumeBoolean() ? data.consumeLong() : -data.consumeLong(0, Long.MAX_VALUE);
            }
            else
            {
                argument = data.consumeLong();
            }
            final ByteBuffer header = TcpStoreProtocol.newRequestHeader();
            TcpStoreProtocol.encodeRequestHeader(header, opcode,
                0 == data.consumeInt(0, 15) ? data.consumeInt() : key.length,
                0 == data.consumeInt(0, 15) ? data.consumeInt() : value.length, argument);
            if (0 == data.consumeInt(0, 15))
            {
                header.putShort(TcpStoreProtocol.VERSION_OFFSET, data.consumeShort());
            }
            if (0 == data.consumeInt(0, 31))
            {
                header.put(TcpStoreProtocol.FLAGS_OFFSET, data.consumeByte());
            }
            if (out.remaining() < header.capacity() + key.length + value.length)
            {
                break;
            }
            out.put(header.array()).put(key).put(value);
        }
        final byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    /** Reads response frames until EOF; each must pass the client's own validation. */
    private static void readResponsesUntilClosed(final InputStream in) throws IOException
    {
        final ByteBuffer header = TcpStoreProtocol.newResponseHeader();
        try
        {
            while (true)
            {
                final int read = in.readNBytes(header.array(), 0, TcpStoreProtocol.RESPONSE_HEADER_LENGTH);
                if (0 == read)
                {
                    return;
                }
                assertEquals(TcpStoreProtocol.RESPONSE_HEADER_LENGTH, read, "truncated response header");
                final String problem = TcpStoreProtocol.validateResponseHeader(header);
                assertEquals(null, problem, "malformed response");
                final int length = header.getInt(TcpStoreProtocol.RESPONSE_VALUE_LENGTH_OFFSET);
                assertEquals(length, in.readNBytes(length).length, "truncated response value");
            }
        }
        catch (final SocketTimeoutException ex)
        {
            fail("hang: the server neither answered nor closed within " + WAIT_MS + " ms of the client's EOF");
        }
        catch (final java.net.SocketException reset)
        {
            // closed by the server with unread input: a refusal
        }
    }

    private static void checkHealthy()
    {
        final String key = "healthy-" + inputs;
        final byte[] value = key.getBytes(StandardCharsets.UTF_8);
        healthy.set(key, value);
        assertArrayEquals(value, healthy.get(key, Duration.ofSeconds(5)));
        assertEquals(++healthChecks, healthy.add("healthy-counter", 1));
    }

    private static synchronized void start()
    {
        if (null != server)
        {
            return;
        }
        final Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, ex) ->
        {
            if (thread.getName().startsWith("verbs4j-store"))
            {
                UNCAUGHT.add(thread.getName() + ": " + ex);
            }
            if (null != previous)
            {
                previous.uncaughtException(thread, ex);
            }
        });
        server = TcpStoreServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        healthy = TcpStore.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()),
            Duration.ofSeconds(10));
        healthy.add("healthy-counter", 0);
        checkHealthy();
    }
}
