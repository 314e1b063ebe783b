// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.System.Logger.Level;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.verbs4j.ConnectionException;
import io.verbs4j.ConnectionManager;
import io.verbs4j.Listener;
import io.verbs4j.QueuePair;

/**
 * Connection manager of the tcp provider ({@code librdmacm}'s role over TCP): listen on {@code tcp://host:port},
 * connect with private data, with the handshake of {@link io.verbs4j.tcp.protocol.HandshakeFlyweight}.
 * <p>
 * Binding: a specific host binds that address. A wildcard host binds the configured
 * {@link TcpConfiguration#INTERFACE_PROP_NAME interface}; without one it binds loopback only (and says so in a log
 * line) unless {@link TcpConfiguration#BIND_ANY_PROP_NAME} is true, so nothing listens on a non-loopback address
 * unless asked. Outgoing connections start from the configured interface's address when one is set.
 */
final class TcpConnectionManager implements ConnectionManager
{
    private final TcpDevice device;
    private final Set<TcpListener> listeners = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicBoolean authOffLogged =
        new java.util.concurrent.atomic.AtomicBoolean();

    TcpConnectionManager(final TcpDevice device)
    {
        this.device = device;
    }

    /** {@inheritDoc} */
    public Listener listen(final String endpoint)
    {
        Objects.requireNonNull(endpoint, "endpoint");
        checkOpen();
        final TcpEndpoint parsed = TcpEndpoint.parse(endpoint);
        final InetAddress bindAddress = listenAddress(parsed);
        final ServerBootstrap bootstrap = new ServerBootstrap()
            .group(device.eventLoops().group())
            .channel(device.eventLoops().serverChannel())
            .option(ChannelOption.SO_REUSEADDR, true);
        final TcpListener[] holder = new TcpListener[1];
        bootstrap.childHandler(new ChannelInitializer<SocketChannel>()
        {
            protected void initChannel(final SocketChannel channel)
            {
                if (null != device.tls())
                {
                    channel.pipeline().addLast(device.tls().newHandler(channel.alloc(), false));
                }
                channel.pipeline().addLast(new TcpConnection(device, holder[0]));
            }
        });
        configure(bootstrap, true);
        final ChannelFuture bound = bootstrap.bind(new InetSocketAddress(bindAddress, parsed.port()));
        bound.awaitUninterruptibly();
        if (!bound.isSuccess())
        {
            checkOpen(); // closed meanwhile: Netty's RejectedExecutionException would not say so
            throw new ConnectionException("cannot listen on " + endpoint + " (" + bindAddress.getHostAddress() + "): " +
                bound.cause(), bound.cause());
        }
        final InetSocketAddress local = (InetSocketAddress)bound.channel().localAddress();
        if (!local.getAddress().isLoopbackAddress() && !device.configuration().secret().isConfigured() &&
            authOffLogged.compareAndSet(false, true))
        {
            TcpConnection.LOG.log(Level.INFO, "verbs4j tcp: listening on " + local + " without authentication: " +
                "any host that reaches it may connect; set " + io.verbs4j.config.ClusterSecret.FILE_PROP_NAME +
                " (or " + io.verbs4j.config.ClusterSecret.FILE_ENV_NAME + ") to require the cluster secret");
        }
        final TcpListener listener = new TcpListener(this, TcpEndpoint.format(
            local.getAddress().getHostAddress(), local.getPort()));
        holder[0] = listener;
        listener.bind(bound.channel());
        listeners.add(listener);
        return listener;
    }

