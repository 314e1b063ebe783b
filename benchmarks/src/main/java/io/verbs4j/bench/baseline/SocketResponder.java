// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.WindowPlan;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.TimeoutException;

/**
 * Responder of the {@code socket} baseline: echoes each message (latency) or drains each window and answers with
 * a {@link StreamAck} (bandwidth). Reads time out after {@link SessionSpec#timeoutMs()}.
 */
final class SocketResponder implements Responder
{
    private final SessionSpec spec;
    private final TcpListener listener;
    private volatile Socket socket;

    SocketResponder(final SessionSpec spec, final TcpListener listener)
    {
        this.spec = spec;
        this.listener = listener;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String endpoint()
    {
        return listener.endpoint();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void serve() throws IOException, TimeoutException
    {
        final Socket accepted = listener.accept(spec.timeoutMs());
        socket = accepted;
        listener.close();
        accepted.setSoTimeout((int)Math.min(Integer.MAX_VALUE, spec.timeoutMs()));
        final InputStream in = accepted.getInputStream();
        final OutputStream out = accepted.getOutputStream();
        if (TestKind.LATENCY == spec.kind())
        {
            echo(in, out);
        }
        else
        {
            drainWindows(in, out);
        }
    }

    private void echo(final InputStream in, final OutputStream out) throws IOException
    {
        final int size = spec.messageBytes();
        final byte[] buffer = new byte[size];
        for (long i = 0, total = spec.totalIterations(); i < total; i++)
        {
            StreamIo.readFully(in, buffer, size);
            out.write(buffer, 0, size);
        }
    }

    private void drainWindows(final InputStream in, final OutputStream out) throws IOException
    {
        final byte[] buffer = new byte[Math.min(spec.messageBytes(), 1 << 20)];
        final byte[] ack = new byte[StreamAck.LENGTH];
        long received = 0;
        received = drainPhase(in, out, buffer, ack, spec.warmup(), received);
        drainPhase(in, out, buffer, ack, spec.iterations(), received);
    }

    private long drainPhase(
        final InputStream in, final OutputStream out, final byte[] buffer, final byte[] ack,
        final long messages, final long receivedBefore) throws IOException
    {
        long received = receivedBefore;
        for (long w = 0, windows = WindowPlan.windowCount(messages, spec.window()); w < windows; w++)
        {
            final int count = WindowPlan.windowSize(messages, spec.window(), w);
            StreamIo.drain(in, buffer, (long)count * spec.messageBytes());
            received += count;
            StreamIo.putLong(ack, received);
            out.write(ack, 0, StreamAck.LENGTH);
        }
        return received;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        listener.close();
        Closer.closeQuietly(socket);
    }
}
