// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;
import io.verbs4j.QpState;
import io.verbs4j.WcStatus;
import io.verbs4j.tcp.protocol.FrameType;

/**
 * The life cycle of one {@link TcpConnection}, from establishment to its end: the connection's state (established,
 * closed, the peer's orderly DISCONNECT, the bound queue pair), the socket's direct descriptor that posting and
 * polling threads use, every way the connection closes, what each kind of end does to the queue pair, and the
 * heartbeat ticks of its {@link TcpLiveness}. The connection (the Netty handler) calls it from the channel's events;
 * the handshake and the frame router see it through their narrow views ({@link TcpHandshake.Session},
 * {@link TcpFrameRouter.Connection}), the liveness through its {@link TcpLiveness.Actions}.
 * <p>
 * How a connection ends: the local queue pair entered ERROR or was closed ({@link #localError()}: a DISCONNECT is the
 * last frame to the peer); the peer broke the protocol ({@link #protocolError}: the queue pair fails with
 * BAD_RESP_ERR); the peer was silent past {@link TcpConfiguration#peerTimeoutNs()} or the socket was lost (the queue
 * pair fails with RETRY_EXC_ERR); the peer sent DISCONNECT (the queue pair goes to ERROR, flushing its work). Only a
 * queue pair still bound to this connection is touched: one reset (and perhaps reconnected) since then is not.
 * <p>
 * Direct descriptor: every close that this class starts clears it under the driver lock first, and end-of-stream is
 * delivered as an event (half-closure) that closes under the lock too, so a poster never writes to a closed (or
 * reused) descriptor.
 * <p>
 * Threading: {@link #localError()}, {@link #close()}, {@link #scheduleClose()} and the state's getters from any
 * thread; everything else on the channel's event loop.
 */
final class TcpLifecycle implements TcpFrameRouter.Connection, TcpHandshake.Session
{
    private static final Logger LOG = TcpConnection.LOG;

    private final TcpConnection connection;
    private final TcpDevice device;
    private final TcpConfiguration configuration;
    private final TcpCounters counters;
    private final TcpOutbound outbound;
    private final AtomicBoolean localErrorSignalled = new AtomicBoolean();
    private final Runnable heartbeatTask = this::onHeartbeatTickLocked;
    private final TcpLiveness.Actions livenessActions = new LivenessActions();
    private volatile FileDescriptor socketFd;
    private final boolean directWrite;
    private final Runnable closeTask = this::closeLocked;
    private TcpDriverLock lock;
    private TcpFrameDecoder decoder;
    private TcpFrameWriter writer;
    private TcpLiveness liveness;
    private TcpRequester requester;
    private TcpResponder responder;
    private TcpResponseHandler responses;
    private TcpSocketPoller poller;
    private TcpHandshake handshake;

    private ChannelHandlerContext ctx;
    private volatile TcpQueuePair qp;
    private volatile boolean established;
    private volatile boolean closed;
    private boolean peerDisconnected;

    private ScheduledFuture<?> heartbeat;

    /**
     * @param connection the connection (the handler a bound queue pair knows).
     * @param device     the device.
     * @param outbound   the connection's ordered way out.
     */
    TcpLifecycle(final TcpConnection connection, final TcpDevice device, final TcpOutbound outbound)
    {
        this.connection = connection;
        this.device = device;
        this.configuration = device.configuration();
        this.counters = device.counters();
        this.outbound = outbound;
        this.directWrite = configuration.directWrite();
    }

    /**
     * The parts a life cycle starts and stops (they are created after the router, which needs this first).
     *
     * @param lock      the connection's driver lock.
     * @param decoder   the connection's decoder.
     * @param writer    the connection's frame writer.
     * @param liveness  the connection's liveness (built with {@link #livenessActions()}).
     * @param requester the initiator side's sending half.
     * @param responder the target side.
     * @param responses the initiator side's response handling.
     * @param poller    the reads by polling threads.
     * @param handshake the connection's handshake.
     */
    void bind(
        final TcpDriverLock lock,
        final TcpFrameDecoder decoder,
        final TcpFrameWriter writer,
        final TcpLiveness liveness,
        final TcpRequester requester,
        final TcpResponder responder,
        final TcpResponseHandler responses,
        final TcpSocketPoller poller,
        final TcpHandshake handshake)
    {
        this.lock = lock;
        this.decoder = decoder;
        this.writer = writer;
        this.liveness = liveness;
        this.requester = requester;
        this.responder = responder;
        this.responses = responses;
        this.poller = poller;
        this.handshake = handshake;
    }

