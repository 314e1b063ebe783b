// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.WaitLoop;
import io.verbs4j.bench.spi.WindowPlan;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeoutException;

/**
 * Responder of the NIO baselines: echoes each message (latency) or drains each window and answers with a
 * {@link StreamAck} (bandwidth).
 */
final class NioResponder implements Responder
{
    private final SessionSpec spec;
    private final NioListener listener;
    private final boolean blocking;
    private final WaitLoop waitLoop;
    private volatile SocketChannel channel;

    NioResponder(final SessionSpec spec, final NioListener listener, final boolean blocking)
    {
        this.spec = spec;
        this.listener = listener;
        this.blocking = blocking;
        this.waitLoop = WaitLoop.forSession(spec);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String endpoint()
    {
        try
        {
            return listener.endpoint();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("listener closed", ex);
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void serve() throws IOException, TimeoutException
    {
        final SocketChannel accepted = listener.accept(blocking, spec.timeoutMs());
        channel = accepted;
        listener.close();
        if (TestKind.LATENCY == spec.kind())
        {
            echo(accepted);
        }
        else
        {
            drainWindows(accepted);
        }
    }

    private void echo(final SocketChannel accepted) throws IOException, TimeoutException
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(spec.messageBytes());
        for (long i = 0, total = spec.totalIterations(); i < total; i++)
        {
            buffer.clear();
            ChannelIo.readFully(accepted, buffer, waitLoop);
            buffer.flip();
            ChannelIo.writeFully(accepted, buffer, waitLoop);
        }
    }

    private void drainWindows(final SocketChannel accepted) throws IOException, TimeoutException
    {
        final ByteBuffer scratch = ByteBuffer.allocateDirect(Math.min(spec.messageBytes(), 1 << 20));
        final ByteBuffer ack = ByteBuffer.allocateDirect(StreamAck.LENGTH);
        final long received = drainPhase(accepted, scratch, ack, spec.warmup(), 0);
        drainPhase(accepted, scratch, ack, spec.iterations(), received);
    }

    private long drainPhase(
        final SocketChannel accepted, final ByteBuffer scratch, final ByteBuffer ack, final long messages,
        final long receivedBefore) throws IOException, TimeoutException
    {
        long received = receivedBefore;
        for (long w = 0, windows = WindowPlan.windowCount(messages, spec.window()); w < windows; w++)
        {
            final int count = WindowPlan.windowSize(messages, spec.window(), w);
            ChannelIo.drain(accepted, scratch, (long)count * spec.messageBytes(), waitLoop);
            received += count;
            ack.clear();
            ack.putLong(0, received);
            ChannelIo.writeFully(accepted, ack, waitLoop);
        }
        return received;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        waitLoop.abort();
        listener.close();
        Closer.closeQuietly(channel);
    }
}
