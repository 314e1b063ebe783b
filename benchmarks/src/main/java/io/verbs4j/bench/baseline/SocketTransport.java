// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.PingPongTransport;
import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.StreamTransport;
import io.verbs4j.bench.spi.TestKind;

import java.io.IOException;

/**
 * Baseline {@code socket}: plain {@code java.net.Socket} input/output streams over TCP with {@code TCP_NODELAY},
 * heap {@code byte[]} buffers, blocking I/O (no idle strategy involved).
 */
public final class SocketTransport implements PingPongTransport, StreamTransport
{
    /** Largest message this baseline accepts. */
    public static final int MAX_MESSAGE_BYTES = 1 << 30;

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean supports(final TestKind kind, final int messageBytes)
    {
        return messageBytes >= 1 && messageBytes <= MAX_MESSAGE_BYTES;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public Responder openResponder(final SessionSpec spec, final String bindAddress) throws IOException
    {
        return new SocketResponder(spec, new TcpListener(bindAddress));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public PingPongInitiator connectPingPong(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return new SocketPingPongInitiator(spec, TcpListener.connect(peerHost, endpoint));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public StreamInitiator connectStream(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return new SocketStreamInitiator(spec, TcpListener.connect(peerHost, endpoint));
    }
}
