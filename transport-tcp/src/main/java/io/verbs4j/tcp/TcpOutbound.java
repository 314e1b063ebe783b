// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.buffer.ByteBuf;

/**
 * The one ordered way out of a connection: every frame after the handshake (requests, READ and atomic responses,
 * ACKs and NAKs, heartbeats) reaches the socket in the order its producer handed it over, whichever thread held the
 * connection's driver lock to produce it.
 * <p>
 * Why a class of its own: the event loop's writes go into Netty's outbound buffer at once, but a write that another
 * thread makes through Netty becomes a task that runs later, after whatever the event loop writes meanwhile. In
 * polling mode the application's completion-queue poll decodes the peer's requests and answers them, while the event
 * loop's backstop does the same for the bytes it reads: a READ response produced by the poller could then reach the
 * socket after a cumulative ACK the event loop produced later, which covers the READ, and the peer rightly calls
 * that a protocol error. Here a frame produced off the event loop waits in this queue, in order, and the event loop
 * moves the queue into Netty before it writes anything of its own ({@link #write}, {@link #flush}) or when asked
 * ({@link Wire#requestDrain()}).
 * <p>
 * Frame atomicity is this class's invariant: a direct write (a poster's {@code writev}, {@link TcpDirectWriter}) may
 * go only when {@link #mayWriteDirect()} says so (nothing waits here, nothing in Netty's buffer, no half-written
 * frame); a direct write the socket took only in part is reported ({@link #directWriteTookPart()}) and the rest of
 * that frame is queued here before the driver lock is released ({@link #remainderQueued()}); until then no direct
 * write may go and the event loop may not drain (it would put another frame between the two halves).
 * <p>
 * Threading: every method runs under the connection's driver lock (no lock of its own). The queue grows when full
 * (a burst of responses while the event loop is busy); in steady state nothing is allocated.
 */
final class TcpOutbound
{
    /** Frames the queue holds before it first grows. */
    static final int INITIAL_CAPACITY = 64;

    /** What the queue needs from its connection. */
    interface Wire
    {
        /** @return true on the connection's event loop. */
        boolean inEventLoop();

        /**
         * Event loop: hands a frame (or a piece of one) to Netty, unflushed.
         *
         * @param frame the buffer; Netty releases it.
         */
        void write(ByteBuf frame);

        /** Event loop: flushes what Netty holds. */
        void flush();

        /**
         * Driver lock held, any thread.
         *
         * @return true if Netty's outbound buffer holds no bytes, written or not yet flushed (false once the channel
         * has no buffer any more).
         */
        boolean nettyIdle();

        /**
         * Any thread, driver lock held: makes the event loop soon take the driver lock, call {@link #drain()} and
         * flush (at most one such task in flight).
         */
        void requestDrain();
    }

    private final Wire wire;
    private ByteBuf[] frames = new ByteBuf[INITIAL_CAPACITY];
    private long head;
    private long tail;
    private boolean closed;
    private boolean remainderDue;

    /**
     * @param wire the connection's side of the queue.
     */
    TcpOutbound(final Wire wire)
    {
        this.wire = wire;
    }

    /**
     * Driver lock held: the next frame (or piece of a frame) in order. On the event loop it goes to Netty after what
     * waits here; elsewhere it waits here until the event loop drains the queue ({@link #flush()} asks for that).
     *
     * @param frame the buffer, released by Netty once written (or here, if the connection is closed).
     */
    void write(final ByteBuf frame)
    {
        if (closed)
        {
            frame.release();
            return;
        }
        if (wire.inEventLoop())
        {
            moveToNetty();
            wire.write(frame);
        }
        else
        {
            enqueue(frame);
        }
    }

    /**
     * Driver lock held: sends what was written. On the event loop, drains the queue and flushes Netty; elsewhere, asks
     * the event loop to do so if anything waits.
     */
    void flush()
    {
        if (wire.inEventLoop())
        {
            drain();
            wire.flush();
        }
        else if (head != tail)
        {
            wire.requestDrain();
        }
    }

    /**
     * Event loop, driver lock held: hands what waits to Netty, oldest first (unflushed).
     *
     * @return frames handed over.
     */
    int drain()
    {
        if (remainderDue)
        {
            throw new IllegalStateException("a direct write left a frame half-written and its remainder is not queued");
        }
        return moveToNetty();
    }

    private int moveToNetty()
    {
        int count = 0;
        while (head != tail)
        {
            final int index = (int)head & (frames.length - 1);
            final ByteBuf frame = frames[index];
            frames[index] = null;
            head++;
            wire.write(frame);
            count++;
        }
        return count;
    }

    /**
     * Driver lock held: may a direct write go now?
     *
     * @return true if the connection is open, no frame waits here, Netty's buffer is empty and no direct write left
     * a frame half-written: the next bytes on the socket start a frame.
     */
    boolean mayWriteDirect()
    {
        return !closed && !remainderDue && head == tail && wire.nettyIdle();
    }

    /**
     * Driver lock held: a direct write left its last frame half-written. The caller queues the rest of that frame
     * ({@link #write}) and then calls {@link #remainderQueued()} before it releases the lock.
     */
    void directWriteTookPart()
    {
        remainderDue = true;
    }

    /** Driver lock held: the rest of the half-written frame waits here now, first in line (or the link closed). */
    void remainderQueued()
    {
        remainderDue = false;
    }

    /** @return true if no frame waits here. */
    boolean isEmpty()
    {
        return head == tail;
    }

    /** @return frames waiting. */
    int size()
    {
        return (int)(tail - head);
    }

    /** The connection closed: releases what waits (unpinning regions) and every frame written from now on. */
    void close()
    {
        closed = true;
        remainderDue = false;
        while (head != tail)
        {
            final int index = (int)head & (frames.length - 1);
            final ByteBuf frame = frames[index];
            frames[index] = null;
            head++;
            frame.release();
        }
    }

    private void enqueue(final ByteBuf frame)
    {
        if (tail - head == frames.length)
        {
            grow();
        }
        frames[(int)tail & (frames.length - 1)] = frame;
        tail++;
    }

    private void grow()
    {
        final ByteBuf[] bigger = new ByteBuf[frames.length * 2];
        final int size = (int)(tail - head);
        for (int i = 0; i < size; i++)
        {
            bigger[i] = frames[(int)(head + i) & (frames.length - 1)];
        }
        frames = bigger;
        head = 0;
        tail = size;
    }
}
