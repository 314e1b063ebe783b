// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * The I/O threads of a device: a Netty 4.2 {@link MultiThreadIoEventLoopGroup} with the epoll handler where
 * available (NIO otherwise). They sleep in epoll/select in event mode, and in polling mode on epoll too (there the
 * application's completion-queue polling reads the sockets, see {@link TcpDevice}); polling mode on NIO busy-polls
 * ({@code selectNow} in a loop). The threads are Netty {@code FastThreadLocalThread}s, on which Netty 4.2 recycles
 * pooled buffers and outbound entries (on plain threads it allocates new ones).
 */
final class TcpEventLoops
{
    private final EventLoopGroup group;
    private final boolean epoll;

    TcpEventLoops(final TcpConfiguration configuration)
    {
        final String transport = configuration.transport();
        if ("epoll".equals(transport) && !Epoll.isAvailable())
        {
            throw new IllegalStateException(TcpConfiguration.TRANSPORT_PROP_NAME + "=epoll but epoll is not " +
                "available here: " + Epoll.unavailabilityCause());
        }
        epoll = !"nio".equals(transport) && Epoll.isAvailable();
        // Polling mode on epoll: the application's CQ polling drives the sockets, the loops sleep (no second spinner);
        // on NIO the loops spin. Event mode: a loop that read bulk data keeps polling a little (TcpReadSpin).
        final long readSpinNs = configuration.ioReadSpinNs();
        final SelectStrategyFactory strategy;
        if (configuration.pollingMode())
        {
            strategy = epoll ? DefaultSelectStrategyFactory.INSTANCE : TcpEventLoops::spinOnSelectNow;
        }
        else
        {
            strategy = readSpinNs > 0 ? () -> new TcpReadSpin(readSpinNs, System::nanoTime) :
                DefaultSelectStrategyFactory.INSTANCE;
        }
        final IoHandlerFactory handler = epoll ? EpollIoHandler.newFactory(0, strategy) :
            NioIoHandler.newFactory(SelectorProvider.provider(), strategy);
        group = new MultiThreadIoEventLoopGroup(configuration.ioThreads(), threadFactory(), handler);
    }

    private static SelectStrategy spinOnSelectNow()
    {
        // NIO has no BUSY_WAIT: polling mode spins on selectNow().
        return (selectSupplier, hasTasks) -> selectSupplier.get();
    }

    private static ThreadFactory threadFactory()
    {
        final AtomicInteger count = new AtomicInteger();
        return runnable ->
        {
            // A FastThreadLocalThread: Netty 4.2 recycles pooled buffers and outbound entries on these only.
            final Thread thread = new io.netty.util.concurrent.FastThreadLocalThread(runnable,
                "verbs4j-tcp-io-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** @return the event loops. */
    EventLoopGroup group()
    {
        return group;
    }

    /** @return true when the epoll transport is used. */
    boolean isEpoll()
    {
        return epoll;
    }

    /** @return the socket channel class. */
    Class<? extends SocketChannel> socketChannel()
    {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** @return the server channel class. */
    Class<? extends ServerChannel> serverChannel()
    {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /**
     * Stops the I/O threads. First every loop runs what is already queued (the orderly DISCONNECTs of the queue
     * pairs just closed: Netty closes channels before it runs leftover tasks), then the loops shut down; each wait is
     * bounded.
     */
    void shutdown()
    {
        for (final io.netty.util.concurrent.EventExecutor loop : group)
        {
            try
            {
                loop.submit(() -> { }).awaitUninterruptibly(1, TimeUnit.SECONDS);
            }
            catch (final java.util.concurrent.RejectedExecutionException ignore)
            {
                // Already shutting down.
            }
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
