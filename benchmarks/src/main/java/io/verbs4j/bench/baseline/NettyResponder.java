// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.WindowPlan;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Responder of the {@code netty} baseline; all work happens on its event loop, {@link #serve()} only waits for the
 * session to end.
 */
final class NettyResponder implements Responder
{
    private final SessionSpec spec;
    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Throwable failure;
    private volatile boolean closed;

    NettyResponder(final SessionSpec spec, final String bindAddress) throws IOException
    {
        this.spec = spec;
        this.group = NettyTransport.newGroup();
        try
        {
            serverChannel = new ServerBootstrap()
                .group(group)
                .channel(NettyTransport.serverChannelClass())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(TestKind.LATENCY == spec.kind() ? new Echo() : new Sink())
                .bind(new InetSocketAddress(bindAddress, 0)).syncUninterruptibly().channel();
        }
        catch (final RuntimeException ex)
        {
            NettyTransport.shutdown(group);
            throw new IOException("netty bind failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String endpoint()
    {
        return Integer.toString(((InetSocketAddress)serverChannel.localAddress()).getPort());
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void serve() throws IOException, TimeoutException
    {
        try
        {
            while (!done.await(100, TimeUnit.MILLISECONDS))
            {
                if (closed)
                {
                    throw new TimeoutException("responder closed");
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", ex);
        }
        if (null != failure)
        {
            throw new IOException("netty responder failed: " + failure.getMessage(), failure);
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        closed = true;
        serverChannel.close();
        NettyTransport.shutdown(group);
    }

    private void fail(final Throwable cause)
    {
        failure = cause;
        done.countDown();
    }

    /**
     * Echoes every byte back (ownership of each buffer passes to the write), flushing once per read batch.
     */
    private final class Echo extends ChannelInboundHandlerAdapter
    {
        private final long totalBytes = spec.totalIterations() * spec.messageBytes();
        private long echoed;

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            echoed += ((ByteBuf)msg).readableBytes();
            ctx.write(msg, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(final ChannelHandlerContext ctx)
        {
            ctx.flush();
            if (echoed >= totalBytes)
            {
                done.countDown();
            }
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx)
        {
            if (echoed < totalBytes)
            {
                fail(new IOException("initiator closed after " + echoed + " of " + totalBytes + " bytes"));
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            fail(cause);
            ctx.close();
        }
    }

    /**
     * Counts and drops bytes; writes the cumulative message count (8 bytes) at the end of each window of
     * {@link WindowPlan} (warm-up windows, then timed ones).
     */
    private final class Sink extends ChannelInboundHandlerAdapter
    {
        private final long size = spec.messageBytes();
        private long receivedBytes;
        private long boundaryMessages;
        private int phase;
        private long windowIndex;
        private boolean finished;

        Sink()
        {
            advance();
        }

        private void advance()
        {
            while (phase < 2)
            {
                final long messages = 0 == phase ? spec.warmup() : spec.iterations();
                if (windowIndex < WindowPlan.windowCount(messages, spec.window()))
                {
                    boundaryMessages += WindowPlan.windowSize(messages, spec.window(), windowIndex++);
                    return;
                }
                phase++;
                windowIndex = 0;
            }
            finished = true;
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            final ByteBuf buf = (ByteBuf)msg;
            receivedBytes += buf.readableBytes();
            buf.release();
            while (!finished && receivedBytes >= boundaryMessages * size)
            {
                ctx.write(ctx.alloc().directBuffer(Long.BYTES).writeLong(boundaryMessages), ctx.voidPromise());
                advance();
            }
        }

        @Override
        public void channelReadComplete(final ChannelHandlerContext ctx)
        {
            ctx.flush();
            if (finished)
            {
                done.countDown();
            }
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx)
        {
            if (!finished)
            {
                fail(new IOException("initiator closed after " + receivedBytes + " bytes"));
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            fail(cause);
            ctx.close();
        }
    }
}
