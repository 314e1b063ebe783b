// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.unix.UnixChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.unix.FileDescriptor;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.verbs4j.QpState;
import io.verbs4j.WcStatus;
import io.verbs4j.tcp.protocol.FrameType;

/**
 * One TCP connection between two queue pairs: the only handler in its channel's pipeline, and the glue between the
 * parts that do the work (Netty's handler half beside the codec half). It owns the channel's life cycle (events,
 * close, failures) and the socket's direct descriptor (read by polling threads through its {@link TcpSocketPoller}),
 * and its {@link TcpFrameRouter} passes on the frames its {@link TcpFrameDecoder} hands over: handshake frames to
 * its {@link TcpHandshake}, requests to its {@link TcpResponder} (target side), responses to its
 * {@link TcpResponseHandler} (initiator side). The {@link TcpRequester} sends, the {@link TcpFrameWriter} builds
 * frames and hands them to the one {@link TcpOutbound}, and {@link TcpLiveness} sends heartbeats and declares the
 * peer dead after {@link TcpConfiguration#peerTimeoutNs()} of silence. The parts that call back see only a narrow
 * view of it: the poller a {@link TcpSocketPoller.Link}, the router a {@link TcpFrameRouter.Connection}, the
 * handshake a {@link TcpHandshake.Session}, liveness its {@link TcpLiveness.Actions}.
 * <p>
 * A peer that breaks the protocol (wrong version, unknown type, impossible length, bad sequence) is disconnected
 * with a log line; other connections carry on. Every method but {@link #localError()}, the
 * accept/reject calls and the driver lock runs on the channel's event loop.
 * <p>
 * Driver lock ({@link TcpDriverLock}): the connection's state (requester, responder, decoder) and the right to write
 * to the socket belong to whoever holds it: the event loop in each of its entry points (callbacks and tasks, which
 * spin the few microseconds a poster may hold it), or a posting thread that writes its requests straight to the
 * socket ({@link TcpRequester#requestPump()}, epoll only) when nothing waits to be written. Every close that this
 * class starts clears the direct file descriptor under the lock first, and end-of-stream is delivered as an event
 * (half-closure) that closes under the lock too, so a poster never writes to a closed (or reused) descriptor.
 * <p>
 * Order on the wire: every frame after the handshake goes through one {@link TcpOutbound}, whoever holds the lock
 * (the event loop, a poster, or a thread polling a completion queue that read requests and answers them), so
 * responses and acknowledgements leave in the order the responder produced them.
 */
