// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.WaitLoop;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeoutException;

/**
 * Bandwidth initiator of the NIO baselines: write the window's messages from a direct buffer, read the
 * {@link StreamAck}.
 */
final class NioStreamInitiator implements StreamInitiator
{
    private final SocketChannel channel;
    private final ByteBuffer message;
    private final ByteBuffer ack = ByteBuffer.allocateDirect(StreamAck.LENGTH);
    private final WaitLoop waitLoop;
    private long sent;

    NioStreamInitiator(final SessionSpec spec, final SocketChannel channel)
    {
        this.channel = channel;
        this.message = ByteBuffer.allocateDirect(spec.messageBytes());
        this.waitLoop = WaitLoop.forSession(spec);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void sendWindow(final int messages) throws IOException, TimeoutException
    {
        for (int i = 0; i < messages; i++)
        {
            message.clear();
            ChannelIo.writeFully(channel, message, waitLoop);
        }
        sent += messages;
        ack.clear();
        ChannelIo.readFully(channel, ack, waitLoop);
        StreamAck.verify(ack.getLong(0), sent);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        Closer.closeQuietly(channel);
    }
}
