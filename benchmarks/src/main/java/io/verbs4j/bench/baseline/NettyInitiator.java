// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.WaitLoop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeoutException;

/**
 * Initiator of the {@code netty} baseline: writes pooled direct buffers from the calling thread and waits (with the
 * session's {@link WaitLoop}) until its event loop has counted the echo or the window's acknowledgement.
 */
final class NettyInitiator extends ChannelInboundHandlerAdapter implements PingPongInitiator, StreamInitiator
{
    private final SessionSpec spec;
    private final EventLoopGroup group;
    private final Channel channel;
    private final WaitLoop waitLoop;
    private volatile long receivedBytes;
    private volatile boolean inactive;
    private long expectedBytes;

    NettyInitiator(final SessionSpec spec, final String peerHost, final String endpoint) throws IOException
    {
        this.spec = spec;
        this.waitLoop = WaitLoop.forSession(spec);
        this.group = NettyTransport.newGroup();
        try
        {
            channel = new Bootstrap()
                .group(group)
                .channel(NettyTransport.channelClass())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(this)
                .connect(new InetSocketAddress(peerHost, Integer.parseInt(endpoint))).syncUninterruptibly().channel();
        }
        catch (final RuntimeException ex)
        {
            NettyTransport.shutdown(group);
            throw new IOException("netty connect failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void roundTrip() throws IOException, TimeoutException
    {
        channel.writeAndFlush(message(), channel.voidPromise());
        expectedBytes += spec.messageBytes();
        await(expectedBytes);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void sendWindow(final int messages) throws IOException, TimeoutException
    {
        for (int i = 0; i < messages; i++)
        {
            channel.write(message(), channel.voidPromise());
        }
        channel.flush();
        expectedBytes += Long.BYTES;
        await(expectedBytes);
    }

    private ByteBuf message()
    {
        final int size = spec.messageBytes();
        return channel.alloc().directBuffer(size, size).writerIndex(size);
    }

    private void await(final long bytes) throws IOException, TimeoutException
    {
        if (receivedBytes >= bytes)
        {
            return;
        }
        waitLoop.reset();
        while (receivedBytes < bytes)
        {
            if (inactive)
            {
                throw new IOException("netty connection closed by the responder");
            }
            waitLoop.idle();
        }
    }

    /**
     * Event loop: counts and releases what arrives.
     *
     * @param ctx the context.
     * @param msg a ByteBuf.
     */
    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final ByteBuf buf = (ByteBuf)msg;
        receivedBytes += buf.readableBytes();
        buf.release();
    }

    /**
     * Event loop: the connection is gone.
     *
     * @param ctx the context.
     */
    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        inactive = true;
    }

    /**
     * Event loop: a failure closes the connection.
     *
     * @param ctx   the context.
     * @param cause what failed.
     */
    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        ctx.close();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        channel.close().awaitUninterruptibly(5_000);
        NettyTransport.shutdown(group);
    }
}
