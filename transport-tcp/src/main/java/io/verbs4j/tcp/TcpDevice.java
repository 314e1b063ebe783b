// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.Capabilities;
import io.verbs4j.ConnectionManager;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.spi.AbstractDevice;
import io.verbs4j.spi.AbstractProtectionDomain;
import io.verbs4j.spi.Progress;
import io.verbs4j.stat.StatRegistry;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device of the tcp provider: its I/O threads, connection manager and counters. Open it with
 * {@code Verbs.open("tcp")}; cast to read the {@link #counter(TcpCounter) counters}.
 * <p>
 * Progress: on epoll without TLS, polling any completion queue of the device reads and handles the device's
 * sockets on the polling thread (no thread hop): in event mode beside the I/O threads, which read whatever arrives
 * while nobody polls ({@link TcpConfiguration#POLLER_READS_PROP_NAME}, default on), in polling mode with the I/O
 * threads only backing it up. On NIO, under TLS or with poller reads off, the I/O threads do all the socket work and
 * polling drives nothing extra ({@link Progress#NONE}). Threading modes ({@code io.verbs4j.config.ThreadingMode}):
 * {@code SHARED} and {@code INVOKER} are the above (the I/O threads cannot be done without: they accept, shake hands
 * and read while nobody polls; polling mode, {@link TcpConfiguration#MODE_PROP_NAME}{@code =poll}, reduces them to
 * a backstop); {@code DEDICATED} leaves all socket work to the I/O threads (polls only take completions).
 */
public final class TcpDevice extends AbstractDevice
{
    /** What the tcp provider supports: the whole verbs contract, without one-sided offload. */
    public static final Capabilities CAPABILITIES = new Capabilities(
        Capabilities.MSG | Capabilities.RMA_WRITE | Capabilities.RMA_READ | Capabilities.WRITE_IMM |
        Capabilities.ATOMIC | Capabilities.INLINE | Capabilities.INJECT,
        Integer.MAX_VALUE,
        16,
        256,
        16384,
        1 << 20,
        1L << 40,
        TcpConfiguration.MAX_PRIVATE_DATA_LENGTH);

    private final TcpConfiguration configuration;
    private final TcpTls tls;
    private static final AtomicInteger DEVICES = new AtomicInteger();

    private final TcpCounters counters = new TcpCounters();
    private final StatRegistry.Registration stat;
    private final TcpEventLoops eventLoops;
    private final TcpConnectionManager connectionManager;
    /**
     * Frames built on threads other than the I/O threads that fit no connection's {@link TcpFrameSlots}: Netty's
     * shared pool would give each such thread an arena of its own, and each arena a 4 MiB chunk kept for good; this
     * one has a single arena of 64 KiB chunks, so application threads add at most a few small chunks.
     */
    private final io.netty.buffer.ByteBufAllocator offLoopFrames =
        new io.netty.buffer.PooledByteBufAllocator(true, 0, 1, 8192, 3, 0, 0, false);
    private volatile TcpSocketPoller[] polled = new TcpSocketPoller[0];
    private final Progress pollProgress = () ->
    {
        int work = 0;
        for (final TcpSocketPoller poller : polled)
        {
            work += poller.progress();
        }
        return work;
    };

    TcpDevice(final DeviceContext context)
    {
        super(TcpTransportProvider.NAME, CAPABILITIES, context);
        this.configuration = TcpConfiguration.of(context);
        this.tls = configuration.tls() ? TcpTls.of(configuration) : null;
        this.eventLoops = new TcpEventLoops(configuration);
        this.connectionManager = new TcpConnectionManager(this);
        this.stat = StatRegistry.register("tcp device " + DEVICES.incrementAndGet(), counters.source());
    }

    /** {@inheritDoc} */
    public ConnectionManager connectionManager()
    {
        return connectionManager;
    }

    /**
     * @param counter a counter.
     * @return its current value.
     */
    public long counter(final TcpCounter counter)
    {
        return counters.get(counter);
    }

    /** @return the counters. */
    public TcpCounters counters()
    {
        return counters;
    }

    /** @return the settings in force. */
    public TcpConfiguration configuration()
    {
        return configuration;
    }

    /** @return true when the I/O threads use epoll (false: NIO). */
    public boolean isEpoll()
    {
        return eventLoops.isEpoll();
    }

    /** @return the TLS contexts, or null without TLS. */
    TcpTls tls()
    {
        return tls;
    }

    TcpEventLoops eventLoops()
    {
        return eventLoops;
    }

    /** @return the allocator of frames built off the I/O threads. */
    io.netty.buffer.ByteBufAllocator offLoopFrames()
    {
        return offLoopFrames;
    }

    /** {@inheritDoc} */
    protected AbstractProtectionDomain newProtectionDomain()
    {
        return new TcpProtectionDomain(this);
    }

    /** {@inheritDoc} */
    protected Progress progress()
    {
        return eventLoops.isEpoll() && (configuration.pollingMode() || configuration.pollerReads() && null == tls) ?
            pollProgress : Progress.NONE;
    }

    /**
     * A connection whose socket CQ polling drives (polling mode).
     *
     * @param connection the connection.
     */
    synchronized void addPolled(final TcpSocketPoller connection)
    {
        final TcpSocketPoller[] current = polled;
        final TcpSocketPoller[] next = java.util.Arrays.copyOf(current, current.length + 1);
        next[current.length] = connection;
        polled = next;
    }

    /**
     * @param connection a connection given to {@link #addPolled}, now closed.
     */
    synchronized void removePolled(final TcpSocketPoller connection)
    {
        final TcpSocketPoller[] current = polled;
        int kept = 0;
        final TcpSocketPoller[] next = new TcpSocketPoller[current.length];
        for (final TcpSocketPoller c : current)
        {
            if (c != connection)
            {
                next[kept++] = c;
            }
        }
        polled = java.util.Arrays.copyOf(next, kept);
    }

    /** {@inheritDoc} */
    protected void onClose()
    {
        stat.close();
        connectionManager.close();
        eventLoops.shutdown();
    }
}
