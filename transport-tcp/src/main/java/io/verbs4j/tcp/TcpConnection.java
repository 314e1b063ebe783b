// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.System.Logger;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.unix.UnixChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.unix.FileDescriptor;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.verbs4j.ConnectionException;
import io.verbs4j.QpState;
import io.verbs4j.WcStatus;
import io.verbs4j.spi.SilenceDetector;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

/**
 * One TCP connection between two queue pairs: the only handler in its channel's pipeline. It reads frames with a
 * streaming decoder (a 32-byte header, then the payload, which goes straight to its destination as it arrives:
 * nothing is accumulated, however long the message), runs the handshake, and hands requests to its
 * {@link TcpResponder} (target side) and responses to its {@link TcpRequester} (initiator side). It also sends
 * heartbeats and declares the peer dead after {@link TcpConfiguration#peerTimeoutNs()} of silence.
 * <p>
 * A peer that breaks the protocol (wrong version, unknown type, impossible length, bad sequence) is disconnected
 * with a log line; other connections carry on. Every method but {@link #localError()}, the accept/reject calls and
 * the driver lock runs on the channel's event loop.
 * <p>
 * Driver lock: the connection's state (requester, responder, decoder) and the right to write to the socket belong to
 * whoever holds it: the event loop in each of its entry points (callbacks and tasks, which spin the few
 * microseconds a poster may hold it), or a posting thread that writes its requests straight to the socket
 * ({@link TcpRequester#requestPump()}, epoll only) when nothing waits to be written. Every close that this class
 * starts clears the direct file descriptor under the lock first, and end-of-stream is delivered as an event
 * (half-closure) that closes under the lock too, so a poster never writes to a closed (or reused) descriptor.
 * <p>
 * Order on the wire: every frame after the handshake goes through one {@link TcpOutbound}, whoever holds the lock
 * (the event loop, a poster, or a thread polling a completion queue that read requests and answers them), so
 * responses and acknowledgements leave in the order the responder produced them.
 */
final class TcpConnection extends ChannelInboundHandlerAdapter implements TcpFrameDecoder.FrameListener
{
    static final Logger LOG = System.getLogger("io.verbs4j.tcp");
    private static final VarHandle DRIVER;
    private static final VarHandle DRAIN_SCHEDULED;

