// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression test for what {@link TcpStoreServerFuzzTest} found: a session blocked in a long GET did not notice that
 * its client went away (fixed; see docs/FUZZING.md).
 */
@Timeout(30)
class TcpStoreAbandonedWaitTest
{
    @Test
    void shouldDropTheSessionOfAClientThatLeftDuringAGet() throws Exception
    {
        try (TcpStoreServer server = TcpStoreServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            final byte[] key = "never-set".getBytes(StandardCharsets.UTF_8);
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port()))
            {
                final ByteBuffer header = TcpStoreProtocol.newRequestHeader();
                TcpStoreProtocol.encodeRequestHeader(header, TcpStoreProtocol.OP_GET, key.length, 0, 600_000L);
                final OutputStream out = socket.getOutputStream();
                out.write(header.array());
                out.write(key);
                out.flush();
                waitForSessions(server, 1, 5_000);
            }
            // The client is gone; its session should end soon, not in ten minutes.
            waitForSessions(server, 0, 5_000);
            assertEquals(0, server.connectionCount(), "sessions left behind by a client that disconnected");
        }
    }

    private static void waitForSessions(final TcpStoreServer server, final int count, final long timeoutMs)
        throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + timeoutMs;
        while (server.connectionCount() != count && System.currentTimeMillis() < deadline)
        {
            Thread.sleep(10);
        }
    }
}
