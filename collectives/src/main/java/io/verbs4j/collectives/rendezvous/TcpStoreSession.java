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
