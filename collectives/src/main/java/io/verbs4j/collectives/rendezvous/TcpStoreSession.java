// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.verbs4j.spi.ChallengeResponse;

/**
 * One client connection of a {@link TcpStoreServer}: reads a request, applies it to the shared data, writes the
 * response, until the peer disconnects, sends garbage, or the server closes. Runs on its own thread.
 */
final class TcpStoreSession implements Runnable
{
    private static final byte[] EMPTY = new byte[0];
    /** A blocking GET or WAIT looks at its client this often, so a client that left frees its session soon. */
    private static final long CLIENT_CHECK_MS = 200;

    private final TcpStoreServer server;
    private final Socket socket;
    private final InMemoryStore data;
    private final System.Logger log;
    private final SocketAddress remote;

    TcpStoreSession(
        final TcpStoreServer server, final Socket socket, final InMemoryStore data, final System.Logger log)
    {
        this.server = server;
        this.socket = socket;
        this.data = data;
        this.log = log;
        this.remote = socket.getRemoteSocketAddress();
    }

    @Override
    public void run()
    {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            OutputStream out = new BufferedOutputStream(socket.getOutputStream()))
        {
            final ByteBuffer header = TcpStoreProtocol.newRequestHeader();
            final ByteBuffer responseHeader = TcpStoreProtocol.newResponseHeader();
            if (server.secret().isConfigured() && !authenticate(in, out, header, responseHeader))
            {
                return;
            }
            while (true)
            {
                if (!readHeader(in, header.array()))
                {
                    return; // clean disconnect between requests
                }
                final String problem = TcpStoreProtocol.validateRequestHeader(header);
                if (null != problem)
                {
                    log.log(System.Logger.Level.WARNING,
                        "TcpStore: closing connection from " + remote + ": " + problem);
                    return;
                }
                if (TcpStoreProtocol.isAuthentication(header.get(TcpStoreProtocol.OPCODE_OFFSET)))
                {
                    if (!server.secret().isConfigured())
                    {
                        refuse(in, out, responseHeader,
                            "the client uses a cluster secret and this store server has none");
                    }
                    else
                    {
                        log.log(System.Logger.Level.WARNING, "TcpStore: closing connection from " + remote +
                            ": authentication request after authentication");
                    }
                    return;
                }
                final byte[] keyBytes = new byte[header.getInt(TcpStoreProtocol.KEY_LENGTH_OFFSET)];
                in.readFully(keyBytes);
                final byte[] value = new byte[header.getInt(TcpStoreProtocol.REQUEST_VALUE_LENGTH_OFFSET)];
                in.readFully(value);
                final String key = new String(keyBytes, StandardCharsets.UTF_8);
                if (!handle(header, key, value, in, out, responseHeader))
                {
                    return;
                }
            }
        }
        catch (final EOFException ex)
        {
            log.log(System.Logger.Level.WARNING, "TcpStore: connection from " + remote + " ended inside a frame");
        }
        catch (final IOException ex)
        {
            log.log(System.Logger.Level.DEBUG, "TcpStore: connection from " + remote + " closed: " + ex);
        }
        catch (final IllegalStateException ex)
        {
            log.log(System.Logger.Level.DEBUG, "TcpStore: server closing, dropping " + remote);
        }
        finally
        {
            close();
            server.sessionEnded(this);
        }
    }

    /**
     * The server's side of the challenge-response ({@link TcpStoreProtocol}, {@link ChallengeResponse}); refuses
     * (logged, counted, answered with {@link TcpStoreProtocol#STATUS_AUTH_FAILED}) a client that does not prove the
     * secret.
     *
     * @return true if the client proved the secret; false if the connection must close.
     */
    private boolean authenticate(
        final DataInputStream in, final OutputStream out, final ByteBuffer header, final ByteBuffer responseHeader)
        throws IOException
    {
        if (!readHeader(in, header.array()))
        {
            log.log(System.Logger.Level.DEBUG, "TcpStore: " + remote + " closed before authenticating");
            return false;
        }
        final byte[] clientNonce = readAuthValue(in, out, header, responseHeader, TcpStoreProtocol.OP_AUTH_HELLO);
        if (null == clientNonce)
        {
            return false;
        }
        final ChallengeResponse challengeResponse =
            new ChallengeResponse(server.secret(), TcpStoreProtocol.AUTH_CONTEXT);
        final byte[] nonce = ChallengeResponse.newNonce();
        respond(out, responseHeader, TcpStoreProtocol.STATUS_OK, challengeResponse.challenge(nonce, clientNonce));
        if (!readHeader(in, header.array()))
        {
            log.log(System.Logger.Level.WARNING, "TcpStore: refusing " + remote + ": authentication failed: " +
                "the client closed the connection during authentication (did it refuse this server's proof?)");
            server.authenticationFailed(); // after the log line: whoever sees the count can see the line
            return false;
        }
        final byte[] proof = readAuthValue(in, out, header, responseHeader, TcpStoreProtocol.OP_AUTH_RESPONSE);
        if (null == proof)
        {
            return false;
        }
        if (!challengeResponse.verify(proof, clientNonce, nonce, ChallengeResponse.ROLE_CONNECTOR))
        {
            refuse(in, out, responseHeader, "the client did not prove the cluster secret (secret mismatch, or a " +
                "proof from another session)");
            return false;
        }
        respond(out, responseHeader, TcpStoreProtocol.STATUS_OK, EMPTY);
        return true;
    }

    /** @return the value of an authentication request of the expected opcode, or null after refusing. */
    private byte[] readAuthValue(
        final DataInputStream in,
        final OutputStream out,
        final ByteBuffer header,
        final ByteBuffer responseHeader,
        final byte expected) throws IOException
    {
        final String problem = TcpStoreProtocol.validateRequestHeader(header);
        if (null != problem)
        {
            refuse(in, out, responseHeader, "malformed request during authentication: " + problem);
            return null;
        }
        if (expected != header.get(TcpStoreProtocol.OPCODE_OFFSET))
        {
            refuse(in, out, responseHeader, TcpStoreProtocol.OP_AUTH_HELLO == expected ?
                "this store server requires the cluster secret and the client sent no proof of it" :
                "authentication request out of order");
            return null;
        }
        final byte[] value = new byte[TcpStoreProtocol.AUTH_VALUE_LENGTH];
        in.readFully(value);
        return value;
    }

    /**
     * Refuses by authentication: counts, logs (address and reason, never the secret), answers
     * {@link TcpStoreProtocol#STATUS_AUTH_FAILED}, half-closes and drops what the client still sends for up to a
     * second (closing with unread bytes would reset the connection and could destroy the answer).
     */
    private void refuse(
        final DataInputStream in, final OutputStream out, final ByteBuffer responseHeader, final String reason)
        throws IOException
    {
        log.log(System.Logger.Level.WARNING, "TcpStore: refusing " + remote + ": authentication failed: " + reason);
        server.authenticationFailed(); // after the log line: whoever sees the count can see the line
        respond(out, responseHeader, TcpStoreProtocol.STATUS_AUTH_FAILED, reason.getBytes(StandardCharsets.UTF_8));
        socket.shutdownOutput();
        socket.setSoTimeout(1000);
        final byte[] drain = new byte[4096];
        try
        {
            long left = 1 << 20;
            int n;
            while (left > 0 && (n = in.read(drain)) >= 0)
            {
                left -= n;
            }
        }
        catch (final java.net.SocketTimeoutException ex)
        {
            log.log(System.Logger.Level.DEBUG, "TcpStore: " + remote + " kept the refused connection open");
        }
    }

    private static void respond(
        final OutputStream out, final ByteBuffer responseHeader, final byte status, final byte[] value)
        throws IOException
    {
        TcpStoreProtocol.encodeResponseHeader(responseHeader, status, value.length, 0);
        out.write(responseHeader.array(), 0, TcpStoreProtocol.RESPONSE_HEADER_LENGTH);
        out.write(value);
        out.flush();
    }

    void close()
    {
        try
        {
            socket.close();
        }
        catch (final IOException ex)
        {
            log.log(System.Logger.Level.DEBUG, "TcpStore: closing " + remote, ex);
        }
    }

    private boolean handle(
        final ByteBuffer header,
        final String key,
        final byte[] value,
        final DataInputStream in,
        final OutputStream out,
        final ByteBuffer responseHeader) throws IOException
    {
        final long argument = header.getLong(TcpStoreProtocol.REQUEST_ARGUMENT_OFFSET);
        byte status = TcpStoreProtocol.STATUS_OK;
        byte[] responseValue = EMPTY;
        long responseArgument = 0;
        try
        {
            StoreArguments.key(key);
            switch (header.get(TcpStoreProtocol.OPCODE_OFFSET))
            {
                case TcpStoreProtocol.OP_SET:
                    data.set(key, value);
                    break;
                case TcpStoreProtocol.OP_GET:
                case TcpStoreProtocol.OP_WAIT:
                {
                    final byte[] found = waitWhileClientStays(header.get(TcpStoreProtocol.OPCODE_OFFSET), key,
                        argument, in);
                    if (null == found)
                    {
                        log.log(System.Logger.Level.DEBUG, "TcpStore: " + remote + " left during a wait");
                        return false;
                    }
                    responseValue = TcpStoreProtocol.OP_GET == header.get(TcpStoreProtocol.OPCODE_OFFSET) ?
                        found : EMPTY;
                    break;
                }
                case TcpStoreProtocol.OP_ADD:
                    responseArgument = data.add(key, argument);
                    break;
                case TcpStoreProtocol.OP_CHECK:
                    responseArgument = data.check(List.of(key)) ? 1 : 0;
                    break;
                case TcpStoreProtocol.OP_DELETE:
                    responseArgument = data.delete(key) ? 1 : 0;
                    break;
                default:
                    log.log(System.Logger.Level.WARNING, "TcpStore: closing connection from " + remote +
                        ": unhandled opcode " + header.get(TcpStoreProtocol.OPCODE_OFFSET));
                    return false;
            }
        }
        catch (final RendezvousTimeoutException ex)
        {
            status = TcpStoreProtocol.STATUS_TIMEOUT;
        }
        catch (final IllegalArgumentException ex)
        {
            status = TcpStoreProtocol.STATUS_BAD_REQUEST;
            responseValue = String.valueOf(ex.getMessage()).getBytes(StandardCharsets.UTF_8);
        }
        catch (final RendezvousException ex)
        {
            // Interrupted: the server is shutting down.
            return false;
        }
        TcpStoreProtocol.encodeResponseHeader(responseHeader, status, responseValue.length, responseArgument);
        out.write(responseHeader.array(), 0, TcpStoreProtocol.RESPONSE_HEADER_LENGTH);
        out.write(responseValue);
        out.flush();
        return true;
    }

    /**
     * Waits for {@code key} in slices, checking between slices that the client is still there: a client never
     * sends while it waits for a response, so readable input means it closed (or broke the protocol).
     *
     * @return the value (GET) or an empty array (WAIT); null if the client left.
     * @throws RendezvousTimeoutException when the full wait passes.
     */
    private byte[] waitWhileClientStays(final byte opcode, final String key, final long timeoutMs,
        final DataInputStream in) throws IOException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
        while (true)
        {
            final long leftMs = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
            final long sliceMs = Math.min(leftMs, CLIENT_CHECK_MS);
            try
            {
                if (TcpStoreProtocol.OP_GET == opcode)
                {
                    return data.get(key, Duration.ofMillis(sliceMs));
                }
                data.waitFor(List.of(key), Duration.ofMillis(sliceMs));
                return EMPTY;
            }
            catch (final RendezvousTimeoutException ex)
            {
                if (leftMs <= sliceMs)
                {
                    throw ex;
                }
                if (clientSentSomething(in))
                {
                    return null;
                }
            }
        }
    }

    private boolean clientSentSomething(final DataInputStream in) throws IOException
    {
        final int previousTimeout = socket.getSoTimeout();
        socket.setSoTimeout(1);
        try
        {
            in.mark(1);
            in.read();
            in.reset();
            return true;
        }
        catch (final java.net.SocketTimeoutException stillWaiting)
        {
            return false;
        }
        finally
        {
            socket.setSoTimeout(previousTimeout);
        }
    }

    /** Reads a full header; false on EOF before its first byte (a clean close). */
    private static boolean readHeader(final DataInputStream in, final byte[] header) throws IOException
    {
        final int first = in.read();
        if (first < 0)
        {
            return false;
        }
        header[0] = (byte)first;
        in.readFully(header, 1, header.length - 1);
        return true;
    }
}
