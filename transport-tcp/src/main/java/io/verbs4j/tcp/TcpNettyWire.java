// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * The Netty side of a connection's {@link TcpOutbound} ({@link TcpOutbound.Wire}): frames go into the channel's
 * outbound buffer on the event loop, and a thread other than the event loop that left frames in the ordered queue
 * asks for one drain task (at most one in flight), which takes the driver lock, moves the queue into Netty and
 * flushes.
 * <p>
 * Threading: {@link #write} and {@link #flush} on the event loop; {@link #inEventLoop}, {@link #nettyIdle} and
 * {@link #requestDrain} from whoever holds the driver lock.
 */
final class TcpNettyWire implements TcpOutbound.Wire
{
    private static final VarHandle DRAIN_SCHEDULED;

    static
    {
        try
        {
            DRAIN_SCHEDULED = MethodHandles.lookup().findVarHandle(TcpNettyWire.class, "drainScheduled", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Runnable drainTask = this::drainLocked;
    @SuppressWarnings("unused")
    private volatile int drainScheduled;
    private ChannelHandlerContext ctx;
    private TcpDriverLock lock;
    private TcpOutbound outbound;

    /**
     * The connection's lock and queue, once both exist (the queue is built on this wire).
     *
     * @param lock     the connection's driver lock.
     * @param outbound the connection's ordered queue.
     */
    void bind(final TcpDriverLock lock, final TcpOutbound outbound)
    {
        this.lock = lock;
        this.outbound = outbound;
    }

    /**
     * The channel's context, before the first frame.
     *
     * @param ctx the connection's context.
     */
    void attach(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
    }

    /** Event loop: moves the frames other threads produced into Netty, in order, and flushes. */
    private void drainLocked()
    {
        DRAIN_SCHEDULED.setVolatile(this, 0);
        final boolean locked = lock.lockIo();
        try
        {
            outbound.flush();
        }
        finally
        {
            lock.unlockIo(locked);
        }
    }

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
        if (DRAIN_SCHEDULED.compareAndSet(this, 0, 1))
        {
            try
            {
                ctx.executor().execute(drainTask);
            }
            catch (final java.util.concurrent.RejectedExecutionException ex)
            {
                // The event loop is shutting down: the channel closes and onInactive releases what waits.
                DRAIN_SCHEDULED.setVolatile(this, 0);
            }
        }
    }
}
