// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.verbs4j.config.ClusterSecret;
import io.verbs4j.spi.ChallengeResponse;

/**
 * Client of a {@link TcpStoreServer} (the torchrun-style store: rank 0 hosts, everyone connects to
 * {@code MASTER_ADDR:MASTER_PORT}). Speaks {@link TcpStoreProtocol} over one connection; requests from several
 * threads are serialised on it.
 *
 * <p>A connection that fails (server gone, protocol error) is not re-established: every later call throws
 * {@link RendezvousException}, because bootstrap state on a restarted server would be lost anyway.
 *
 * <pre>{@code
 * try (TcpStore store = rank == 0 ? TcpStore.host(new InetSocketAddress(port), timeout)
 *                                 : TcpStore.connect(new InetSocketAddress(masterAddr, port), timeout))
 * {
 *     store.set("rank/" + rank, payload);
 * }
 * }</pre>
 */
public final class TcpStore implements RendezvousStore
{
    /** Extra time allowed on top of a request's own wait before the server is declared unresponsive. */
    public static final Duration RESPONSE_GRACE = Duration.ofSeconds(10);

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final TcpStoreServer ownedServer;
    private final InetSocketAddress serverAddress;
    private final ByteBuffer requestHeader = TcpStoreProtocol.newRequestHeader();
    private final ByteBuffer responseHeader = TcpStoreProtocol.newResponseHeader();
    private boolean broken;
    private volatile boolean closed;

    private TcpStore(final Socket socket, final InetSocketAddress serverAddress, final TcpStoreServer ownedServer)
        throws IOException
    {
        this.socket = socket;
        this.serverAddress = serverAddress;
        this.ownedServer = ownedServer;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new BufferedOutputStream(socket.getOutputStream());
    }

    /**
     * Connects to a running server, retrying with backoff until it accepts or the timeout passes (the server's
     * rank may start later than this one).
     *
     * @param serverAddress the server's address.
     * @param timeout       how long to keep trying, positive.
     * @return a connected store.
     * @throws RendezvousTimeoutException if no connection could be made in time (the "key" is the address).
     */
    public static TcpStore connect(final InetSocketAddress serverAddress, final Duration timeout)
    {
        return connect(serverAddress, timeout, null);
    }

    /**
     * Starts a server on {@code bindAddress} and connects to it; closing the store also stops the server.
     *
     * @param bindAddress where the server listens (port 0 picks a free one: see {@link #serverPort()}).
     * @param timeout     how long to try connecting to it, positive.
     * @return a store whose server lives as long as it does.
     * @throws RendezvousException if the address cannot be bound.
     */
    public static TcpStore host(final InetSocketAddress bindAddress, final Duration timeout)
    {
        final TcpStoreServer server = TcpStoreServer.start(bindAddress);
        try
        {
            final String host = bindAddress.getAddress() == null || bindAddress.getAddress().isAnyLocalAddress() ?
                "127.0.0.1" : bindAddress.getAddress().getHostAddress();
            return connect(new InetSocketAddress(host, server.port()), timeout, server);
        }
        catch (final RuntimeException ex)
        {
            server.close();
            throw ex;
        }
    }

    private static TcpStore connect(
        final InetSocketAddress serverAddress, final Duration timeout, final TcpStoreServer ownedServer)
    {
        if (null == serverAddress)
        {
            throw new IllegalArgumentException("server address must not be null");
        }
        StoreArguments.timeout(timeout);
        final ClusterSecret secret = ClusterSecret.fromSystem();
        final long deadlineNs = System.nanoTime() + StoreArguments.timeoutNs(timeout);
        long sleepMs = 10;
        IOException last = null;
        while (System.nanoTime() - deadlineNs < 0)
        {
            final Socket socket = new Socket();
            try
            {
                final long remainingMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
                socket.connect(serverAddress, (int)Math.min(Integer.MAX_VALUE, remainingMs));
                socket.setTcpNoDelay(true);
                final TcpStore store = new TcpStore(socket, serverAddress, ownedServer);
                if (secret.isConfigured())
                {
                    store.authenticate(secret);
                }
                return store;
            }
            catch (final IOException ex)
            {
                last = ex;
                closeQuietly(socket);
            }
            try
            {
                Thread.sleep(sleepMs);
            }
            catch (final InterruptedException ex)
            {
                throw StoreArguments.interrupted("connecting to TcpStore at " + serverAddress, ex);
            }
            sleepMs = Math.min(sleepMs * 2, 200);
        }
        final RendezvousTimeoutException timeoutEx =
            new RendezvousTimeoutException(List.of("tcp://" + serverAddress), timeout);
        if (null != last)
        {
            timeoutEx.addSuppressed(last);
        }
        throw timeoutEx;
    }

