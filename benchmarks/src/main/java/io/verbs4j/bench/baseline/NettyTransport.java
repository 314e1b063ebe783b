// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.PingPongTransport;
import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.StreamTransport;
import io.verbs4j.bench.spi.TestKind;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Baseline {@code netty}: plain Netty 4.2 (the version transport-tcp is built on), epoll where available else NIO,
 * one event-loop thread per side, {@code TCP_NODELAY}, pooled direct buffers. The responder echoes (latency) or
 * counts bytes and writes an 8-byte acknowledgement per window (bandwidth) on its event loop; the initiator writes
 * from the benchmark thread ({@code writeAndFlush} with the void promise, as an application would) and waits for
 * the byte count its event loop publishes. The same pipeline shape as transport-tcp without the verbs protocol, so
 * {@code tcp-send}/{@code tcp-write} divided by {@code netty} is the cost of the verbs layer.
 */
public final class NettyTransport implements PingPongTransport, StreamTransport
{
    /** Largest message. */
    public static final int MAX_MESSAGE_BYTES = 1 << 30;

    /**
     * What the {@code netty} row measures, naming the event loop this JVM gets (epoll, else NIO).
     *
     * @return the description line.
     */
    public static String description()
    {
        return "plain Netty " + (Epoll.isAvailable() ? "epoll" : "NIO") + " echo/stream, TCP_NODELAY, pooled direct " +
            "ByteBufs, one event loop per side";
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
        return new NettyResponder(spec, bindAddress);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public PingPongInitiator connectPingPong(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return new NettyInitiator(spec, peerHost, endpoint);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public StreamInitiator connectStream(final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException
    {
        return new NettyInitiator(spec, peerHost, endpoint);
    }

    static EventLoopGroup newGroup()
    {
        final IoHandlerFactory factory = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(1, factory);
    }

    static Class<? extends Channel> channelClass()
    {
        return Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    static Class<? extends ServerChannel> serverChannelClass()
    {
        return Epoll.isAvailable() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    static void shutdown(final EventLoopGroup group)
    {
        group.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS).awaitUninterruptibly(5_000);
    }
}
