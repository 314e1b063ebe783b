// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.unix.FileDescriptor;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

/**
 * One TCP connection between two queue pairs: the only handler in its channel's pipeline, and the glue between the
 * parts that do the work (Netty's handler half beside the codec half). It builds the parts and turns the channel's
 * events into their calls, each under the driver lock: bytes read go to its {@link TcpFrameDecoder}, whose
 * {@link TcpFrameRouter} passes on the frames: handshake frames to its {@link TcpHandshake}, requests to its
 * {@link TcpResponder} (target side), responses to its {@link TcpResponseHandler} (initiator side); the end of a read
 * batch sends the ACKs and requests the batch made possible. The {@link TcpRequester} sends, the
 * {@link TcpFrameWriter} builds frames and hands them to the one {@link TcpOutbound}, {@link TcpLiveness} sends
 * heartbeats and declares the peer dead after {@link TcpConfiguration#peerTimeoutNs()} of silence, and the socket's
 * direct descriptor is read by polling threads through its {@link TcpSocketPoller}. Its {@link TcpLifecycle} holds
 * the connection's state and carries out its establishment, closes and failures. The parts that call back see only a
 * narrow view: the poller a {@link TcpSocketPoller.Link} (this class), the router a
 * {@link TcpFrameRouter.Connection} and the handshake a {@link TcpHandshake.Session} (the life cycle), liveness its
 * {@link TcpLiveness.Actions}.
 * <p>
 * A peer that breaks the protocol (wrong version, unknown type, impossible length, bad sequence) is disconnected
 * with a log line; other connections carry on. Every method but {@link #localError()}, {@link #posted}, what the
 * poller calls through its {@link TcpSocketPoller.Link} and the driver lock's try-lock runs on the channel's event
 * loop.
 * <p>
 * Driver lock ({@link TcpDriverLock}): the connection's state (requester, responder, decoder) and the right to write
 * to the socket belong to whoever holds it: the event loop in each of its entry points (callbacks and tasks, which
 * spin the few microseconds a poster may hold it), or a posting thread that writes its requests straight to the
 * socket ({@link TcpRequester#requestPump()}, epoll only) when nothing waits to be written. Every close clears the
 * direct file descriptor under the lock first ({@link TcpLifecycle}), so a poster never writes to a closed (or
 * reused) descriptor.
 * <p>
 * Order on the wire: every frame after the handshake goes through one {@link TcpOutbound}, whoever holds the lock
 * (the event loop, a poster, or a thread polling a completion queue that read requests and answers them), so
 * responses and acknowledgements leave in the order the responder produced them.
 */
final class TcpConnection extends ChannelInboundHandlerAdapter implements TcpSocketPoller.Link
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
    private final TcpNettyWire wire = new TcpNettyWire();
    private final TcpOutbound outbound = new TcpOutbound(wire);
    private final TcpLifecycle life;
    private final TcpLiveness liveness;
    private final TcpInputSigns signs;
    private final TcpFrameWriter writer;
    private final TcpDriverLock lock;
    private final TcpSocketPoller poller;

    private ChannelHandlerContext ctx;

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
        this.life = new TcpLifecycle(this, device, outbound);
        final TcpFrameRouter router = new TcpFrameRouter(life);
        this.decoder = new TcpFrameDecoder(router, counters, new PayloadSink(device.capabilities().maxSge() + 1),
            null != device.tls(), configuration.directReadThreshold());
        this.liveness = new TcpLiveness(life.livenessActions(), configuration.heartbeatIntervalNs(),
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
        this.handshake = clientSide ? new TcpHandshake(device, life, qp, privateData, future) :
            new TcpHandshake(device, life, listener);
        router.bind(decoder, handshake, responder, responses);
        life.bind(lock, decoder, writer, liveness, requester, responder, responses, poller, handshake);
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
        return life.qp();
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

    /** @return the connection's state, establishment, closes and failures. */
    TcpLifecycle lifecycle()
    {
        return life;
    }

    /** {@inheritDoc} */
    public boolean isEstablished()
    {
        return life.isEstablished();
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
    boolean lockIo()
    {
        return lock.lockIo();
    }

    /**
     * Event loop: releases the lock taken by {@link #lockIo()}, then sends what a poster left for this thread.
     *
     * @param locked what {@link #lockIo()} returned.
     */
    void unlockIo(final boolean locked)
    {
        lock.unlockIo(locked);
    }

    // ---------------------------------------------------------------- reads by polling threads

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
    public boolean isClosed()
    {
        return life.isClosed();
    }

    /** {@inheritDoc} */
    public FileDescriptor socketFd()
    {
        return life.socketFd();
    }

    /** {@inheritDoc} */
    public void scheduleClose()
    {
        life.scheduleClose();
    }

    // ---------------------------------------------------------------- channel events

    /** {@inheritDoc} */
    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
        life.attach(ctx);
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
        if (life.isEstablished() && !life.isClosed())
        {
            responder.flushAcks();
            requester.afterRead();
        }
        outbound.flush();
    }

    /** {@inheritDoc} */
    public void channelWritabilityChanged(final ChannelHandlerContext ctx)
    {
        if (life.isEstablished() && ctx.channel().isWritable())
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
                life.closeChannel();
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
        if (!life.isClosed())
        {
            LOG.log(Level.DEBUG, () -> "verbs4j tcp: connection with " + life.peer() + " failed: " + cause);
        }
        final boolean locked = lockIo();
        try
        {
            life.closeChannel();
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
            life.onInactive();
        }
        finally
        {
            unlockIo(locked);
        }
        ctx.fireChannelInactive();
    }

    // ---------------------------------------------------------------- failures

    /**
     * The local queue pair entered ERROR or was closed (any thread, must not block): tell the peer and close
     * ({@link TcpLifecycle#localError()}).
     */
    void localError()
    {
        life.localError();
    }

    /**
     * The peer broke the protocol: log, count, close ({@link TcpLifecycle#protocolError}).
     *
     * @param reason what was wrong.
     */
    void protocolError(final String reason)
    {
        life.protocolError(reason);
    }
}