    /**
     * The client's side of the challenge-response ({@link TcpStoreProtocol}): proves the secret only after the server
     * proved it. A refusal closes the socket and throws (never retried: a wrong secret does not get better).
     */
    private void authenticate(final ClusterSecret secret) throws IOException
    {
        final ChallengeResponse challengeResponse = new ChallengeResponse(secret, TcpStoreProtocol.AUTH_CONTEXT);
        final byte[] nonce = ChallengeResponse.newNonce();
        try
        {
            socket.setSoTimeout((int)RESPONSE_GRACE.toMillis());
            final byte[] challenge = authRequest(TcpStoreProtocol.OP_AUTH_HELLO, nonce);
            if (ChallengeResponse.CHALLENGE_LENGTH != challenge.length)
            {
                throw new RendezvousException("TcpStore server " + serverAddress + " sent a bad authentication " +
                    "challenge of " + challenge.length + " bytes");
            }
            final byte[] answer = challengeResponse.answer(challenge, nonce);
            if (null == answer)
            {
                throw new RendezvousException("authentication failed: the TcpStore server " + serverAddress +
                    " did not prove the cluster secret (secret mismatch?)");
            }
            authRequest(TcpStoreProtocol.OP_AUTH_RESPONSE, answer);
        }
        catch (final RuntimeException | IOException ex)
        {
            closeQuietly(socket);
            if (ex instanceof IOException)
            {
                throw new RendezvousException("authentication with the TcpStore server " + serverAddress +
                    " failed: " + ex, ex);
            }
            throw ex;
        }
    }

    private byte[] authRequest(final byte opcode, final byte[] value) throws IOException
    {
        TcpStoreProtocol.encodeRequestHeader(requestHeader, opcode, 0, value.length, 0);
        out.write(requestHeader.array(), 0, TcpStoreProtocol.REQUEST_HEADER_LENGTH);
        out.write(value);
        out.flush();
        return readResponse().value;
    }

    /** Reads one response; throws for a malformed one and for an authentication refusal. */
    private Response readResponse() throws IOException
    {
        in.readFully(responseHeader.array(), 0, TcpStoreProtocol.RESPONSE_HEADER_LENGTH);
        final String problem = TcpStoreProtocol.validateResponseHeader(responseHeader);
        if (null != problem)
        {
            broken = true;
            throw new RendezvousException("TcpStore server " + serverAddress + " sent a bad response: " + problem);
        }
        final byte[] responseValue = new byte[responseHeader.getInt(TcpStoreProtocol.RESPONSE_VALUE_LENGTH_OFFSET)];
        in.readFully(responseValue);
        final byte status = responseHeader.get(TcpStoreProtocol.STATUS_OFFSET);
        if (TcpStoreProtocol.STATUS_AUTH_FAILED == status)
        {
            broken = true;
            throw new RendezvousException("authentication failed: the TcpStore server " + serverAddress +
                " refused this client: " + new String(responseValue, StandardCharsets.UTF_8));
        }
        return new Response(status, responseValue, responseHeader.getLong(TcpStoreProtocol.RESPONSE_ARGUMENT_OFFSET));
    }

    /**
     * Port of the server this store hosts.
     *
     * @return the hosted server's port, or -1 if this store only connected to someone else's.
     */
    public int serverPort()
    {
        return null == ownedServer ? -1 : ownedServer.port();
    }

