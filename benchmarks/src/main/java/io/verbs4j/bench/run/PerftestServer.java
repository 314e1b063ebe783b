// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.control.ControlProtocol;
import io.verbs4j.bench.launch.ReadySignal;
import io.verbs4j.bench.spi.Responder;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TransportUnderTest;
import io.verbs4j.collectives.measure.JitActivity;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * The responder host of a perftest run: listens on a control port, prints the {@link ReadySignal} line on
 * standard output, serves one client's sessions ({@link ControlProtocol}) and returns when the client quits or goes
 * away. Each session's responder runs on its own thread while this thread waits for the client's END, so a failed
 * initiator aborts the responder at once instead of after a timeout.
 */
public final class PerftestServer
{
    private final String bindAddress;
    private final int port;
    private final long timeoutMs;
    private final PrintWriter log;
    private final LongSupplier jitClock = JitActivity.compileMillis();

    /**
     * Creates a server.
     *
     * @param bindAddress address for the control listener and the data listeners.
     * @param port        control port, 0 for an ephemeral one.
     * @param timeoutMs   how long to wait for the client to connect.
     * @param log         diagnostics (standard error).
     */
    public PerftestServer(
        final String bindAddress, final int port, final long timeoutMs, final PrintWriter log)
    {
        this.bindAddress = bindAddress;
        this.port = port;
        this.timeoutMs = timeoutMs;
        this.log = log;
    }

    /**
     * Serves one client.
     *
     * @param ready where the readiness line goes (standard output).
     * @return the number of sessions whose responder failed.
     * @throws IOException if the control port cannot be opened, no client comes in time, or HELLO fails.
     */
    public int run(final PrintWriter ready) throws IOException
    {
        try (ServerSocket listener = new ServerSocket())
        {
            listener.bind(new InetSocketAddress(InetAddress.getByName(bindAddress), port), 1);
            listener.setSoTimeout((int)Math.min(Integer.MAX_VALUE, timeoutMs));
            final String advertised = listener.getInetAddress().isAnyLocalAddress() ?
                InetAddress.getLocalHost().getHostName() : listener.getInetAddress().getHostAddress();
            ready.println(ReadySignal.format(advertised + ":" + listener.getLocalPort()));
            ready.flush();
            log.println("# verbs4j perftest server listening on " + advertised + ":" + listener.getLocalPort());
            log.flush();
            final Socket socket;
            try
            {
                socket = listener.accept();
            }
            catch (final SocketTimeoutException ex)
            {
                throw new IOException("no client connected within " + timeoutMs + " ms");
            }
            try (socket)
            {
                socket.setTcpNoDelay(true);
                return serveClient(socket);
            }
        }
    }

    private int serveClient(final Socket socket) throws IOException
    {
        final DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        ControlProtocol.verifyHello(in.readInt(), in.readInt());
        out.writeInt(ControlProtocol.MAGIC);
        out.writeInt(ControlProtocol.VERSION);
        out.writeUTF(InetAddress.getLocalHost().getHostName());
        out.flush();
        int failures = 0;
        while (true)
        {
            final byte type;
            try
            {
                type = in.readByte();
            }
            catch (final EOFException ex)
            {
                log.println("# verbs4j perftest server: client went away");
                log.flush();
                return failures;
            }
            if (ControlProtocol.QUIT == type)
            {
                return failures;
            }
            if (ControlProtocol.SESSION != type)
            {
                throw new IOException("unexpected control message " + type);
            }
            if (!serveSession(ControlProtocol.readSpec(in), in, out))
            {
                failures++;
            }
        }
    }

    private boolean serveSession(final SessionSpec spec, final DataInputStream in, final DataOutputStream out)
        throws IOException
    {
        final PerftestTransport entry = PerftestTransport.find(spec.transport());
        final TransportUnderTest transport = null == entry ? null : entry.instance();
        if (null == transport || !transport.needsPeer() || !transport.supports(spec.kind(), spec.messageBytes()))
        {
            out.writeByte(ControlProtocol.REJECTED);
            out.writeUTF(null == transport ?
                "unknown transport " + spec.transport() :
                spec.transport() + " does not serve " + spec.kind().shortName() + " at " + spec.messageBytes() + " B");
            out.flush();
            return true;
        }
        final Responder responder;
        try
        {
            responder = transport.openResponder(spec, bindAddress);
        }
        catch (final IOException | RuntimeException ex)
        {
            out.writeByte(ControlProtocol.REJECTED);
            out.writeUTF("cannot open responder: " + ex.getMessage());
            out.flush();
            return false;
        }
        try (responder)
        {
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread thread = new Thread(() -> serveQuietly(responder, failure), "verbs4j-responder");
            out.writeByte(ControlProtocol.ACCEPTED);
            out.writeUTF(responder.endpoint());
            out.flush();
            thread.start();
            final boolean clientOk = readEnd(in);
            if (!clientOk)
            {
                responder.close();
            }
            joinOrAbort(thread, responder, spec.timeoutMs());
            final Throwable error = failure.get();
            final boolean ok = clientOk && null == error;
            out.writeByte(ControlProtocol.DONE);
            out.writeBoolean(ok);
            out.writeUTF(null == error ? (clientOk ? "ok" : "aborted by the initiator") : describe(error));
            out.writeLong(jitClock.getAsLong());
            out.flush();
            if (null != error && clientOk)
            {
                log.println("# verbs4j perftest server: " + spec.transport() + " " + spec.messageBytes() +
                    " B failed: " + describe(error));
                log.flush();
            }
            return ok;
        }
    }

    private static boolean readEnd(final DataInputStream in) throws IOException
    {
        final byte type = in.readByte();
        if (ControlProtocol.END != type)
        {
            throw new IOException("expected END, got control message " + type);
        }
        return in.readBoolean();
    }

    private static void joinOrAbort(final Thread thread, final Responder responder, final long timeoutMs)
    {
        try
        {
            thread.join(timeoutMs);
            if (thread.isAlive())
            {
                responder.close();
                thread.join(TimeUnit.SECONDS.toMillis(10));
            }
        }
        catch (final InterruptedException ex)
        {
            responder.close();
            Thread.currentThread().interrupt();
        }
    }

    private static void serveQuietly(final Responder responder, final AtomicReference<Throwable> failure)
    {
        try
        {
            responder.serve();
        }
        catch (final Throwable ex)
        {
            failure.set(ex);
        }
    }

    private static String describe(final Throwable error)
    {
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }
}