    static
    {
        try
        {
            DRIVER = MethodHandles.lookup().findVarHandle(TcpConnection.class, "driver", int.class);
            DRAIN_SCHEDULED = MethodHandles.lookup().findVarHandle(TcpConnection.class, "drainScheduled", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private static final int MAX_BUFFERED_PIECES = 64;
    private static final int POLL_READS_PER_CALL = 4;
    /**
     * Event mode: how long after the last sign of input (a post or a frame written, which will be answered, or data
     * read) polling threads keep reading a connection; then they leave it to the I/O thread until the next such
     * sign. A waiter's spin phase thus stops making a system call per step once nothing came for a round trip and
     * more, and leaves the CPU to the threads that write (on a 2-core machine a spin phase full of system calls
     * starved them).
     */
    static final long POLLER_PATIENCE_NS = 200_000;

    private final TcpDevice device;
    private final TcpConfiguration configuration;
    private final TcpCounters counters;
    private final boolean clientSide;
    private final TcpListener listener;
    private final TcpRequester requester;
    private final TcpResponder responder;
    private final TcpAuthenticator auth;
    private final TcpFrameDecoder decoder;
    private final ManyToManyConcurrentArrayQueue<RegionByteBuf> bufferPool =
        new ManyToManyConcurrentArrayQueue<>(1024);
    private final RegionByteBuf[] pieces = new RegionByteBuf[MAX_BUFFERED_PIECES];
    private final FrameFlyweight outFrame = new FrameFlyweight();
    private final HandshakeFlyweight handshake = new HandshakeFlyweight();
    private final AtomicBoolean localErrorSignalled = new AtomicBoolean();
    private final Runnable heartbeatTask = this::onHeartbeatTickLocked;
    private final TcpDirectWriter directWriter = new TcpDirectWriter();
    @SuppressWarnings("unused")
    private volatile int driver;
    @SuppressWarnings("unused")
    private volatile int drainScheduled;
    private final TcpOutbound outbound = new TcpOutbound(new OutboundWire());
    private final Runnable drainTask = this::drainLocked;
    private volatile FileDescriptor socketFd;
    private final boolean directWrite;
    private final Runnable backstopTask = this::onBackstopTick;
    private final Runnable closeTask = this::closeLocked;
    private boolean pollDriven;
    private boolean polled;
    private boolean readsShared;
    private final TcpReadOwnership reads = new TcpReadOwnership(new ReadLock(), this::decodeRead);
    private final TcpFrameSlots frameSlots = new TcpFrameSlots();
    private ScheduledFuture<?> backstop;
    private boolean ioLocked;
    /** The event loop waits for the driver lock: pollers leave it alone until it had its turn. */
    private volatile boolean ioWaiting;
    /** When input last looked likely (event mode): a post, a frame written, or data read. */
    private volatile long inputExpectedNs = System.nanoTime();

    private ChannelHandlerContext ctx;
    private volatile TcpQueuePair qp;
    private volatile boolean established;
    private volatile boolean closed;
    private boolean peerDisconnected;

    private TcpQueuePair pendingQp;
    private byte[] requestPrivateData;
    private CompletableFuture<byte[]> connectFuture;
    private TcpConnectionRequest pendingRequest;
    private long peerInitialSequence;
    private ScheduledFuture<?> heartbeat;
    private ScheduledFuture<?> handshakeTimeout;

    private int handshakeFlags;

    private boolean readSinceTick;
    private boolean writtenFromApplication;
    private boolean wroteSinceTick;
    private final SilenceDetector silence = new SilenceDetector();

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
        this(device, true, null);
        this.pendingQp = qp;
        this.requestPrivateData = privateData;
        this.connectFuture = future;
    }

    /**
     * A listener's side.
     *
     * @param device   the device.
     * @param listener the listener that accepted the socket.
     */
    TcpConnection(final TcpDevice device, final TcpListener listener)
    {
        this(device, false, listener);
    }

    private TcpConnection(final TcpDevice device, final boolean clientSide, final TcpListener listener)
    {
        this.device = device;
        this.configuration = device.configuration();
        this.counters = device.counters();
        this.clientSide = clientSide;
        this.listener = listener;
        this.decoder = new TcpFrameDecoder(this, counters, new PayloadSink(device.capabilities().maxSge() + 1),
            null != device.tls(), configuration.directReadThreshold());
        this.directWrite = configuration.directWrite();
        this.requester = new TcpRequester(this);
        this.responder = new TcpResponder(this);
        this.auth = new TcpAuthenticator(configuration.secret(), clientSide);
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

    boolean isEstablished()
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
        return DRIVER.compareAndSet(this, 0, 1);
    }

    /** Releases the driver lock taken with {@link #tryLockDriver()}. */
    void unlockDriver()
    {
        DRIVER.setRelease(this, 0);
    }

    /**
     * Event loop: takes the driver lock for an entry point (waits out a poster's write, a few microseconds).
     *
     * @return true if taken by this call, false if this entry point is nested in one that holds it.
     */
    boolean lockIo()
    {
        if (ioLocked)
        {
            return false;
        }
        if (!DRIVER.compareAndSet(this, 0, 1))
        {
            // A spinning poller takes the lock again microseconds after it released it: it must step aside, or
            // the event loop (woken by epoll, or to write a post) could wait for a long time.
            ioWaiting = true;
            int spins = 0;
            while (!DRIVER.compareAndSet(this, 0, 1))
            {
                if (++spins < 100)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    Thread.yield();
                }
            }
            ioWaiting = false;
        }
        ioLocked = true;
        return true;
    }

    /**
     * Event loop: releases the lock taken by {@link #lockIo()}, then sends what a poster left for this thread.
     *
     * @param locked what {@link #lockIo()} returned.
     */
    void unlockIo(final boolean locked)
    {
        if (!locked)
        {
            return;
        }
        ioLocked = false;
        DRIVER.setRelease(this, 0);
        while (requester.isPumpWanted() && DRIVER.compareAndSet(this, 0, 1))
        {
            ioLocked = true;
            try
            {
                requester.pump();
            }
            finally
            {
                ioLocked = false;
                DRIVER.setRelease(this, 0);
            }
        }
    }

    /** @return the socket for direct writes (epoll, established, not closing), or null. Driver lock held. */
    FileDescriptor directFd()
    {
        return directWrite ? socketFd : null;
    }

    /** A poster wrote frames straight to the socket (no heartbeat needed this tick). Driver lock held. */
    void wroteDirect()
    {
        wroteSinceTick = true;
        expectInput();
    }

    /** @return the posting thread's writer. Driver lock held. */
    TcpDirectWriter directWriter()
    {
        return directWriter;
    }

    /**
     * @return true if no frame waits in the connection's ordered queue ({@link TcpOutbound}) nor in Netty's outbound
     * buffer (written or not yet flushed): a direct write may go now. Driver lock held.
     */
    boolean mayWriteDirect()
    {
        return outbound.mayWriteDirect();
    }

    /** @return the connection's ordered way out (frame atomicity of direct writes). Driver lock held. */
    TcpOutbound outbound()
    {
        return outbound;
    }

    private void enableDirectWrites()
    {
        // Under TLS the socket carries ciphertext: every byte goes through the SslHandler, so no direct writes,
        // direct reads or polling-mode reads (socketFd stays null and each of those paths falls back).
        if (ctx.channel() instanceof UnixChannel && null == device.tls())
        {
            socketFd = ((UnixChannel)ctx.channel()).fd();
            if (configuration.pollingMode())
            {
                startPollDriven();
            }
            else if (readsShared)
            {
                // Event mode: Netty keeps reading (idle connections, parked waiters), and a thread polling a
                // completion queue of this device reads too, whoever comes first (TcpReadOwnership).
                polled = true;
                device.addPolled(this);
            }
        }
    }

    /**
     * Channel set-up, before the first read: where pollers may read this socket (epoll without TLS, polling mode or
     * {@link TcpConfiguration#pollerReads()}), the I/O thread's read loops take the driver lock.
     */
    private void shareReads()
    {
        if (ctx.channel() instanceof io.netty.channel.epoll.EpollSocketChannel && null == device.tls() &&
            (configuration.pollingMode() || configuration.pollerReads()))
        {
            final io.netty.channel.ChannelConfig config = ctx.channel().config();
            config.setRecvByteBufAllocator(reads.lockingAllocator(config.getRecvByteBufAllocator()));
            readsShared = true;
        }
    }

    /**
     * Any thread: input is likely soon (a post or a frame written will be answered; data came, more may follow), so
     * polling threads read this socket again (event mode, see {@link #POLLER_PATIENCE_NS}).
     */
    void expectInput()
    {
        inputExpectedNs = System.nanoTime();
    }

    /** @return when input last looked likely ({@link System#nanoTime()}; tests). */
    long inputExpectedNs()
    {
        return inputExpectedNs;
    }

    /** @return whether polling threads read this socket now (polling mode, or event mode within the patience). */
    boolean pollersReading()
    {
        return pollDriven || System.nanoTime() - inputExpectedNs <= POLLER_PATIENCE_NS;
    }

    /** @return the socket's read ownership (tests, diagnostics). */
    TcpReadOwnership reads()
    {
        return reads;
    }

    /** The driver lock as the I/O thread's read loop takes it. */
    private final class ReadLock implements TcpReadOwnership.DriverLock
    {
        /** {@inheritDoc} */
        public boolean lockLoop()
        {
            return lockIo();
        }

        /** {@inheritDoc} */
        public void unlockLoop(final boolean locked)
        {
            unlockIo(locked);
        }
    }

    // ---------------------------------------------------------------- polling mode: CQ polling drives the socket

    /**
     * Polling mode on epoll: Netty stops reading this socket; reads happen in {@link #progress()} (from the
     * application's completion-queue polling, through the device's {@code Progress}) and, as a backstop for
     * applications that do not poll (one-sided targets) and for failure detection, on the I/O thread every
     * {@link TcpConfiguration#pollBackstopNs()}.
     */
    private void startPollDriven()
    {
        pollDriven = true;
        polled = true;
        ctx.channel().config().setAutoRead(false);
        final long interval = configuration.pollBackstopNs();
        backstop = ctx.executor().scheduleAtFixedRate(backstopTask, interval, interval, TimeUnit.NANOSECONDS);
        device.addPolled(this);
    }

    /**
     * Any thread (the device's {@code Progress}, driven by CQ polling): reads what the socket holds and handles it,
     * if the driver lock is free. Never blocks.
     *
     * @return units of work done (socket reads with data), 0 when idle or busy elsewhere.
     */
    int progress()
    {
        if (null == socketFd || ioWaiting || !pollersReading() || !DRIVER.compareAndSet(this, 0, 1))
        {
            return 0;
        }
        int work = 0;
        try
        {
            writtenFromApplication = false;
            final long framesBefore = decoder.framesDecoded();
            work = pollSocket();
            if (work > 0)
            {
                expectInput();
                counters.add(TcpCounter.FRAMES_RECEIVED_BY_POLLERS, decoder.framesDecoded() - framesBefore);
                afterPollFromApplication();
            }
        }
        finally
        {
            DRIVER.setRelease(this, 0);
        }
        if (requester.isPumpWanted())
        {
            requester.requestPump();
        }
        return work;
    }

    private int pollSocket()
    {
        final FileDescriptor fd = socketFd;
        if (null == fd || closed)
        {
            return 0;
        }
        final int work = reads.read(fd, POLL_READS_PER_CALL);
        if (TcpReadOwnership.END_OF_STREAM == work)
        {
            scheduleClose();
            return 0;
        }
        if (work > 0)
        {
            readSinceTick = true;
        }
        return work;
    }

    /**
     * After a read on an application thread: counters, then ACKs and further sends, straight to the socket where
     * nothing waits, else in order behind what waits (the responses this read produced, among others).
     */
    private void afterPollFromApplication()
    {
        decoder.publishReceiveCounters();
        if (established && !closed)
        {
            if (requester.hasUnsent())
            {
                // A direct batch carries the deferred ACK too.
                requester.pumpFromPoller();
            }
            if (responder.isAckRequested() && !requester.writeAckDirect())
            {
                // Frames wait (responses of this read, or Netty's): the ACK goes behind them.
                responder.flushDeferredAck();
            }
        }
        if (writtenFromApplication)
        {
            writtenFromApplication = false;
            outbound.flush();
        }
    }

    private void onBackstopTick()
    {
        final boolean locked = lockIo();
        try
        {
            if (pollDriven && !closed && pollSocket() > 0)
            {
                onReadComplete();
            }
        }
        finally
        {
            unlockIo(locked);
        }
    }

    /** Event loop: moves the frames other threads produced into Netty, in order, and flushes. */
    private void drainLocked()
    {
        DRAIN_SCHEDULED.setVolatile(this, 0);
        final boolean locked = lockIo();
        try
        {
            outbound.flush();
        }
        finally
        {
            unlockIo(locked);
        }
    }

    /** The connection's side of {@link TcpOutbound}: Netty on the event loop, and the task that drains the queue. */
    private final class OutboundWire implements TcpOutbound.Wire
    {
        /** {@inheritDoc} */
        public boolean inEventLoop()
        {
            return ctx.executor().inEventLoop();
        }

        /** {@inheritDoc} */
        public void write(final ByteBuf frame)
        {
            ctx.write(frame, ctx.voidPromise());
        }

        /** {@inheritDoc} */
        public void flush()
        {
            ctx.flush();
        }

        /** {@inheritDoc} */
        public boolean nettyIdle()
        {
            final ChannelOutboundBuffer buffer = ctx.channel().unsafe().outboundBuffer();
            return null != buffer && 0 == buffer.totalPendingWriteBytes();
        }

        /** {@inheritDoc} */
        public void requestDrain()
        {
            if (DRAIN_SCHEDULED.compareAndSet(TcpConnection.this, 0, 1))
            {
                try
                {
                    ctx.executor().execute(drainTask);
                }
                catch (final java.util.concurrent.RejectedExecutionException ex)
                {
                    // The event loop is shutting down: the channel closes and onInactive releases what waits.
                    DRAIN_SCHEDULED.setVolatile(TcpConnection.this, 0);
                }
            }
        }
    }

    private void closeLocked()
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

    private void scheduleClose()
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
    private void closeChannel()
    {
        socketFd = null;
        ctx.close();
    }

    String peer()
    {
        return null == ctx ? "?" : String.valueOf(ctx.channel().remoteAddress());
    }

    // ---------------------------------------------------------------- writing

    /**
     * @param payloadCapacity bytes the caller will append after the header.
     * @return a pooled direct buffer with room for a header, writer index after it, wrapped by the out flyweight.
     */
    ByteBuf newFrame(final int payloadCapacity)
    {
        final int length = FrameFlyweight.HEADER_LENGTH + payloadCapacity;
        ByteBuf buffer = null;
        if (ctx.executor().inEventLoop())
        {
            buffer = ctx.alloc().directBuffer(length);
        }
        else
        {
            buffer = frameSlots.take(length);
            if (null == buffer)
            {
                buffer = device.offLoopFrames().directBuffer(length);
            }
        }
        buffer.writerIndex(FrameFlyweight.HEADER_LENGTH);
        outFrame.wrap(buffer, 0);
        return buffer;
    }

    FrameFlyweight outFrame()
    {
        return outFrame;
    }

    /**
     * Driver lock held: the next frame's first buffer (header, inline payload), in order through {@link TcpOutbound}.
     *
     * @param buffer the buffer.
     */
    void writeFrame(final ByteBuf buffer)
    {
        counters.increment(TcpCounter.FRAMES_SENT);
        wroteSinceTick = true;
        writtenFromApplication = true;
        expectInput();
        outbound.write(buffer);
    }

    void writeControl(final byte type, final long sequence, final int argument)
    {
        final ByteBuf buffer = newFrame(0);
        outFrame.encode(type, 0, 0, sequence, 0, 0, argument);
        writeFrame(buffer);
    }

    /** Driver lock held: sends what was written (from another thread than the event loop: soon, in order). */
    void flush()
    {
        outbound.flush();
    }

    /**
     * Wraps {@code [offset, offset + length)} of a region as socket buffers, in contiguous pieces, into
     * {@link #pieces()} from index {@code first}.
     *
     * @param region the region.
     * @param offset offset in it.
     * @param length bytes.
     * @param first  first free index of {@link #pieces()}.
     * @return the next free index, or -1 if the region was closed or too many pieces were needed (pieces taken by
     * this call are released).
     */
    int wrap(final TcpMemoryRegion region, final long offset, final long length, final int first)
    {
        int next = first;
        long done = 0;
        while (done < length)
        {
            final long part = Math.min(length - done, region.memory().contiguousLength(offset + done));
            final RegionByteBuf piece = next < MAX_BUFFERED_PIECES ?
                RegionByteBuf.take(bufferPool, region, region.memory().addressOf(offset + done), (int)part) : null;
            if (null == piece)
            {
                releasePieces(first, next);
                return -1;
            }
            pieces[next++] = piece;
            done += part;
        }
        return next;
    }

    RegionByteBuf[] pieces()
    {
        return pieces;
    }

    void releasePieces(final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            pieces[i].release();
            pieces[i] = null;
        }
    }