    /**
     * Channel set-up: the context whose executor, channel and writes the life cycle uses.
     *
     * @param ctx the connection's context.
     */
    void attach(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
    }

    /** @return what a liveness tick does to the connection (for building its {@link TcpLiveness}). */
    TcpLiveness.Actions livenessActions()
    {
        return livenessActions;
    }

    /** @return the bound queue pair, or null before establishment. */
    TcpQueuePair qp()
    {
        return qp;
    }

    /** {@inheritDoc} */
    public boolean isEstablished()
    {
        return established;
    }

    /** {@inheritDoc} */
    public boolean isClosed()
    {
        return closed;
    }

    /** {@inheritDoc} */
    public FileDescriptor socketFd()
    {
        return socketFd;
    }

    /** @return the socket for direct writes (epoll, established, not closing), or null. Driver lock held. */
    FileDescriptor directFd()
    {
        return directWrite ? socketFd : null;
    }

    /** {@inheritDoc} */
    public String peer()
    {
        return null == ctx ? "?" : String.valueOf(ctx.channel().remoteAddress());
    }

    /** {@inheritDoc} */
    public boolean lockIo()
    {
        return lock.lockIo();
    }

    /** {@inheritDoc} */
    public void unlockIo(final boolean locked)
    {
        lock.unlockIo(locked);
    }

    /** {@inheritDoc} */
    public void pump()
    {
        requester.pump();
    }

    // ---------------------------------------------------------------- establishment

    /** {@inheritDoc} */
    public void establish(final TcpQueuePair queuePair, final long peerInitialSequence)
    {
        final long initialSequence = queuePair.sendQueue().posted();
        requester.start(queuePair, initialSequence);
        responder.start(queuePair, peerInitialSequence);
        responses.start(queuePair);
        qp = queuePair;
        queuePair.connect(connection);
        established = true;
        decoder.established();
        counters.increment(TcpCounter.CONNECTIONS_ESTABLISHED);
        final long interval = configuration.heartbeatIntervalNs();
        liveness.start(System.nanoTime());
        heartbeat = ctx.executor().scheduleAtFixedRate(heartbeatTask, interval, interval, TimeUnit.NANOSECONDS);
    }

    /** {@inheritDoc} */
    public void enableDirectWrites()
    {
        // Under TLS the socket carries ciphertext: every byte goes through the SslHandler, so no direct writes,
        // direct reads or polling-mode reads (socketFd stays null and each of those paths falls back).
        if (ctx.channel() instanceof UnixChannel && null == device.tls())
        {
            socketFd = ((UnixChannel)ctx.channel()).fd();
            poller.start();
        }
    }

    // ---------------------------------------------------------------- closes

    /** {@inheritDoc} */
    public void closeLocked()
    {
        final boolean locked = lockIo();
        try
        {
            closeChannel();
        }
        finally
        {
            unlockIo(locked);
        }
    }

    /** A poller found the end of the stream: close the connection (any thread). */
    public void scheduleClose()
    {
        socketFd = null;
        if (ctx.executor().inEventLoop())
        {
            closeChannel();
        }
        else
        {
            ctx.executor().execute(closeTask);
        }
    }

    /** Closes the channel from the event loop, holding the driver lock (no poster writes after this). */
    public void closeChannel()
    {
        socketFd = null;
        ctx.close();
    }

    /** Closes the socket (from any thread). */
    void close()
    {
        if (null == ctx)
        {
            return;
        }
        try
        {
            ctx.executor().execute(() ->
            {
                final boolean locked = lockIo();
                try
                {
                    closeChannel();
                }
                finally
                {
                    unlockIo(locked);
                }
            });
        }
        catch (final java.util.concurrent.RejectedExecutionException ex)
        {
            ctx.channel().close();
        }
    }

    /**
     * Event loop, driver lock held: the channel went inactive. Nothing more is read or written, the parts let go of
     * what they hold, and a queue pair still bound to this connection goes to ERROR (the peer's DISCONNECT) or fails
     * (a lost connection).
     */
    void onInactive()
    {
        socketFd = null;
        closed = true;
        if (null != heartbeat)
        {
            heartbeat.cancel(false);
        }
        poller.stop();
        decoder.sink().clear();
        outbound.close();
        handshake.onInactive();
        final TcpQueuePair bound = qp;
        if (null != bound && bound.connection() == connection && QpState.ERROR != bound.state())
        {
            if (peerDisconnected)
            {
                bound.enterError();
            }
            else
            {
                counters.increment(TcpCounter.CONNECTIONS_LOST);
                LOG.log(Level.INFO, () -> "verbs4j tcp: lost the connection with " + peer() + " (queue pair " +
                    bound.qpNumber() + " goes to ERROR)");
                bound.fail(WcStatus.RETRY_EXC_ERR);
            }
        }
        writer.close();
        poller.release();
    }

