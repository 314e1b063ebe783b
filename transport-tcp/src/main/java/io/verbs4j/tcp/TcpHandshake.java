// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.verbs4j.ConnectionException;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;

/**
 * The handshake and authentication of one connection, up to the first verb frame: the connector's CONNECT_REQUEST
 * (after AUTH_HELLO, AUTH_CHALLENGE and AUTH_RESPONSE when a cluster secret is set, {@link TcpAuthenticator}), the
 * listener's CONNECT_ACCEPT or CONNECT_REJECT (answered from the application through a
 * {@link TcpConnectionRequest}), the listener's handshake timeout, and the refusals: a frame out of turn, a proof
 * that fails, a TLS handshake that fails. A refusal is logged (the peer's address and the reason, never the
 * secret), counted, told to the peer where the protocol allows, and fails a pending connect.
 * <p>
 * It sees the connection through a narrow {@link Session} (close, establish, the driver lock) and the frames the
 * decoder hands over ({@link #onHeader}, {@link #onFrameEnd}); it writes its frames straight to the channel (no
 * verb frame can be waiting before the connection is established). Their encoding, and the checks of which frame
 * may come when, are its {@link TcpHandshakeFrames}'; this class is the state machine and acts on them.
 * <p>
 * Threading: the channel's event loop (holding the driver lock when called from the decoder), except
 * {@link #accept} and {@link #reject}, which the application calls and which hand their work to the event loop.
 */
final class TcpHandshake
{
    private static final Logger LOG = TcpConnection.LOG;

    /** What the handshake needs from its connection. */
    interface Session
    {
        /** @return the peer's address, for messages. */
        String peer();

        /** @return true once the queue pair is connected. */
        boolean isEstablished();

        /** @return true once the connection is closed or closing. */
        boolean isClosed();

        /**
         * Marks the connection closed (no further frame is handled).
         *
         * @return false if it already was.
         */
        boolean markClosed();

        /**
         * The peer broke the protocol: log, count, close.
         *
         * @param reason what was wrong.
         */
        void protocolError(String reason);

        /** Event loop, driver lock held: closes the channel. */
        void closeChannel();

        /** Event loop: takes the driver lock and closes the channel. */
        void closeLocked();

        /**
         * Event loop: takes the driver lock for an entry point.
         *
         * @return what to hand to {@link #unlockIo}.
         */
        boolean lockIo();

        /**
         * Releases what {@link #lockIo()} took.
         *
         * @param locked what {@link #lockIo()} returned.
         */
        void unlockIo(boolean locked);

        /**
         * Driver lock held: connects the queue pair to this connection and starts requester, responder and liveness.
         *
         * @param queuePair           the local queue pair.
         * @param peerInitialSequence the sequence the peer's first request will carry.
         */
        void establish(TcpQueuePair queuePair, long peerInitialSequence);

        /** Driver lock held, established: lets posting and polling threads use the socket directly, where they may. */
        void enableDirectWrites();

        /** Driver lock held, established: sends what the send queue holds. */
        void pump();
    }

    private final TcpDevice device;
    private final TcpConfiguration configuration;
    private final TcpCounters counters;
    private final Session session;
    private final boolean clientSide;
    private final TcpListener listener;
    private final TcpAuthenticator auth;
    private final TcpHandshakeFrames frames;
    private ChannelHandlerContext ctx;
    private TcpQueuePair pendingQp;
    private byte[] requestPrivateData;
    private CompletableFuture<byte[]> connectFuture;
    private TcpConnectionRequest pendingRequest;
    private long peerInitialSequence;
    private ScheduledFuture<?> handshakeTimeout;
    private int handshakeFlags;

    /**
     * A connector's side.
     *
     * @param device      the device.
     * @param session     the connection.
     * @param qp          the queue pair to connect once accepted.
     * @param privateData private data for the request.
     * @param future      completed with the peer's private data, or failed.
     */
    TcpHandshake(
        final TcpDevice device,
        final Session session,
        final TcpQueuePair qp,
        final byte[] privateData,
        final CompletableFuture<byte[]> future)
    {
        this(device, session, true, null);
        this.pendingQp = qp;
        this.requestPrivateData = privateData;
        this.connectFuture = future;
    }

    /**
     * A listener's side.
     *
     * @param device   the device.
     * @param session  the connection.
     * @param listener the listener that accepted the socket.
     */
    TcpHandshake(final TcpDevice device, final Session session, final TcpListener listener)
    {
        this(device, session, false, listener);
    }

