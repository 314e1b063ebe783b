// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.UncheckedBooleanSupplier;
import org.agrona.BufferUtil;

/**
 * Who reads a connection's socket: one reader at a time, whether it is the I/O thread (Netty's read loop) or a
 * thread polling a completion queue ({@link TcpSocketPoller#progress()}, UCX's {@code worker.progress()} model: a
 * completion reaches a polling thread with no wake-up).
 * <p>
 * The invariant: bytes are decoded in the order the socket delivered them. Two readers that each read and then
 * decode could invert it (A reads x, B reads y, B decodes y before A decodes x), so a reader holds the connection's
 * driver lock from its read system call until it has decoded what that call returned:
 * <ul>
 *     <li>the I/O thread: Netty makes the system call itself, so the allocator from {@link #lockingAllocator} makes
 *     its read loop take the lock when it asks for its first buffer and release it when the loop ends
 *     ({@code readComplete}): everything Netty reads in one loop is decoded before a poller may read;</li>
 *     <li>a polling thread: {@link #read} with the lock already taken by a non-blocking try (a poll never waits):
 *     a non-blocking read into this class's buffer, then the decoder, a bounded number of times.</li>
 * </ul>
 * No third lock: this is the connection's driver lock, which also orders writers ({@link TcpOutbound}).
 * Edge-triggered epoll stays live: the I/O thread reads after every arrival notification, so bytes a poller left
 * (it stops after a bounded number of reads) are read by the I/O thread, and bytes a poller took leave it an empty
 * read.
 */
final class TcpReadOwnership
{
    /** What {@link #read} returns when the socket reached its end or failed: the caller closes the connection. */
    static final int END_OF_STREAM = -1;
    /** Bytes a polling thread reads per system call. */
    static final int BUFFER_LENGTH = 64 * 1024;

    /** The connection's driver lock, as the readers take it. */
    interface DriverLock
    {
        /**
         * I/O thread: takes the lock, waiting out its holder (a poller's bounded read or a poster's write).
         *
         * @return true if taken by this call; false if the I/O thread already holds it (a nested entry point).
         */
        boolean lockLoop();

        /**
         * I/O thread: releases what {@link #lockLoop()} took.
         *
         * @param locked what {@link #lockLoop()} returned.
         */
        void unlockLoop(boolean locked);
    }

    /** Decodes bytes read from the socket, in order; driver lock held. */
    interface Decoder
    {
        /**
         * @param in bytes just read (consumed by this call).
         * @return false if the connection closed meanwhile (stop reading).
         */
        boolean decode(ByteBuf in);

        /**
         * Before a read into the receive buffer: a large payload in progress is read straight into place instead
         * (the buffer would add a copy of every continuation).
         *
         * @return payload bytes so read (0: the socket had none), or -1 if no such payload is in progress.
         */
        default long continuePayloadDirect()
        {
            return -1;
        }

        /** @return true while a frame's payload is only partly decoded (after a direct read: the socket is dry). */
        default boolean inPayload()
        {
            return false;
        }
    }

    private final DriverLock lock;
    private final Decoder decoder;
    private ByteBuffer memory;
    private ByteBuf buffer;
    private long address;
    private long pollerReads;
    private long directReads;
    private long loopReads;

    /**
     * @param lock    the connection's driver lock.
     * @param decoder the connection's frame decoder.
     */
    TcpReadOwnership(final DriverLock lock, final Decoder decoder)
    {
        this.lock = lock;
        this.decoder = decoder;
    }

    /**
     * Wraps the channel's receive allocator so that the I/O thread's read loop holds the driver lock. Must be set
     * on the channel before its first read (Netty creates the read handle once per channel).
     *
     * @param netty the channel's allocator.
     * @return the allocator to set instead.
     */
    RecvByteBufAllocator lockingAllocator(final RecvByteBufAllocator netty)
    {
        return new LockingAllocator(netty);
    }