    // ---------------------------------------------------------------- failures

    /**
     * The local queue pair entered ERROR or was closed (any thread, must not block): tell the peer and close.
     */
    void localError()
    {
        if (!localErrorSignalled.compareAndSet(false, true) || null == ctx)
        {
            return;
        }
        try
        {
            ctx.executor().execute(() ->
            {
                final boolean locked = lockIo();
                try
                {
                    socketFd = null;
                    if (ctx.channel().isActive())
                    {
                        requester.finishPartialFrame();
                        // What other threads produced goes first: the DISCONNECT is the last frame.
                        outbound.drain();
                        // Requests this side completed are acknowledged before it goes (an ACK held for an answer
                        // that will not come, or deferred): the peer's sends complete, not flush.
                        responder.flushDeferredAck();
                        final ByteBuf buffer = writer.newFrame(0);
                        writer.outFrame().encode(FrameType.DISCONNECT, 0, 0, 0, 0, 0, 0);
                        counters.increment(TcpCounter.FRAMES_SENT);
                        ctx.writeAndFlush(buffer).addListener(ChannelFutureListener.CLOSE);
                    }
                }
                finally
                {
                    unlockIo(locked);
                }
            });
        }
        catch (final java.util.concurrent.RejectedExecutionException ex)
        {
            ctx.channel().close();
        }
    }

    /**
     * The peer broke the protocol: log, count, close. Other connections are not affected.
     *
     * @param reason what was wrong.
     */
    public void protocolError(final String reason)
    {
        if (closed)
        {
            return;
        }
        closed = true;
        counters.increment(TcpCounter.PROTOCOL_ERRORS);
        LOG.log(Level.WARNING, "verbs4j tcp: closing the connection with " + peer() + ": protocol error: " + reason);
        final TcpQueuePair bound = qp;
        if (null != bound && bound.connection() == connection && QpState.ERROR != bound.state())
        {
            bound.fail(WcStatus.BAD_RESP_ERR);
        }
        closeChannel();
    }

    /** {@inheritDoc} */
    public boolean markClosed()
    {
        if (closed)
        {
            return false;
        }
        closed = true;
        return true;
    }

    /** {@inheritDoc} */
    public void onDisconnectHeader()
    {
        peerDisconnected = true;
    }

    /** {@inheritDoc} */
    public void onDisconnect()
    {
        LOG.log(Level.DEBUG, () -> "verbs4j tcp: " + peer() + " disconnected");
        final TcpQueuePair bound = qp;
        // Only while the queue pair is still bound to this connection: a queue pair reset (and perhaps reconnected)
        // since then must not be moved to ERROR by its old connection's late frames.
        if (null != bound && bound.connection() == connection)
        {
            bound.enterError();
        }
        closeChannel();
    }

    // ---------------------------------------------------------------- heartbeats and the peer timeout

    private void onHeartbeatTickLocked()
    {
        final boolean locked = lockIo();
        try
        {
            if (!closed)
            {
                liveness.tick(System.nanoTime());
            }
        }
        finally
        {
            unlockIo(locked);
        }
    }

    /** What a liveness tick does to this connection. Event loop, driver lock held. */
    private final class LivenessActions implements TcpLiveness.Actions
    {
        /** {@inheritDoc} */
        public void onPeerTimeout(final long silentNs)
        {
            counters.increment(TcpCounter.PEER_TIMEOUTS);
            LOG.log(Level.WARNING, "verbs4j tcp: " + peer() + " silent for " +
                TimeUnit.NANOSECONDS.toMillis(silentNs) + " ms (peer timeout); closing the connection");
            closed = true;
            final TcpQueuePair bound = qp;
            if (null != bound && bound.connection() == connection && QpState.ERROR != bound.state())
            {
                bound.fail(WcStatus.RETRY_EXC_ERR);
            }
            closeChannel();
        }

        /** {@inheritDoc} */
        public void flushDeferredAck()
        {
            if (established && responder.flushDeferredAck())
            {
                outbound.flush();
            }
        }

        /** {@inheritDoc} */
        public void writeHeartbeat()
        {
            writer.writeControl(FrameType.HEARTBEAT, 0, 0);
            outbound.flush();
        }
    }
}