    void writePieces(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            outbound.write(pieces[i]);
            pieces[i] = null;
        }
    }

    // ---------------------------------------------------------------- channel events

    /** {@inheritDoc} */
    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
        shareReads();
    }

    /** {@inheritDoc} */
    public void channelActive(final ChannelHandlerContext ctx)
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
                    if (!established && null == pendingRequest)
                    {
                        protocolError("no handshake within " +
                            TimeUnit.NANOSECONDS.toMillis(configuration.handshakeTimeoutNs()) + " ms");
                    }
                },
                configuration.handshakeTimeoutNs(), TimeUnit.NANOSECONDS);
        }
        ctx.fireChannelActive();
    }

    private void writeConnectRequest()
    {
        final long initialSequence = pendingQp.sendQueue().posted();
        final ByteBuf buffer = ctx.alloc().directBuffer(HandshakeFlyweight.HEADER_LENGTH +
            requestPrivateData.length);
        handshake.wrap(buffer, 0).encode(FrameType.CONNECT_REQUEST, requestPrivateData.length,
            pendingQp.qpNumber(), initialSequence, heartbeatIntervalUs());
        buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH).writeBytes(requestPrivateData);
        ctx.write(buffer, ctx.voidPromise());
    }

    private void writeAuthFrame(final byte type, final byte[] payload)
    {
        final ByteBuf buffer = ctx.alloc().directBuffer(HandshakeFlyweight.HEADER_LENGTH + payload.length);
        handshake.wrap(buffer, 0).encode(type, payload.length, 0, 0, 0);
        buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH).writeBytes(payload);
        ctx.write(buffer, ctx.voidPromise());
    }

    /** {@inheritDoc} */
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final ByteBuf in = (ByteBuf)msg;
        final boolean locked = lockIo();
        try
        {
            readSinceTick = true;
            expectInput();
            decoder.decode(in);
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
            onReadComplete();
        }
        finally
        {
            unlockIo(locked);
        }
    }

    private void onReadComplete()
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
            onTlsHandshakeFailure(((SslHandshakeCompletionEvent)event).cause());
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

    private static boolean isTlsFailure(final Throwable cause)
    {
        for (Throwable t = cause; null != t; t = t.getCause() == t ? null : t.getCause())
        {
            if (t instanceof javax.net.ssl.SSLException)
            {
                return true;
            }
        }
        return false;
    }

    private void onTlsHandshakeFailure(final Throwable cause)
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final String reason = TcpTls.describe(cause);
        LOG.log(Level.WARNING, "verbs4j tcp: refusing the connection with " + peer() + ": TLS handshake failed: " +
            reason);
        counters.increment(TcpCounter.AUTH_FAILURES); // after the log line: whoever sees the count can see it
        if (null != connectFuture)
        {
            connectFuture.completeExceptionally(new ConnectionException("TLS handshake with " + peer() +
                " failed: " + reason + " (both sides need " + TcpConfiguration.TLS_PROP_NAME +
                "=true and certificates the other trusts)"));
        }
        closeChannel();
    }

    /** {@inheritDoc} */
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        if (null != device.tls() && null != connectFuture && isTlsFailure(cause))
        {
            // TLS 1.3: the connector's handshake completes before the listener checks its certificate, so the
            // listener's refusal arrives as an alert on the first read.
            onTlsHandshakeFailure(cause);
        }
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
        if (null != handshakeTimeout)
        {
            handshakeTimeout.cancel(false);
        }
        if (null != backstop)
        {
            backstop.cancel(false);
        }
        if (polled)
        {
            polled = false;
            device.removePolled(this);
        }
        decoder.sink().clear();
        outbound.close();
        if (null != connectFuture)
        {
            connectFuture.completeExceptionally(new ConnectionException("connection to " + peer() +
                " closed during the handshake" + (null == device.tls() ? " (does the listener require TLS, or " +
                "speak another protocol version?)" : "")));
        }
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
        bufferPool.clear();
        reads.release();
        frameSlots.close();
    }

    // ---------------------------------------------------------------- decoded frames

    /** A reader that holds the driver lock read {@code in}: decode it; false once the connection closed. */
    private boolean decodeRead(final ByteBuf in)
    {
        decoder.decode(in);
        return !closed;
    }

    /** {@inheritDoc} */
    public boolean onFrameHeader(
        final int type,
        final int flags,
        final int length,
        final long sequence,
        final long address,
        final int rkey,
        final int argument)
    {
        if (!established)
        {
            return onHandshakeHeader(type);
        }
        switch (type)
        {
            case FrameType.SEND:
            case FrameType.WRITE:
            case FrameType.WRITE_WITH_IMM:
            case FrameType.READ_REQUEST:
            case FrameType.ATOMIC_REQUEST:
                responder.onRequest(type, flags, length, sequence, address, rkey, argument);
                break;
            case FrameType.READ_RESPONSE:
            case FrameType.ATOMIC_RESPONSE:
            case FrameType.ACK:
            case FrameType.NAK:
            case FrameType.RNR_NAK:
                requester.onResponse(type, length, sequence, address, argument);
                break;
            case FrameType.DISCONNECT:
                peerDisconnected = true;
                break;
            case FrameType.HEARTBEAT:
                break;
            default:
                protocolError("unexpected " + FrameType.name(type) + " frame on an established connection");
                return false;
        }
        return !closed;
    }

    /** {@inheritDoc} */
    public void onFrameEnd(final int type)
    {
        if (!established)
        {
            onHandshakeEnd(type);
            return;
        }
        switch (type)
        {
            case FrameType.SEND:
            case FrameType.WRITE:
            case FrameType.WRITE_WITH_IMM:
            case FrameType.READ_REQUEST:
            case FrameType.ATOMIC_REQUEST:
                responder.onRequestEnd();
                break;
            case FrameType.READ_RESPONSE:
            case FrameType.ATOMIC_RESPONSE:
            case FrameType.ACK:
            case FrameType.NAK:
            case FrameType.RNR_NAK:
                requester.onResponseEnd();
                break;
            case FrameType.DISCONNECT:
                LOG.log(Level.DEBUG, () -> "verbs4j tcp: " + peer() + " disconnected");
                final TcpQueuePair bound = qp;
                // Only while the queue pair is still bound to this connection: a queue pair reset (and perhaps
                // reconnected) since then must not be moved to ERROR by its old connection's late frames.
                if (null != bound && bound.connection() == this)
                {
                    bound.enterError();
                }
                closeChannel();
                break;
            default:
                break;
        }
    }

    /** {@inheritDoc} */
    public void onProtocolError(final String reason)
    {
        protocolError(reason);
    }

    /** {@inheritDoc} */
    public boolean isClosed()
    {
        return closed;
    }

    /** {@inheritDoc} */
    public FileDescriptor directReadFd()
    {
        return socketFd;
    }

    // ---------------------------------------------------------------- handshake

    private boolean onHandshakeHeader(final int type)
    {
        if (!FrameType.isHandshake(type))
        {
            protocolError("expected a handshake, got a " + FrameType.name(type) + " frame");
            return false;
        }
        handshake.wrap(decoder.header(), 0);
        if (HandshakeFlyweight.MAGIC != handshake.magic())
        {
            protocolError("bad handshake magic 0x" + Integer.toHexString(handshake.magic()));
            return false;
        }
        if (null != pendingRequest || !admitHandshakeType(type))
        {
            if (!closed)
            {
                protocolError("unexpected " + FrameType.name(type) + " during the handshake");
            }
            return false;
        }
        peerInitialSequence = handshake.initialSequence();
        handshakeFlags = handshake.flags();
        decoder.payloadIntoSmall();
        return true;
    }

    /**
     * Which handshake frame may come now, given this side's secret and the authentication so far. A frame that
     * bypasses or contradicts the authentication is refused as an authentication failure (logged, counted, the
     * peer told why); one that makes no sense at all is left to the caller as a protocol error.
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
        if (closed)
        {
            return;
        }
        closed = true;
        LOG.log(Level.WARNING, "verbs4j tcp: refusing the connection with " + peer() + ": authentication failed: " +
            reason);
        counters.increment(TcpCounter.AUTH_FAILURES); // after the log line: whoever sees the count can see it
        final byte[] data = reason.getBytes(StandardCharsets.UTF_8);
        final ByteBuf buffer = ctx.alloc().directBuffer(HandshakeFlyweight.HEADER_LENGTH + data.length);
        handshake.wrap(buffer, 0).encode(FrameType.CONNECT_REJECT, data.length, 0, 0, 0)
            .flags(HandshakeFlyweight.FLAG_AUTH_REFUSAL);
        buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH).writeBytes(data);
        ctx.writeAndFlush(buffer).addListener(future -> lingerThenClose());
        // Only now: a failed connect closes the channel, and the refusal must be on its way to the peer first.
        if (null != connectFuture)
        {
            connectFuture.completeExceptionally(new ConnectionException("authentication failed with " + peer() +
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
            ctx.executor().schedule(closeTask, 1, TimeUnit.SECONDS);
        }
        else
        {
            closeChannel();
        }
    }

    private void onHandshakeEnd(final int type)
    {
        final byte[] data = decoder.smallCopy();
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
                pendingRequest = new TcpConnectionRequest(this, data, peer());
                listener.enqueue(pendingRequest);
                break;
            case FrameType.CONNECT_ACCEPT:
                if (connectFuture.isDone())
                {
                    closeChannel();
                    return;
                }
                try
                {
                    establish(pendingQp);
                }
                catch (final RuntimeException ex)
                {
                    connectFuture.completeExceptionally(ex);
                    closeChannel();
                    return;
                }
                if (!connectFuture.complete(data))
                {
                    pendingQp.enterError();
                }
                connectFuture = null;
                enableDirectWrites();
                requester.pump();
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
            LOG.log(Level.WARNING, "verbs4j tcp: " + peer() + " refused the connection: authentication failed: " +
                reason);
            counters.increment(TcpCounter.AUTH_FAILURES); // after the log line: whoever sees the count can see it
        }
        if (null != connectFuture)
        {
            connectFuture.completeExceptionally(new ConnectionException((authRefusal ? "authentication failed: " :
                "") + "rejected by " + peer() + ": " + reason));
            connectFuture = null;
        }
        closed = true;
        closeChannel();
    }

    private void establish(final TcpQueuePair queuePair)
    {
        final long initialSequence = queuePair.sendQueue().posted();
        requester.start(queuePair, initialSequence);
        responder.start(queuePair, peerInitialSequence);
        qp = queuePair;
        queuePair.connect(this);
        established = true;
        decoder.established();
        counters.increment(TcpCounter.CONNECTIONS_ESTABLISHED);
        final long interval = configuration.heartbeatIntervalNs();
        silence.start(System.nanoTime());
        heartbeat = ctx.executor().scheduleAtFixedRate(heartbeatTask, interval, interval, TimeUnit.NANOSECONDS);
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
                final boolean locked = lockIo();
                try
                {
                    if (closed || !ctx.channel().isActive())
                    {
                        throw new ConnectionException("the connector " + peer() + " has gone");
                    }
                    final long initialSequence = queuePair.sendQueue().posted();
                    establish(queuePair);
                    final ByteBuf buffer = ctx.alloc().directBuffer(HandshakeFlyweight.HEADER_LENGTH +
                        privateData.length);
                    handshake.wrap(buffer, 0).encode(FrameType.CONNECT_ACCEPT, privateData.length,
                        queuePair.qpNumber(), initialSequence, heartbeatIntervalUs());
                    buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH).writeBytes(privateData);
                    ctx.writeAndFlush(buffer, ctx.voidPromise());
                    enableDirectWrites();
                    done.complete(null);
                    requester.pump();
                }
                catch (final RuntimeException ex)
                {
                    done.completeExceptionally(ex);
                }
                finally
                {
                    unlockIo(locked);
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
            final ByteBuf buffer = ctx.alloc().directBuffer(HandshakeFlyweight.HEADER_LENGTH + data.length);
            handshake.wrap(buffer, 0).encode(FrameType.CONNECT_REJECT, data.length, 0, 0, 0);
            buffer.writerIndex(HandshakeFlyweight.HEADER_LENGTH).writeBytes(data);
            ctx.writeAndFlush(buffer).addListener(ChannelFutureListener.CLOSE);
        });
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

    private int heartbeatIntervalUs()
    {
        return (int)Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMicros(configuration.heartbeatIntervalNs()));
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
                        final ByteBuf buffer = newFrame(0);
                        outFrame.encode(FrameType.DISCONNECT, 0, 0, 0, 0, 0, 0);
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
    void protocolError(final String reason)
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

    private void onHeartbeatTickLocked()
    {
        final boolean locked = lockIo();
        try
        {
            onHeartbeatTick();
        }
        finally
        {
            unlockIo(locked);
        }
    }

    private void onHeartbeatTick()
    {
        if (closed)
        {
            return;
        }
        // A tick later than two intervals means the event loop itself was starved (a loaded machine, a GC pause)
        // and the peer's bytes may be waiting unread: that gap is not counted (nor are the missed ticks that a
        // fixed-rate schedule then runs back to back).
        if (silence.isSilent(System.nanoTime(), readSinceTick, 2 * configuration.heartbeatIntervalNs(),
            configuration.peerTimeoutNs()))
        {
            counters.increment(TcpCounter.PEER_TIMEOUTS);
            LOG.log(Level.WARNING, "verbs4j tcp: " + peer() + " silent for " +
                TimeUnit.NANOSECONDS.toMillis(silence.silentNs()) + " ms (peer timeout); closing the connection");
            closed = true;
            final TcpQueuePair bound = qp;
            if (null != bound && bound.connection() == this && QpState.ERROR != bound.state())
            {
                bound.fail(WcStatus.RETRY_EXC_ERR);
            }
            closeChannel();
            return;
        }
        readSinceTick = false;
        if (established && responder.flushDeferredAck())
        {
            outbound.flush();
        }
        if (!wroteSinceTick)
        {
            writeControl(FrameType.HEARTBEAT, 0, 0);
            outbound.flush();
        }
        wroteSinceTick = false;
    }
}
