// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpStoreServerTest
{
    private static final Duration WAIT = Duration.ofSeconds(5);

    private final List<String> logLines = new CopyOnWriteArrayList<>();
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

    private TcpStoreServer server;
    private TcpStore bystander;

    @BeforeEach
    void startServer()
    {
        julLogger.addHandler(capture);
        server = TcpStoreServer.start(new InetSocketAddress("127.0.0.1", 0));
        bystander = TcpStore.connect(address(), WAIT);
        bystander.set("before", AbstractRendezvousStoreTest.bytes("garbage"));
    }

    @AfterEach
    void stopServer()
    {
        try
        {
            bystander.close();
            server.close();
        }
        finally
        {
            julLogger.removeHandler(capture);
        }
    }

    @Test
    void shouldDropAConnectionThatSendsRandomBytesAndKeepServingOthers() throws IOException
    {
        final byte[] garbage = new byte[64];
        new Random(42).nextBytes(garbage);
        garbage[0] = 0x7F; // make sure the version field is wrong
        assertClosedByServer(garbage);
        assertLogged("closing connection");
        assertStillServing();
    }

    @Test
    void shouldDropAConnectionWithTheWrongVersion() throws IOException
    {
        final ByteBuffer header = TcpStoreProtocol.newRequestHeader();
        TcpStoreProtocol.encodeRequestHeader(header, TcpStoreProtocol.OP_CHECK, 1, 0, 0);
        header.putShort(TcpStoreProtocol.VERSION_OFFSET, (short)(TcpStoreProtocol.VERSION + 1));
        assertClosedByServer(header.array());
        assertLogged("unsupported protocol version");
        assertStillServing();
    }

    @Test
    void shouldDropAConnectionClaimingAnImpossibleLength() throws IOException
    {
        final ByteBuffer header = TcpStoreProtocol.newRequestHeader();
        TcpStoreProtocol.encodeRequestHeader(header, TcpStoreProtocol.OP_SET, 4, Integer.MAX_VALUE, 0);
        assertClosedByServer(header.array());
        assertLogged("impossible value length");
        assertStillServing();
    }

    @Test
    void shouldSurviveAFrameCutOffInTheMiddle() throws IOException
    {
        final ByteBuffer header = TcpStoreProtocol.newRequestHeader();
        TcpStoreProtocol.encodeRequestHeader(header, TcpStoreProtocol.OP_SET, 10, 10, 0);
        try (Socket socket = new Socket("127.0.0.1", server.port()))
        {
            socket.getOutputStream().write(header.array());
            socket.getOutputStream().write(new byte[]{'a', 'b'});
            socket.getOutputStream().flush();
        }
        assertStillServing();
        awaitLogged("ended inside a frame");
    }

    @Test
    void shouldReportBadRequestsWithoutDroppingTheConnection()
    {
        bystander.set("text", AbstractRendezvousStoreTest.bytes("not a number"));
        final IllegalArgumentException ex =
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> bystander.add("text", 1));
        assertTrue(ex.getMessage().contains("not a counter"), ex.getMessage());
        assertStillServing();
    }

    private void assertClosedByServer(final byte[] bytes) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", server.port()))
        {
            socket.setSoTimeout(5000);
            final OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
            final InputStream in = socket.getInputStream();
            int read;
            try
            {
                read = in.read();
            }
            catch (final IOException reset)
            {
                read = -1; // a reset is also the server hanging up
            }
            assertEquals(-1, read, "the server must close the connection without answering");
        }
    }

    private void assertStillServing()
    {
        assertArrayEquals(AbstractRendezvousStoreTest.bytes("garbage"), bystander.get("before", WAIT),
            "a connection opened before the bad one still works");
        try (TcpStore fresh = TcpStore.connect(address(), WAIT))
        {
            fresh.set("after", AbstractRendezvousStoreTest.bytes("ok"));
            assertArrayEquals(AbstractRendezvousStoreTest.bytes("ok"), bystander.get("after", WAIT));
        }
    }

    private void assertLogged(final String fragment)
    {
        assertTrue(logLines.stream().anyMatch(line -> line.contains(fragment)),
            "expected a log line containing '" + fragment + "' but got " + logLines);
    }

    private void awaitLogged(final String fragment)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (logLines.stream().noneMatch(line -> line.contains(fragment)) && System.nanoTime() < deadlineNs)
        {
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
        }
        assertLogged(fragment);
    }

    private InetSocketAddress address()
    {
        return new InetSocketAddress("127.0.0.1", server.port());
    }
}