final class TcpConnection extends ChannelInboundHandlerAdapter
    implements TcpSocketPoller.Link, TcpFrameRouter.Connection, TcpHandshake.Session
{
    static final Logger LOG = System.getLogger("io.verbs4j.tcp");

    private final TcpDevice device;
    private final TcpConfiguration configuration;
    private final TcpCounters counters;
    private final TcpRequester requester;
    private final TcpResponseHandler responses;
    private final TcpResponder responder;
    private final TcpHandshake handshake;
    private final TcpFrameDecoder decoder;
    private final AtomicBoolean localErrorSignalled = new AtomicBoolean();
    private final Runnable heartbeatTask = this::onHeartbeatTickLocked;
    private final TcpNettyWire wire = new TcpNettyWire();
    private final TcpOutbound outbound = new TcpOutbound(wire);
    private final TcpLiveness liveness;
    private final TcpInputSigns signs;
    private final TcpFrameWriter writer;
    private volatile FileDescriptor socketFd;
    private final boolean directWrite;
    private final Runnable closeTask = this::closeLocked;
    private final TcpDriverLock lock;
    private final TcpSocketPoller poller;

    private ChannelHandlerContext ctx;
    private volatile TcpQueuePair qp;
    private volatile boolean established;
    private volatile boolean closed;
    private boolean peerDisconnected;

    private ScheduledFuture<?> heartbeat;

    /**
     * A connector's side.
     *
     * @param device      the device.
     * @param qp          the queue pair to connect once accepted.
     * @param privateData private data for the request.
     * @param future      completed with the peer's private data, or failed.
     */
    TcpConnection(
        final TcpDevice device, final TcpQueuePair qp, final byte[] privateData, final CompletableFuture<byte[]> future)
    {
        this(device, true, null, qp, privateData, future);
    }

    /**
     * A listener's side.
     *
     * @param device   the device.
     * @param listener the listener that accepted the socket.
     */
    TcpConnection(final TcpDevice device, final TcpListener listener)
    {
        this(device, false, listener, null, null, null);
    }

    private TcpConnection(
        final TcpDevice device,
        final boolean clientSide,
        final TcpListener listener,
        final TcpQueuePair qp,
        final byte[] privateData,
        final CompletableFuture<byte[]> future)
    {
        this.device = device;
        this.configuration = device.configuration();
        this.counters = device.counters();
        final TcpFrameRouter router = new TcpFrameRouter(this);
        this.decoder = new TcpFrameDecoder(router, counters, new PayloadSink(device.capabilities().maxSge() + 1),
            null != device.tls(), configuration.directReadThreshold());
        this.directWrite = configuration.directWrite();
        this.liveness = new TcpLiveness(new LivenessActions(), configuration.heartbeatIntervalNs(),
            configuration.peerTimeoutNs());
        this.signs = new TcpInputSigns(!configuration.pollingMode());
        this.writer = new TcpFrameWriter(device, counters, liveness, signs, outbound);
        this.requester = new TcpRequester(this);
        this.lock = new TcpDriverLock(requester);
        wire.bind(lock, outbound);
        this.responses = new TcpResponseHandler(requester, decoder, counters);
        this.responder = new TcpResponder(this);
        this.poller = new TcpSocketPoller(this, device, lock, decoder, writer, liveness, signs, requester,
            responder);
        this.handshake = clientSide ? new TcpHandshake(device, this, qp, privateData, future) :
            new TcpHandshake(device, this, listener);
        router.bind(decoder, handshake, responder, responses);
    }

    TcpDevice device()
    {
        return device;
    }

    TcpRequester requester()
    {
        return requester;
    }

    TcpResponder responder()
    {
        return responder;
    }

    TcpQueuePair qp()
    {
        return qp;
    }

    TcpCounters counters()
    {
        return counters;
    }

    TcpConfiguration configuration()
    {
        return configuration;
    }

    TcpFrameDecoder decoder()
    {
        return decoder;
    }

    TcpFrameWriter writer()
    {
        return writer;
    }

    /** {@inheritDoc} */
    public boolean isEstablished()
    {
        return established;
    }

    boolean inEventLoop()
    {
        return ctx.executor().inEventLoop();
    }

    void execute(final Runnable task)
    {
        ctx.executor().execute(task);
    }

    void schedule(final Runnable task, final long delayNs)
    {
        ctx.executor().schedule(task, delayNs, TimeUnit.NANOSECONDS);
    }

    boolean isWritable()
    {
        return ctx.channel().isWritable();
    }

    // ---------------------------------------------------------------- driver lock

    /**
     * Any thread: takes the driver lock if free.
     *
     * @return true if taken (release with {@link #unlockDriver()}).
     */
    boolean tryLockDriver()
    {
        return lock.tryLock();
    }

    /** Releases the driver lock taken with {@link #tryLockDriver()}. */
    void unlockDriver()
    {
        lock.unlock();
    }

    /**
     * Event loop: takes the driver lock for an entry point ({@link TcpDriverLock#lockIo()}).
     *
     * @return true if taken by this call, false if this entry point is nested in one that holds it.
     */
    public boolean lockIo()
    {
        return lock.lockIo();
    }

    /**
     * Event loop: releases the lock taken by {@link #lockIo()}, then sends what a poster left for this thread.
     *
     * @param locked what {@link #lockIo()} returned.
     */
    public void unlockIo(final boolean locked)
    {
        lock.unlockIo(locked);
    }

    /** @return the socket for direct writes (epoll, established, not closing), or null. Driver lock held. */
    FileDescriptor directFd()
    {
        return directWrite ? socketFd : null;
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

    /**
     * Any thread: the application posted a request, so input is likely soon and polling threads read this socket
     * again (event mode, see {@link TcpReadPolicy#POLLER_PATIENCE_NS}).
     *
     * @param bulk whether the request carries a bulk payload.
     */
    void posted(final boolean bulk)
    {
        signs.posted(bulk);
    }

    /** @return when input last looked likely ({@link System#nanoTime()}; tests). */
    long inputExpectedNs()
    {
        return signs.inputExpectedNs();
    }

    /** @return whether polling threads read this socket now (polling mode, or event mode within the patience). */
    boolean pollersReading()
    {
        return poller.policy().pollersReading();
    }

    /** @return the socket's read ownership (tests, diagnostics). */
    TcpReadOwnership reads()
    {
        return poller.reads();
    }

    /** @return the reads by polling threads (tests, diagnostics). */
    TcpSocketPoller poller()
    {
        return poller;
    }

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

    /** {@inheritDoc} */
    public void scheduleClose()
    {
        socketFd = null;
        if (inEventLoop())
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

    /** {@inheritDoc} */
    public String peer()
    {
        return null == ctx ? "?" : String.valueOf(ctx.channel().remoteAddress());
    }

    // ---------------------------------------------------------------- channel events

    /** {@inheritDoc} */
    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
        wire.attach(ctx);
        writer.attach(ctx);
        handshake.attach(ctx);
        poller.shareReads(ctx);
    }

    /** {@inheritDoc} */
    public void channelActive(final ChannelHandlerContext ctx)
    {
        handshake.onActive();
        ctx.fireChannelActive();
    }

    /** {@inheritDoc} */
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final ByteBuf in = (ByteBuf)msg;
        final boolean locked = lockIo();
        try
        {
            liveness.heard();
            decoder.decode(in);
            if (poller.policy().readAsksForMore())
            {
                signs.expectInput();
            }
        }
        finally
        {
            in.release();
            unlockIo(locked);
        }
    }

    /** {@inheritDoc} */
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        final boolean locked = lockIo();
        try
        {
            if (decoder.batchBytes() >= TcpReadSpin.BULK_BATCH_BYTES && poller.policy().unpolledSinceLastAsked() &&
                !poller.policy().postedBulkRecently() && TcpReadSpin.onBulkRead())
            {
                counters.add(TcpCounter.IO_READ_SPINS, 1);
            }
            onReadComplete();
        }
        finally
        {
            unlockIo(locked);
        }
    }

    /** {@inheritDoc} */
    public void onReadComplete()
    {
        decoder.publishReceiveCounters();
        if (established && !closed)
        {
            responder.flushAcks();
            requester.afterRead();
        }
        outbound.flush();
    }

    /** {@inheritDoc} */
    public void channelWritabilityChanged(final ChannelHandlerContext ctx)
    {
        if (established && ctx.channel().isWritable())
        {
            final boolean locked = lockIo();
            try
            {
                requester.pump();
            }
            finally
            {
                unlockIo(locked);
            }
        }
    }

    /** {@inheritDoc} */
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object event)
    {
        if (event instanceof SslHandshakeCompletionEvent && !((SslHandshakeCompletionEvent)event).isSuccess())
        {
            handshake.onTlsHandshakeFailure(((SslHandshakeCompletionEvent)event).cause());
        }
        if (event instanceof ChannelInputShutdownEvent)
        {
            // The peer closed its side (half-closure is on so that this close, too, happens under the lock).
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
        ctx.fireUserEventTriggered(event);
    }

    /** {@inheritDoc} */
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        handshake.onException(cause);
        if (!closed)
        {
            LOG.log(Level.DEBUG, () -> "verbs4j tcp: connection with " + peer() + " failed: " + cause);
        }
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

    /** {@inheritDoc} */
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        final boolean locked = lockIo();
        try
        {
            onInactive();
        }
        finally
        {
            unlockIo(locked);
        }
        ctx.fireChannelInactive();
    }

    private void onInactive()
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
        if (null != bound && bound.connection() == this && QpState.ERROR != bound.state())
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

    // ---------------------------------------------------------------- what the poller, router and handshake see

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

    /** {@inheritDoc} */
    public void establish(final TcpQueuePair queuePair, final long peerInitialSequence)
    {
        final long initialSequence = queuePair.sendQueue().posted();
        requester.start(queuePair, initialSequence);
        responder.start(queuePair, peerInitialSequence);
        responses.start(queuePair);
        qp = queuePair;
        queuePair.connect(this);
        established = true;
        decoder.established();
        counters.increment(TcpCounter.CONNECTIONS_ESTABLISHED);
        final long interval = configuration.heartbeatIntervalNs();
        liveness.start(System.nanoTime());
        heartbeat = ctx.executor().scheduleAtFixedRate(heartbeatTask, interval, interval, TimeUnit.NANOSECONDS);
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
        if (null != bound && bound.connection() == this && QpState.ERROR != bound.state())
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
    public void pump()
    {
        requester.pump();
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
        if (null != bound && bound.connection() == this)
        {
            bound.enterError();
        }
        closeChannel();
    }

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
            if (null != bound && bound.connection() == TcpConnection.this && QpState.ERROR != bound.state())
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
