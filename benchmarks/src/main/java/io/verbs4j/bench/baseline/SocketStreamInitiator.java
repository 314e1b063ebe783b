// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/**
 * Bandwidth initiator of the {@code socket} baseline: write the window's messages, read the {@link StreamAck}.
 */
final class SocketStreamInitiator implements StreamInitiator
{
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] message;
    private final byte[] ack = new byte[StreamAck.LENGTH];
    private long sent;

    SocketStreamInitiator(final SessionSpec spec, final Socket socket) throws IOException
    {
        this.socket = socket;
        socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, spec.timeoutMs()));
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.message = new byte[spec.messageBytes()];
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void sendWindow(final int messages) throws IOException
    {
        for (int i = 0; i < messages; i++)
        {
            out.write(message, 0, message.length);
        }
        sent += messages;
        StreamIo.readFully(in, ack, StreamAck.LENGTH);
        StreamAck.verify(StreamIo.getLong(ack), sent);
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
