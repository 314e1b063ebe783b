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
 * Baselines {@code nio} and {@code nio-poll}: {@link java.nio.channels.SocketChannel} with a direct
 * {@link java.nio.ByteBuffer}, {@code TCP_NODELAY}.
 * <ul>
 *     <li>{@code nio}: blocking channels on both sides.</li>
 *     <li>{@code nio-poll}: non-blocking channels on both sides, polling {@code read()}/{@code write()} with the
 *     session's idle strategy; with {@code --busy-poll} this is the pure busy-poll ping-pong.</li>
 * </ul>
 */
public final class NioTransport implements PingPongTransport, StreamTransport
{
    /** Largest message these baselines accept. */
    public static final int MAX_MESSAGE_BYTES = 1 << 30;

    private final boolean polling;

    /**
     * Creates one of the two NIO baselines.
     *
     * @param polling {@code true} for {@code nio-poll}, {@code false} for blocking {@code nio}.
     */
    public NioTransport(final boolean polling)
    {
        this.polling = polling;
    }

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
        return new NioResponder(spec, new NioListener(bindAddress), !polling);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public PingPongInitiator connectPingPong(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return new NioPingPongInitiator(spec, NioListener.connect(peerHost, endpoint, !polling));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public StreamInitiator connectStream(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return new NioStreamInitiator(spec, NioListener.connect(peerHost, endpoint, !polling));
    }
}