    private TcpHandshake(
        final TcpDevice device, final Session session, final boolean clientSide, final TcpListener listener)
    {
        this.device = device;
        this.configuration = device.configuration();
        this.counters = device.counters();
        this.session = session;
        this.clientSide = clientSide;
        this.listener = listener;
        this.auth = new TcpAuthenticator(configuration.secret(), clientSide);
        this.frames = new TcpHandshakeFrames(configuration);
    }

    /**
     * The channel's context, before it is active.
     *
     * @param ctx the connection's context.
     */
    void attach(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
    }

    /** @return the device (for the connection request). */
    TcpDevice device()
    {
        return device;
    }

    /**
     * Event loop: an exception reached the connection; a TLS failure on the connector's side fails its connect.
     *
     * @param cause the exception.
     */
    void onException(final Throwable cause)
    {
        if (null != device.tls() && null != connectFuture && TcpTls.isFailure(cause))
        {
            // TLS 1.3: the connector's handshake completes before the listener checks its certificate, so the
            // listener's refusal arrives as an alert on the first read.
            onTlsHandshakeFailure(cause);
        }
    }

    /** Event loop, driver lock held: the channel closed; a connect still pending fails. */
    void onInactive()
    {
        if (null != handshakeTimeout)
        {
            handshakeTimeout.cancel(false);
        }
        if (null != connectFuture)
        {
            connectFuture.completeExceptionally(new ConnectionException("connection to " + session.peer() +
                " closed during the handshake" + (null == device.tls() ? " (does the listener require TLS, or " +
                "speak another protocol version?)" : "")));
        }
    }

    /** Event loop: the channel is active: the connector opens the handshake, the listener starts its timeout. */
    void onActive()
    {
        if (clientSide)
        {
            if (auth.isRequired())
            {
                writeAuthFrame(FrameType.AUTH_HELLO, auth.hello());
            }
            else
            {
                writeConnectRequest();
            }
            ctx.flush();
        }
        else
        {
            handshakeTimeout = ctx.executor().schedule(() ->
                {
                    if (!session.isEstablished() && null == pendingRequest)
                    {
                        session.protocolError("no handshake within " +
                            TimeUnit.NANOSECONDS.toMillis(configuration.handshakeTimeoutNs()) + " ms");
                    }
                },
                configuration.handshakeTimeoutNs(), TimeUnit.NANOSECONDS);
        }
    }

    private void writeConnectRequest()
    {
        ctx.write(frames.connect(ctx.alloc(), FrameType.CONNECT_REQUEST, pendingQp.qpNumber(),
            pendingQp.sendQueue().posted(), requestPrivateData), ctx.voidPromise());
    }

    private void writeAuthFrame(final byte type, final byte[] payload)
    {
        ctx.write(frames.auth(ctx.alloc(), type, payload), ctx.voidPromise());
    }

    /**
     * Event loop: the TLS handshake failed (or the listener refused this side's certificate): refuse, fail a
     * pending connect, close.
     *
     * @param cause the failure.
     */
    void onTlsHandshakeFailure(final Throwable cause)
    {
        if (!session.markClosed())
        {
            return;
        }
        final String reason = TcpTls.describe(cause);
        LOG.log(Level.WARNING, "verbs4j tcp: refusing the connection with " + session.peer() +
            ": TLS handshake failed: " + reason);
        counters.increment(TcpCounter.AUTH_FAILURES); // after the log line: whoever sees the count can see it
        if (null != connectFuture)
        {
            connectFuture.completeExceptionally(new ConnectionException("TLS handshake with " + session.peer() +
                " failed: " + reason + " (both sides need " + TcpConfiguration.TLS_PROP_NAME +
                "=true and certificates the other trusts)"));
        }
        session.closeChannel();
    }

    /**
     * Driver lock held: a handshake frame's header arrived (checked by the decoder), still in {@code header}.
     *
     * @param type   frame type.
     * @param header the header bytes.
     * @return true if the frame may be handled: its payload (private data or proof) goes to
     * {@link #onFrameEnd}; false if the connection was refused or closed.
     */
    boolean onHeader(final int type, final ByteBuf header)
    {
        final String error = frames.checkHeader(type, header);
        if (null != error)
        {
            session.protocolError(error);
            return false;
        }
        if (null != pendingRequest || !admitHandshakeType(type))
        {
            if (!session.isClosed())
            {
                session.protocolError("unexpected " + FrameType.name(type) + " during the handshake");
            }
            return false;
        }
        peerInitialSequence = frames.initialSequence();
        handshakeFlags = frames.flags();
        return true;
    }