    /** {@inheritDoc} */
    @Override
    public void set(final String key, final byte[] value)
    {
        StoreArguments.value(value);
        if (value.length > TcpStoreProtocol.MAX_VALUE_LENGTH)
        {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the TcpStore limit of " +
                TcpStoreProtocol.MAX_VALUE_LENGTH + "; exchange large data over a transport, not the store");
        }
        request(TcpStoreProtocol.OP_SET, key, value, 0, null);
    }

    /** {@inheritDoc} */
    @Override
    public byte[] get(final String key, final Duration timeout)
    {
        StoreArguments.timeout(timeout);
        final Response response = request(TcpStoreProtocol.OP_GET, key, null, waitMs(timeout), timeout);
        if (TcpStoreProtocol.STATUS_TIMEOUT == response.status)
        {
            throw new RendezvousTimeoutException(List.of(key), timeout);
        }
        return response.value;
    }

    /** {@inheritDoc} */
    @Override
    public void waitFor(final Collection<String> keys, final Duration timeout)
    {
        StoreArguments.keys(keys);
        StoreArguments.timeout(timeout);
        final long deadlineNs = System.nanoTime() + StoreArguments.timeoutNs(timeout);
        for (final String key : keys)
        {
            final long remainingNs = deadlineNs - System.nanoTime();
            final Duration remaining = Duration.ofNanos(Math.max(remainingNs, TimeUnit.MILLISECONDS.toNanos(1)));
            final Response response = request(TcpStoreProtocol.OP_WAIT, key, null, waitMs(remaining), remaining);
            if (TcpStoreProtocol.STATUS_TIMEOUT == response.status)
            {
                throw new RendezvousTimeoutException(missing(keys), timeout);
            }
        }
    }

    /** {@inheritDoc} */
    @Override
    public long add(final String key, final long delta)
    {
        return request(TcpStoreProtocol.OP_ADD, key, null, delta, null).argument;
    }

    /** {@inheritDoc} */
    @Override
    public boolean check(final Collection<String> keys)
    {
        return missing(StoreArguments.keys(keys)).isEmpty();
    }

    /** {@inheritDoc} */
    @Override
    public boolean delete(final String key)
    {
        return 1 == request(TcpStoreProtocol.OP_DELETE, key, null, 0, null).argument;
    }

    /** {@inheritDoc} */
    @Override
    public void close()
    {
        closed = true;
        closeQuietly(socket);
        if (null != ownedServer)
        {
            ownedServer.close();
        }
    }

    private List<String> missing(final Collection<String> keys)
    {
        final List<String> missing = new ArrayList<>();
        for (final String key : keys)
        {
            if (0 == request(TcpStoreProtocol.OP_CHECK, key, null, 0, null).argument)
            {
                missing.add(key);
            }
        }
        return missing;
    }

    private synchronized Response request(
        final byte opcode, final String key, final byte[] value, final long argument, final Duration wait)
    {
        final byte[] keyBytes = StoreArguments.key(key).getBytes(StandardCharsets.UTF_8);
        if (closed)
        {
            throw new IllegalStateException("TcpStore client for " + serverAddress + " is closed");
        }
        if (broken)
        {
            throw new RendezvousException("TcpStore connection to " + serverAddress + " failed earlier; " +
                "create a new store (the server may have stopped)");
        }
        final int valueLength = null == value ? 0 : value.length;
        try
        {
            final long readTimeoutMs = RESPONSE_GRACE.toMillis() + (null == wait ? 0 : waitMs(wait));
            socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, readTimeoutMs));
            TcpStoreProtocol.encodeRequestHeader(requestHeader, opcode, keyBytes.length, valueLength, argument);
            out.write(requestHeader.array(), 0, TcpStoreProtocol.REQUEST_HEADER_LENGTH);
            out.write(keyBytes);
            if (null != value)
            {
                out.write(value);
            }
            out.flush();

            final Response response = readResponse();
            if (TcpStoreProtocol.STATUS_BAD_REQUEST == response.status)
            {
                throw new IllegalArgumentException(new String(response.value, StandardCharsets.UTF_8));
            }
            return response;
        }
        catch (final SocketTimeoutException ex)
        {
            broken = true;
            throw new RendezvousException("TcpStore server " + serverAddress + " did not answer within " +
                RESPONSE_GRACE.toSeconds() + " s beyond the request's wait; is it overloaded or stopped?", ex);
        }
        catch (final IOException ex)
        {
            broken = true;
            if (closed)
            {
                throw new IllegalStateException("TcpStore client for " + serverAddress + " is closed", ex);
            }
            throw new RendezvousException("TcpStore connection to " + serverAddress + " failed: " + ex, ex);
        }
    }

    private static long waitMs(final Duration wait)
    {
        final long ms = TimeUnit.NANOSECONDS.toMillis(StoreArguments.timeoutNs(wait));
        return Math.max(1, Math.min(ms, TcpStoreProtocol.MAX_WAIT_MS));
    }

    private static void closeQuietly(final Socket socket)
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignored)
        {
            // Closing is best effort; nothing more can be done with a socket that fails to close.
        }
    }

    /** One decoded response. */
    private static final class Response
    {
        final byte status;
        final byte[] value;
        final long argument;

        Response(final byte status, final byte[] value, final long argument)
        {
            this.status = status;
            this.value = value;
            this.argument = argument;
        }
    }
}
