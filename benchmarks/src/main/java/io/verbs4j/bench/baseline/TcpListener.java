// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeoutException;

/**
 * A listening TCP socket on an ephemeral port for one session: the responder opens it, publishes
 * {@link #endpoint()} (the port number), and accepts exactly one connection with {@code TCP_NODELAY} set.
 */
final class TcpListener implements AutoCloseable
{
    private final ServerSocket serverSocket;

    /**
     * Binds a listener.
     *
     * @param bindAddress local address to bind to.
     * @throws IOException if binding fails.
     */
    TcpListener(final String bindAddress) throws IOException
    {
        serverSocket = new ServerSocket();
        try
        {
            serverSocket.bind(new InetSocketAddress(InetAddress.getByName(bindAddress), 0), 1);
        }
        catch (final IOException ex)
        {
            serverSocket.close();
            throw ex;
        }
    }

    /**
     * The port, as a string: the endpoint TCP initiators connect to.
     *
     * @return the port number.
     */
    String endpoint()
    {
        return Integer.toString(serverSocket.getLocalPort());
    }

    /**
     * Accepts the session's single connection.
     *
     * @param timeoutMs how long to wait for the initiator.
     * @return the connected socket, {@code TCP_NODELAY} on.
     * @throws IOException      if accepting fails or the listener was closed.
     * @throws TimeoutException if nobody connected in time.
     */
    Socket accept(final long timeoutMs) throws IOException, TimeoutException
    {
        serverSocket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, timeoutMs));
        try
        {
            final Socket socket = serverSocket.accept();
            socket.setTcpNoDelay(true);
            return socket;
        }
        catch (final SocketTimeoutException ex)
        {
            throw new TimeoutException("no initiator connected within " + timeoutMs + " ms");
        }
    }

    /**
     * Opens a client connection to a listener, {@code TCP_NODELAY} on.
     *
     * @param host     the responder's host.
     * @param endpoint the responder's endpoint (its port).
     * @return the connected socket.
     * @throws IOException if the connection fails or the endpoint is not a port number.
     */
    static Socket connect(final String host, final String endpoint) throws IOException
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
        final Socket socket = new Socket();
        try
        {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port));
            return socket;
        }
        catch (final IOException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /**
     * Closes the listener (not accepted connections). Idempotent.
     */
    @Override
    public void close()
    {
        Closer.closeQuietly(serverSocket);
    }
}