    /**
     * Whether a handshake frame may come now, given this side's role and secret and the authentication so far. A
     * frame that bypasses or contradicts the authentication is refused as an authentication failure (logged,
     * counted, the peer told why); one that makes no sense at all is left to the caller as a protocol error.
     *
     * @return true if the frame may be handled; false if it was refused here (closed) or is a protocol error.
     */
    private boolean admitHandshakeType(final int type)
    {
        if (clientSide)
        {
            switch (type)
            {
                case FrameType.CONNECT_REJECT:
                    return true;
                case FrameType.AUTH_CHALLENGE:
                    if (!auth.isRequired())
                    {
                        refuseAuthentication("the listener requires a cluster secret and this side has none (set " +
                            io.verbs4j.config.ClusterSecret.FILE_PROP_NAME + " or " +
                            io.verbs4j.config.ClusterSecret.SECRET_ENV_NAME + ")");
                        return false;
                    }
                    return auth.isAwaitingChallenge();
                case FrameType.CONNECT_ACCEPT:
                    if (!auth.isAuthenticated())
                    {
                        refuseAuthentication("the listener accepted without proving the cluster secret");
                        return false;
                    }
                    return true;
                default:
                    return false;
            }
        }
        switch (type)
        {
            case FrameType.AUTH_HELLO:
                if (!auth.isRequired())
                {
                    refuseAuthentication("the connector uses a cluster secret and this listener has none");
                    return false;
                }
                return auth.isAwaitingHello();
            case FrameType.AUTH_RESPONSE:
            case FrameType.CONNECT_REJECT:
                return auth.isAwaitingResponse();
            case FrameType.CONNECT_REQUEST:
                if (!auth.isAuthenticated())
                {
                    refuseAuthentication("this listener requires the cluster secret and the connector sent no " +
                        "proof of it");
                    return false;
                }
                return true;
            default:
                return false;
        }
    }

    /**
     * Refuses the connection for an authentication failure before any verb frame: counts, logs (remote address and
     * reason, never the secret), fails a pending connect, tells the peer with a CONNECT_REJECT flagged
     * {@link HandshakeFlyweight#FLAG_AUTH_REFUSAL}, and closes.
     *
     * @param reason what was wrong.
     */
    private void refuseAuthentication(final String reason)
    {
        if (!session.markClosed())
        {
            return;
        }
        LOG.log(Level.WARNING, "verbs4j tcp: refusing the connection with " + session.peer() +
            ": authentication failed: " + reason);
        counters.increment(TcpCounter.AUTH_FAILURES); // after the log line: whoever sees the count can see it
        ctx.writeAndFlush(frames.reject(ctx.alloc(), reason.getBytes(StandardCharsets.UTF_8), true))
            .addListener(future -> lingerThenClose());
        // Only now: a failed connect closes the channel, and the refusal must be on its way to the peer first.
        if (null != connectFuture)
        {
            connectFuture.completeExceptionally(new ConnectionException("authentication failed with " + session.peer() +
                ": " + reason));
        }
    }

    /**
     * Half-closes after a refusal and reads (and drops) what the peer still sends until it closes, for at most a
     * second: closing at once with unread bytes (a connector pipelines its CONNECT_REQUEST after its proof) would
     * reset the connection and could destroy the refusal before the peer reads it.
     */
    private void lingerThenClose()
    {
        if (ctx.channel() instanceof io.netty.channel.socket.DuplexChannel && ctx.channel().isActive())
        {
            ((io.netty.channel.socket.DuplexChannel)ctx.channel()).shutdownOutput();
            ctx.executor().schedule(session::closeLocked, 1, TimeUnit.SECONDS);
        }
        else
        {
            session.closeChannel();
        }
    }

