// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.SessionSpec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/**
 * Latency initiator of the {@code socket} baseline: write the message, read the echo.
 */
final class SocketPingPongInitiator implements PingPongInitiator
{
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buffer;

    SocketPingPongInitiator(final SessionSpec spec, final Socket socket) throws IOException
    {
        this.socket = socket;
        socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, spec.timeoutMs()));
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.buffer = new byte[spec.messageBytes()];
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void roundTrip() throws IOException
    {
        out.write(buffer, 0, buffer.length);
        StreamIo.readFully(in, buffer, buffer.length);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        Closer.closeQuietly(socket);
    }
}