    /** {@inheritDoc} */
    public byte[] connect(final QueuePair qp, final String endpoint, final byte[] privateData, final Duration timeout)
    {
        Objects.requireNonNull(qp, "qp");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(timeout, "timeout");
        checkOpen();
        final TcpQueuePair queuePair = own(qp, device);
        queuePair.ensureConnectable();
        checkPrivateData(privateData);
        final TcpEndpoint parsed = TcpEndpoint.parse(endpoint);
        final long deadline = System.nanoTime() + timeout.toNanos();
        final InetSocketAddress remote;
        try
        {
            remote = new InetSocketAddress(InetAddress.getByName(parsed.isWildcard() ? "127.0.0.1" : parsed.host()),
                parsed.port());
        }
        catch (final UnknownHostException ex)
        {
            throw new ConnectionException("cannot resolve " + endpoint + ": " + ex.getMessage(), ex);
        }
        final CompletableFuture<byte[]> answer = new CompletableFuture<>();
        final TcpConnection connection = new TcpConnection(device, queuePair,
            null == privateData ? new byte[0] : privateData.clone(), answer);
        final Bootstrap bootstrap = new Bootstrap()
            .group(device.eventLoops().group())
            .channel(device.eventLoops().socketChannel())
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)Math.max(1, Math.min(Integer.MAX_VALUE,
                timeout.toMillis())))
            .handler(new ChannelInitializer<SocketChannel>()
            {
                protected void initChannel(final SocketChannel channel)
                {
                    if (null != device.tls())
                    {
                        channel.pipeline().addLast(device.tls().newHandler(channel.alloc(), true));
                    }
                    channel.pipeline().addLast(connection);
                }
            });
        configure(bootstrap, false);
        final String networkInterface = device.configuration().networkInterface();
        final ChannelFuture connected = networkInterface.isEmpty() ? bootstrap.connect(remote) :
            bootstrap.connect(remote, new InetSocketAddress(interfaceAddress(networkInterface), 0));
        final Channel channel = connected.channel();
        try
        {
            if (!connected.awaitUninterruptibly(remainingMs(deadline)) || !connected.isSuccess())
            {
                throw new ConnectionException("cannot connect to " + endpoint + ": " +
                    (connected.isDone() ? String.valueOf(connected.cause()) : "timed out after " + timeout));
            }
            return answer.get(remainingMs(deadline), TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            answer.completeExceptionally(ex);
            throw new ConnectionException("no answer from " + endpoint + " within " + timeout);
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof ConnectionException)
            {
                throw new ConnectionException(ex.getCause().getMessage(), ex.getCause());
            }
            throw new ConnectionException("connecting to " + endpoint + " failed: " + ex.getCause(), ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            answer.completeExceptionally(ex);
            throw new ConnectionException("interrupted while connecting to " + endpoint, ex);
        }
        catch (final ConnectionException ex)
        {
            answer.completeExceptionally(ex);
            throw ex;
        }
        finally
        {
            if (!answer.isDone() || answer.isCompletedExceptionally())
            {
                channel.close();
            }
        }
    }

    void close()
    {
        for (final TcpListener listener : new ArrayList<>(listeners))
        {
            listener.close();
        }
    }

    void removeListener(final TcpListener listener)
    {
        listeners.remove(listener);
    }

    static TcpQueuePair own(final QueuePair qp, final TcpDevice device)
    {
        if (!(qp instanceof TcpQueuePair) || qp.protectionDomain().device() != device)
        {
            throw new IllegalArgumentException("the queue pair belongs to another device; create it from a " +
                "protection domain of this device");
        }
        return (TcpQueuePair)qp;
    }

    static void checkPrivateData(final byte[] privateData)
    {
        if (null != privateData && privateData.length > TcpConfiguration.MAX_PRIVATE_DATA_LENGTH)
        {
            throw new IllegalArgumentException("private data of " + privateData.length + " bytes; at most " +
                TcpConfiguration.MAX_PRIVATE_DATA_LENGTH);
        }
    }

    private void configure(final AbstractBootstrap<?, ?> bootstrap, final boolean server)
    {
        final TcpConfiguration configuration = device.configuration();
        final WriteBufferWaterMark waterMark = new WriteBufferWaterMark(
            configuration.writeHighWaterMark() / 2, configuration.writeHighWaterMark());
        if (server)
        {
            final ServerBootstrap serverBootstrap = (ServerBootstrap)bootstrap;
            serverBootstrap.childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark);
            if (configuration.socketBufferBytes() > 0)
            {
                serverBootstrap.childOption(ChannelOption.SO_SNDBUF, configuration.socketBufferBytes())
                    .childOption(ChannelOption.SO_RCVBUF, configuration.socketBufferBytes());
            }
        }
        else
        {
            bootstrap.option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark);
            if (configuration.socketBufferBytes() > 0)
            {
                bootstrap.option(ChannelOption.SO_SNDBUF, configuration.socketBufferBytes())
                    .option(ChannelOption.SO_RCVBUF, configuration.socketBufferBytes());
            }
        }
    }

    private InetAddress listenAddress(final TcpEndpoint endpoint)
    {
        final TcpConfiguration configuration = device.configuration();
        try
        {
            if (!endpoint.isWildcard())
            {
                return InetAddress.getByName(endpoint.host());
            }
            if (!configuration.networkInterface().isEmpty())
            {
                return interfaceAddress(configuration.networkInterface());
            }
            if (configuration.bindAny())
            {
                return InetAddress.getByName("::".equals(endpoint.host()) ? "::" : "0.0.0.0");
            }
        }
        catch (final UnknownHostException ex)
        {
            throw new ConnectionException("cannot resolve " + endpoint.host() + ": " + ex.getMessage(), ex);
        }
        TcpConnection.LOG.log(Level.WARNING, "verbs4j tcp: wildcard endpoint tcp://" + endpoint.host() + ":" +
            endpoint.port() + " listens on loopback only; set " + TcpConfiguration.INTERFACE_PROP_NAME +
            "=<name|address> or " + TcpConfiguration.BIND_ANY_PROP_NAME + "=true to accept remote peers");
        return InetAddress.getLoopbackAddress();
    }

    /**
     * Resolves an interface given by name or by one of its addresses.
     *
     * @param spec name ({@code eth0}) or address.
     * @return its first IPv4 address (else its first address).
     * @throws ConnectionException listing the interfaces if none matches.
     */
    static InetAddress interfaceAddress(final String spec)
    {
        try
        {
            final NetworkInterface byName = NetworkInterface.getByName(spec);
            if (null != byName)
            {
                final List<InetAddress> addresses = Collections.list(byName.getInetAddresses());
                for (final InetAddress address : addresses)
                {
                    if (address instanceof Inet4Address)
                    {
                        return address;
                    }
                }
                if (!addresses.isEmpty())
                {
                    return addresses.get(0);
                }
                throw new ConnectionException("interface " + spec + " has no address");
            }
            if (Character.digit(spec.charAt(0), 16) >= 0 || spec.indexOf(':') >= 0)
            {
                final InetAddress address = InetAddress.getByName(spec);
                if (null != NetworkInterface.getByInetAddress(address))
                {
                    return address;
                }
            }
            final List<String> names = new ArrayList<>();
            for (final NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces()))
            {
                names.add(nic.getName());
            }
            throw new ConnectionException(TcpConfiguration.INTERFACE_PROP_NAME + "=" + spec +
                " names no interface or local address; interfaces here: " + names);
        }
        catch (final SocketException | UnknownHostException ex)
        {
            throw new ConnectionException("cannot resolve interface " + spec + ": " + ex.getMessage(), ex);
        }
    }

    private static long remainingMs(final long deadline)
    {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    private void checkOpen()
    {
        if (device.isClosed())
        {
            throw new IllegalStateException("device '" + device.name() + "' is closed; open a new device to " +
                "listen or connect");
        }
    }
}