    /**
     * A reader that holds the driver lock (a polling thread, or the I/O thread's polling-mode backstop): reads
     * what the socket holds without waiting and decodes it, at most {@code maxReads} system calls.
     *
     * @param fd       the socket.
     * @param maxReads bound on system calls (a poll stays short; the I/O thread reads what is left).
     * @return reads that returned data, or {@link #END_OF_STREAM}.
     */
    int read(final FileDescriptor fd, final int maxReads)
    {
        if (null == buffer)
        {
            memory = ByteBuffer.allocateDirect(BUFFER_LENGTH);
            address = BufferUtil.address(memory);
            buffer = Unpooled.wrappedBuffer(memory);
        }
        int reads = 0;
        while (reads < maxReads)
        {
            final long direct = decoder.continuePayloadDirect();
            if (direct >= 0)
            {
                if (0 == direct)
                {
                    break;
                }
                reads++;
                directReads++;
                if (decoder.inPayload())
                {
                    // The socket had less than the payload's rest: nothing more to read now.
                    break;
                }
                continue;
            }
            final int n;
            try
            {
                n = fd.readAddress(address, 0, BUFFER_LENGTH);
            }
            catch (final IOException ex)
            {
                return END_OF_STREAM;
            }
            if (0 == n)
            {
                break;
            }
            if (n < 0)
            {
                return END_OF_STREAM;
            }
            reads++;
            pollerReads++;
            buffer.setIndex(0, n);
            if (!decoder.decode(buffer) || n < BUFFER_LENGTH)
            {
                break;
            }
        }
        return reads;
    }

    /**
     * Frees the read buffer now rather than at some later garbage collection (the connection closed). Driver lock
     * held, so no reader is using it; a later {@link #read} would allocate a new one.
     */
    void release()
    {
        if (null != memory)
        {
            buffer = null;
            BufferUtil.free(memory);
            memory = null;
        }
    }

    /** @return system calls of {@link #read} that put a payload in progress straight into place (diagnostics). */
    long directReads()
    {
        return directReads;
    }

    /** @return read loops of the I/O thread that took the lock (diagnostics, tests). */
    long loopReads()
    {
        return loopReads;
    }

    /** @return system calls of {@link #read} that returned data (diagnostics, tests). */
    long pollerReads()
    {
        return pollerReads;
    }

    /** Netty's allocator, whose handles hold the driver lock for a read loop. */
    private final class LockingAllocator implements RecvByteBufAllocator
    {
        private final RecvByteBufAllocator netty;

        LockingAllocator(final RecvByteBufAllocator netty)
        {
            this.netty = netty;
        }

        /** {@inheritDoc} */
        @SuppressWarnings("deprecation")
        public Handle newHandle()
        {
            return new LockingHandle((ExtendedHandle)netty.newHandle());
        }
    }

    /**
     * Netty calls {@code allocate} just before each read system call of a loop and {@code readComplete} once after
     * the loop, on every path (data, end of stream, exception): the lock is held in between.
     */
    @SuppressWarnings("deprecation")
    private final class LockingHandle extends RecvByteBufAllocator.DelegatingHandle
        implements RecvByteBufAllocator.ExtendedHandle
    {
        private boolean held;

        LockingHandle(final RecvByteBufAllocator.ExtendedHandle netty)
        {
            super(netty);
        }

        /** {@inheritDoc} */
        public ByteBuf allocate(final ByteBufAllocator alloc)
        {
            if (!held)
            {
                held = lock.lockLoop();
                loopReads++;
            }
            return super.allocate(alloc);
        }

        /** {@inheritDoc} */
        public boolean continueReading(final UncheckedBooleanSupplier maybeMoreDataSupplier)
        {
            return ((RecvByteBufAllocator.ExtendedHandle)delegate()).continueReading(maybeMoreDataSupplier);
        }

        /** {@inheritDoc} */
        public void readComplete()
        {
            try
            {
                super.readComplete();
            }
            finally
            {
                if (held)
                {
                    held = false;
                    lock.unlockLoop(true);
                }
            }
        }
    }
}