    /**
     * Driver lock held: a handshake frame arrived in full.
     *
     * @param type frame type.
     * @param data its payload.
     */
    void onFrameEnd(final int type, final byte[] data)
    {
        switch (type)
        {
            case FrameType.AUTH_HELLO:
                writeAuthFrame(FrameType.AUTH_CHALLENGE, auth.challenge(data));
                ctx.flush();
                break;
            case FrameType.AUTH_CHALLENGE:
            {
                final byte[] response = auth.respond(data);
                if (null == response)
                {
                    refuseAuthentication("the listener did not prove the cluster secret (secret mismatch?)");
                    return;
                }
                counters.increment(TcpCounter.PEERS_AUTHENTICATED);
                writeAuthFrame(FrameType.AUTH_RESPONSE, response);
                writeConnectRequest();
                ctx.flush();
                break;
            }
            case FrameType.AUTH_RESPONSE:
                if (!auth.verifyResponse(data))
                {
                    refuseAuthentication("the connector did not prove the cluster secret (secret mismatch, or a " +
                        "proof from another session)");
                    return;
                }
                counters.increment(TcpCounter.PEERS_AUTHENTICATED);
                break;
            case FrameType.CONNECT_REQUEST:
                if (null != handshakeTimeout)
                {
                    handshakeTimeout.cancel(false);
                }
                pendingRequest = new TcpConnectionRequest(this, data, session.peer());
                listener.enqueue(pendingRequest);
                break;
            case FrameType.CONNECT_ACCEPT:
                if (connectFuture.isDone())
                {
                    session.closeChannel();
                    return;
                }
                try
                {
                    session.establish(pendingQp, peerInitialSequence);
                }
                catch (final RuntimeException ex)
                {
                    connectFuture.completeExceptionally(ex);
                    session.closeChannel();
                    return;
                }
                if (!connectFuture.complete(data))
                {
                    pendingQp.enterError();
                }
                connectFuture = null;
                session.enableDirectWrites();
                session.pump();
                break;
            case FrameType.CONNECT_REJECT:
                onReject(new String(data, StandardCharsets.UTF_8));
                break;
            default:
                break;
        }
    }

    private void onReject(final String reason)
    {
        final boolean authRefusal = 0 != (handshakeFlags & HandshakeFlyweight.FLAG_AUTH_REFUSAL) || !clientSide;
        if (authRefusal)
        {
            LOG.log(Level.WARNING, "verbs4j tcp: " + session.peer() +
                " refused the connection: authentication failed: " + reason);
            counters.increment(TcpCounter.AUTH_FAILURES); // after the log line: whoever sees the count can see it
        }
        if (null != connectFuture)
        {
            connectFuture.completeExceptionally(new ConnectionException((authRefusal ? "authentication failed: " :
                "") + "rejected by " + session.peer() + ": " + reason));
            connectFuture = null;
        }
        session.markClosed();
        session.closeChannel();
    }

    /**
     * Listener side, from the application thread: connect {@code queuePair} and answer with CONNECT_ACCEPT.
     *
     * @param queuePair   the local queue pair.
     * @param privateData the answer's private data.
     */
    void accept(final TcpQueuePair queuePair, final byte[] privateData)
    {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        try
        {
            ctx.executor().execute(() ->
            {
                final boolean locked = session.lockIo();
                try
                {
                    if (session.isClosed() || !ctx.channel().isActive())
                    {
                        throw new ConnectionException("the connector " + session.peer() + " has gone");
                    }
                    final long initialSequence = queuePair.sendQueue().posted();
                    session.establish(queuePair, peerInitialSequence);
                    ctx.writeAndFlush(frames.connect(ctx.alloc(), FrameType.CONNECT_ACCEPT, queuePair.qpNumber(),
                        initialSequence, privateData), ctx.voidPromise());
                    session.enableDirectWrites();
                    done.complete(null);
                    session.pump();
                }
                catch (final RuntimeException ex)
                {
                    done.completeExceptionally(ex);
                }
                finally
                {
                    session.unlockIo(locked);
                }
            });
            done.get(configuration.handshakeTimeoutNs(), TimeUnit.NANOSECONDS);
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            if (ex.getCause() instanceof ConnectionException)
            {
                throw (ConnectionException)ex.getCause();
            }
            throw new ConnectionException("accept failed: " + ex.getCause(), ex.getCause());
        }
        catch (final java.util.concurrent.RejectedExecutionException | java.util.concurrent.TimeoutException ex)
        {
            throw new ConnectionException("accept failed: the device is closing or the I/O thread is stuck", ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new ConnectionException("interrupted while accepting", ex);
        }
    }

    /**
     * Listener side, from the application thread: answer with CONNECT_REJECT and close.
     *
     * @param reason the reason for the connector.
     */
    void reject(final String reason)
    {
        final byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
        final byte[] data = Arrays.copyOf(bytes, Math.min(bytes.length, TcpConfiguration.MAX_PRIVATE_DATA_LENGTH));
        ctx.executor().execute(() ->
        {
            if (!ctx.channel().isActive())
            {
                return;
            }
            ctx.writeAndFlush(frames.reject(ctx.alloc(), data, false)).addListener(ChannelFutureListener.CLOSE);
        });
    }
}
