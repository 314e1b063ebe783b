// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.control;

import io.verbs4j.bench.spi.SessionSpec;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The initiator's end of the control connection ({@link ControlProtocol}). Single-threaded.
 * <pre>
 * String endpoint = control.openSession(spec);   // null: rejected, see rejection()
 * ... run the session ...
 * control.endSession(true);                       // throws if the responder failed
 * </pre>
 */
public final class ControlClient implements AutoCloseable
{
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final String peerHost;
    private final String peerHostName;
    private String rejection;
    private long peerCompileMillis;

    private ControlClient(final Socket socket, final String peerHost) throws IOException
    {
        this.socket = socket;
        this.peerHost = peerHost;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        out.writeInt(ControlProtocol.MAGIC);
        out.writeInt(ControlProtocol.VERSION);
        out.flush();
        ControlProtocol.verifyHello(in.readInt(), in.readInt());
        this.peerHostName = in.readUTF();
    }

    /**
     * Connects and exchanges HELLO.
     *
     * @param host      server host.
     * @param port      server control port.
     * @param timeoutMs connect and HELLO timeout.
     * @return the connected client.
     * @throws IOException if the server cannot be reached or speaks another protocol.
     */
    public static ControlClient connect(final String host, final int port, final long timeoutMs) throws IOException
    {
        final Socket socket = new Socket();
        try
        {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), (int)Math.min(Integer.MAX_VALUE, timeoutMs));
            socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, timeoutMs));
            final ControlClient client = new ControlClient(socket, host);
            socket.setSoTimeout(0);
            return client;
        }
        catch (final IOException ex)
        {
            socket.close();
            throw new IOException("cannot reach perftest server " + host + ":" + port + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * The host the data connections should go to (the one the control connection reached).
     *
     * @return the host as given to {@link #connect}.
     */
    public String peerHost()
    {
        return peerHost;
    }

    /**
     * The server's own host name, from HELLO.
     *
     * @return the host name.
     */
    public String peerHostName()
    {
        return peerHostName;
    }

    /**
     * Asks the server to open a responder.
     *
     * @param spec the session.
     * @return the responder's endpoint, or {@code null} if the server rejected the session ({@link #rejection()}).
     * @throws IOException on a control-connection failure.
     */
    public String openSession(final SessionSpec spec) throws IOException
    {
        out.writeByte(ControlProtocol.SESSION);
        ControlProtocol.writeSpec(out, spec);
        out.flush();
        final byte reply = in.readByte();
        if (ControlProtocol.ACCEPTED == reply)
        {
            rejection = null;
            return in.readUTF();
        }
        if (ControlProtocol.REJECTED == reply)
        {
            rejection = in.readUTF();
            return null;
        }
        throw new IOException("unexpected control reply " + reply);
    }

    /**
     * Why the last {@link #openSession} returned {@code null}.
     *
     * @return the server's reason.
     */
    public String rejection()
    {
        return rejection;
    }

    /**
     * Ends the session on the server and waits for its outcome.
     *
     * @param ok {@code false} if the initiator failed; the server then aborts its responder.
     * @throws IOException if the server's responder failed (its message), or on a control-connection failure.
     */
    public void endSession(final boolean ok) throws IOException
    {
        out.writeByte(ControlProtocol.END);
        out.writeBoolean(ok);
        out.flush();
        final byte reply = in.readByte();
        if (ControlProtocol.DONE != reply)
        {
            throw new IOException("unexpected control reply " + reply);
        }
        final boolean serverOk = in.readBoolean();
        final String message = in.readUTF();
        peerCompileMillis = in.readLong();
        if (!serverOk && ok)
        {
            throw new IOException("responder failed: " + message);
        }
    }

    /**
     * @return the server JVM's accumulated JIT compilation time in milliseconds, as of the end of the last session
     * (0 before the first, or where the server's JVM does not monitor it).
     */
    public long peerCompileMillis()
    {
        return peerCompileMillis;
    }

    /**
     * Sends QUIT and closes. Never throws.
     */
    @Override
    public void close()
    {
        try
        {
            out.writeByte(ControlProtocol.QUIT);
            out.flush();
        }
        catch (final IOException ignore)
        {
            // The server is gone already; nothing left to tell it.
        }
        try
        {
            socket.close();
        }
        catch (final IOException ignore)
        {
            // Closing a socket we no longer use.
        }
    }
}
