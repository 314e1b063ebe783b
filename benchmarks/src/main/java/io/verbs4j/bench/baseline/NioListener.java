// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.WaitLoop;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeoutException;

/**
 * A listening {@link ServerSocketChannel} on an ephemeral port for one NIO session. Accepting polls a non-blocking
 * channel with a backing-off {@link WaitLoop}, so it honours the session timeout.
 */
final class NioListener implements AutoCloseable
{
    private final ServerSocketChannel serverChannel;

    NioListener(final String bindAddress) throws IOException
    {
        serverChannel = ServerSocketChannel.open();
        try
        {
            serverChannel.bind(new InetSocketAddress(InetAddress.getByName(bindAddress), 0), 1);
            serverChannel.configureBlocking(false);
        }
        catch (final IOException ex)
        {
            serverChannel.close();
            throw ex;
        }
    }

    /**
     * The port number, as a string.
     *
     * @return the endpoint.
     * @throws IOException if the channel is closed.
     */
    String endpoint() throws IOException
    {
        return Integer.toString(((InetSocketAddress)serverChannel.getLocalAddress()).getPort());
    }

    /**
     * Accepts the single connection of the session.
     *
     * @param blocking  blocking mode for the accepted channel.
     * @param timeoutMs how long to wait.
     * @return the channel, {@code TCP_NODELAY} on.
     * @throws IOException      if accepting fails.
     * @throws TimeoutException if nobody connected in time.
     */
    SocketChannel accept(final boolean blocking, final long timeoutMs) throws IOException, TimeoutException
    {
        final WaitLoop waitLoop = new WaitLoop(false, timeoutMs);
        waitLoop.reset();
        SocketChannel channel;
        while (null == (channel = serverChannel.accept()))
        {
            waitLoop.idle();
        }
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.configureBlocking(blocking);
        return channel;
    }

    /**
     * Connects to an NIO responder.
     *
     * @param host     the responder's host.
     * @param endpoint its port.
     * @param blocking blocking mode for the channel.
     * @return the connected channel, {@code TCP_NODELAY} on.
     * @throws IOException on failure.
     */
    static SocketChannel connect(final String host, final String endpoint, final boolean blocking) throws IOException
    {
        final int port;
        try
        {
            port = Integer.parseInt(endpoint);
        }
        catch (final NumberFormatException ex)
        {
            throw new IOException("not a TCP port endpoint: '" + endpoint + "'", ex);
        }
        final SocketChannel channel = SocketChannel.open();
        try
        {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.connect(new InetSocketAddress(host, port));
            channel.configureBlocking(blocking);
            return channel;
        }
        catch (final IOException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /**
     * Closes the listener. Idempotent.
     */
    @Override
    public void close()
    {
        Closer.closeQuietly(serverChannel);
    }
}
