// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.WaitLoop;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeoutException;

/**
 * Latency initiator of the NIO baselines: write the message, read the echo, direct buffer.
 */
final class NioPingPongInitiator implements PingPongInitiator
{
    private final SocketChannel channel;
    private final ByteBuffer buffer;
    private final WaitLoop waitLoop;

    NioPingPongInitiator(final SessionSpec spec, final SocketChannel channel)
    {
        this.channel = channel;
        this.buffer = ByteBuffer.allocateDirect(spec.messageBytes());
        this.waitLoop = WaitLoop.forSession(spec);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void roundTrip() throws IOException, TimeoutException
    {
        buffer.clear();
        ChannelIo.writeFully(channel, buffer, waitLoop);
        buffer.clear();
        ChannelIo.readFully(channel, buffer, waitLoop);
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
