// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.verbs4j.config.ClusterSecret;

/**
 * The server half of the TCP store, normally hosted by rank 0 (PyTorch's TCPStore master). Holds the data in an
 * {@link InMemoryStore} and serves the {@link TcpStoreProtocol} with one daemon thread per connection, which lets
 * GET/WAIT block server-side without polling; that suits bootstrap of up to a few hundred ranks.
 *
 * <p>A connection that sends a malformed frame is closed and logged ({@link System.Logger} named after this
 * class, level WARNING); the server keeps serving everyone else. There is no authentication: bind it to an
 * address only the job's hosts can reach.
 *
 * <pre>{@code
 * try (TcpStoreServer server = TcpStoreServer.start(new InetSocketAddress(0)))
 * {
 *     int port = server.port(); // hand this to the other ranks
 * }
 * }</pre>
 */
public final class TcpStoreServer implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(TcpStoreServer.class.getName());

    private final ServerSocket serverSocket;
    private final InMemoryStore data = new InMemoryStore();
    private final Set<TcpStoreSession> sessions = ConcurrentHashMap.newKeySet();
    private final AtomicInteger sessionCounter = new AtomicInteger();
    private final Thread acceptor;
    private final ClusterSecret secret;
    private final AtomicLong authenticationFailures = new AtomicLong();
    private volatile boolean closed;

    private TcpStoreServer(final ServerSocket serverSocket)
    {
        this.serverSocket = serverSocket;
        this.secret = secretOrClose(serverSocket);
        this.acceptor = new Thread(this::acceptLoop, "verbs4j-store-accept-" + serverSocket.getLocalPort());
        this.acceptor.setDaemon(true);
    }

    /**
     * Binds and starts a server.
     *
     * @param bindAddress where to listen; port 0 picks a free port (see {@link #port()}).
     * @return the running server.
     * @throws RendezvousException if the address cannot be bound (for example the port is in use).
     */
    public static TcpStoreServer start(final InetSocketAddress bindAddress)
    {
        if (null == bindAddress)
        {
            throw new IllegalArgumentException("bind address must not be null");
        }
        final ServerSocket socket;
        try
        {
            socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(bindAddress, 128);
        }
        catch (final IOException ex)
        {
            throw new RendezvousException("TcpStore server cannot listen on " + bindAddress + " (" + ex.getMessage() +
                "); pick another MASTER_PORT or stop the process holding it", ex);
        }
        final TcpStoreServer server = new TcpStoreServer(socket);
        server.acceptor.start();
        return server;
    }

    /**
     * The port the server listens on.
     *
     * @return the bound port (useful after binding port 0).
     */
    public int port()
    {
        return serverSocket.getLocalPort();
    }

    /**
     * Number of connections currently being served.
     *
     * @return the count of open sessions.
     */
    public int connectionCount()
    {
        return sessions.size();
    }

    /** Stops accepting, closes every connection and fails their pending waits. Idempotent. */
    @Override
    public void close()
    {
        closed = true;
        try
        {
            serverSocket.close();
        }
        catch (final IOException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "closing TcpStore listener", ex);
        }
        for (final TcpStoreSession session : sessions)
        {
            session.close();
        }
        data.close();
        try
        {
            acceptor.join(1000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Connections refused by authentication (no proof, a wrong one, an unexpected one, or a client that left during
     * the exchange); each is also logged at WARNING with the client's address.
     *
     * @return the count since the server started.
     */
    public long authenticationFailures()
    {
        return authenticationFailures.get();
    }

    void authenticationFailed()
    {
        authenticationFailures.incrementAndGet();
    }

    ClusterSecret secret()
    {
        return secret;
    }

    /** The cluster secret (system properties, then environment); a bad one closes the bound socket and throws. */
    private static ClusterSecret secretOrClose(final ServerSocket serverSocket)
    {
        try
        {
            return ClusterSecret.fromSystem();
        }
        catch (final IllegalArgumentException ex)
        {
            try
            {
                serverSocket.close();
            }
            catch (final IOException closeFailed)
            {
                ex.addSuppressed(closeFailed);
            }
            throw ex;
        }
    }

    void sessionEnded(final TcpStoreSession session)
    {
        sessions.remove(session);
    }

    private void acceptLoop()
    {
        while (!closed)
        {
            try
            {
                final Socket socket = serverSocket.accept();
                socket.setTcpNoDelay(true);
                final TcpStoreSession session = new TcpStoreSession(this, socket, data, LOG);
                sessions.add(session);
                if (closed)
                {
                    session.close();
                    return;
                }
                final Thread thread = new Thread(
                    session, "verbs4j-store-session-" + port() + "-" + sessionCounter.incrementAndGet());
                thread.setDaemon(true);
                thread.start();
            }
            catch (final SocketException ex)
            {
                if (!closed)
                {
                    LOG.log(System.Logger.Level.WARNING, "TcpStore accept failed on port " + port(), ex);
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                // One bad accept must not take the server down: log and keep listening.
                LOG.log(System.Logger.Level.WARNING, "TcpStore accept failed on port " + port() + "; still serving",
                    ex);
            }
        }
    }
}
