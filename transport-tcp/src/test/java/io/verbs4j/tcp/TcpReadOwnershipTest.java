// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.FileDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TcpReadOwnership}'s invariant, one reader at a time from its read system call to the end of decoding what
 * it read, so that bytes are decoded in stream order whoever reads: the I/O thread's read loop (through the locking
 * allocator's handle) racing polling threads on a real non-blocking pipe.
 */
@Timeout(30)
class TcpReadOwnershipTest
{
    private final TestLock lock = new TestLock();
    private FileDescriptor[] pipe;

    @BeforeEach
    void openPipe() throws IOException
    {
        Epoll.ensureAvailability();
        pipe = FileDescriptor.pipe();
    }

    @AfterEach
    void closePipe() throws IOException
    {
        pipe[0].close();
        pipe[1].close();
    }

    @Test
    void shouldDecodeInStreamOrderWhileTheIoThreadAndPollersRace() throws Exception
    {
        final long total = 60_000;
        final StreamChecker checker = new StreamChecker(lock);
        final TcpReadOwnership reads = new TcpReadOwnership(lock, checker);
        final RecvByteBufAllocator.Handle loop = reads.lockingAllocator(new AdaptiveRecvByteBufAllocator()).newHandle();
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicInteger pollerData = new AtomicInteger();
        final Thread ioThread = start("io", failure, () ->
        {
            final ByteBufAllocator alloc = UnpooledByteBufAllocator.DEFAULT;
            while (!done.get())
            {
                // Netty's read loop: allocate, read system call, channelRead, ..., readComplete.
                loop.reset(null);
                for (int i = 0; i < 4; i++)
                {
                    final ByteBuf buffer = loop.allocate(alloc);
                    final int n = pipe[0].readAddress(buffer.memoryAddress(), buffer.writerIndex(), buffer.capacity());
                    if (n <= 0)
                    {
                        buffer.release();
                        break;
                    }
                    buffer.writerIndex(n);
                    checker.decode(buffer);
                    buffer.release();
                }
                loop.readComplete();
                Thread.yield();
            }
        });
        final Thread[] pollers = new Thread[2];
        for (int p = 0; p < pollers.length; p++)
        {
            pollers[p] = start("poller-" + p, failure, () ->
            {
                while (!done.get())
                {
                    if (lock.tryLock())
                    {
                        try
                        {
                            final int work = reads.read(pipe[0], 2);
                            assertTrue(work >= 0, "end of stream on an open pipe");
                            pollerData.addAndGet(work);
                        }
                        finally
                        {
                            lock.unlock();
                        }
                    }
                    Thread.yield();
                }
            });
        }
        final ByteBuf out = UnpooledByteBufAllocator.DEFAULT.directBuffer(8 * 1024);
        try
        {
            long next = 0;
            while (next < total && null == failure.get())
            {
                // Chunks of odd lengths, so that reads split the longs anywhere.
                out.clear();
                final int longs = 1 + (int)(next % 997);
                for (int i = 0; i < longs && next < total; i++)
                {
                    out.writeLongLE(next++);
                }
                while (out.isReadable())
                {
                    final int n = pipe[1].writeAddress(out.memoryAddress(), out.readerIndex(), out.writerIndex());
                    out.skipBytes(Math.max(0, n));
                }
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (checker.next < total && null == failure.get() && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
        }
        finally
        {
            out.release();
            done.set(true);
            ioThread.join();
            for (final Thread poller : pollers)
            {
                poller.join();
            }
        }
        if (null != failure.get())
        {
            throw new AssertionError(failure.get());
        }
        assertEquals(total, checker.next, "every long decoded, in order");
        assertTrue(reads.loopReads() > 0, "the I/O thread's loop took the lock");
        assertTrue(pollerData.get() > 0 && reads.pollerReads() > 0, "pollers read too");
    }

    @Test
    void shouldHoldTheLockFromTheLoopsFirstBufferToReadCompleteOnEveryPath()
    {
        final TcpReadOwnership reads = new TcpReadOwnership(lock, in -> true);
        final ThrowingHandleAllocator netty = new ThrowingHandleAllocator();
        final RecvByteBufAllocator.Handle loop = reads.lockingAllocator(netty).newHandle();
        loop.reset(null);
        loop.allocate(UnpooledByteBufAllocator.DEFAULT).release();
        assertTrue(lock.held.get(), "held after the first buffer");
        assertFalse(lock.tryLock(), "no poller while the loop reads");
        loop.allocate(UnpooledByteBufAllocator.DEFAULT).release();
        assertEquals(1, lock.loopLocks.get(), "one acquisition per read loop");
        loop.readComplete();
        assertFalse(lock.held.get(), "released at readComplete");

        netty.failReadComplete = true;
        loop.allocate(UnpooledByteBufAllocator.DEFAULT).release();
        assertThrows(IllegalStateException.class, loop::readComplete);
        assertFalse(lock.held.get(), "released even when Netty's handle throws");
        assertEquals(2, reads.loopReads());
    }

    @Test
    void shouldNotTakeTheLockTwiceInANestedEntryPoint()
    {
        final TcpReadOwnership reads = new TcpReadOwnership(lock, in -> true);
        final RecvByteBufAllocator.Handle loop = reads.lockingAllocator(new AdaptiveRecvByteBufAllocator()).newHandle();
        assertTrue(lock.lockLoop());
        loop.reset(null);
        loop.allocate(UnpooledByteBufAllocator.DEFAULT).release();
        loop.readComplete();
        assertTrue(lock.held.get(), "the outer entry point still holds it");
        lock.unlockLoop(true);
        assertFalse(lock.held.get());
    }

    @Test
    void shouldStopAfterTheBoundAndLeaveTheRestToTheNextReader() throws IOException
    {
        // A full buffer means "perhaps more": the decoder refills the pipe while it decodes, so more is there.
        final AtomicInteger decoded = new AtomicInteger();
        final TcpReadOwnership reads = new TcpReadOwnership(lock, in ->
        {
            decoded.addAndGet(in.readableBytes());
            in.skipBytes(in.readableBytes());
            if (decoded.get() == TcpReadOwnership.BUFFER_LENGTH)
            {
                assertEquals(100, write(100));
            }
            return true;
        });
        assertEquals(TcpReadOwnership.BUFFER_LENGTH, write(TcpReadOwnership.BUFFER_LENGTH));
        assertEquals(1, reads.read(pipe[0], 1));
        assertEquals(TcpReadOwnership.BUFFER_LENGTH, decoded.get(), "one system call, the rest left");
        assertEquals(1, reads.read(pipe[0], 4));
        assertEquals(TcpReadOwnership.BUFFER_LENGTH + 100, decoded.get());
        assertEquals(0, reads.read(pipe[0], 4), "nothing left: a non-blocking read returns at once");
        assertEquals(2, reads.pollerReads());
    }

    @Test
    void shouldReadAPayloadInProgressStraightIntoPlaceBeforeAnyBufferRead()
    {
        final PayloadInProgress decoder = new PayloadInProgress(1000);
        decoder.fd = pipe[0];
        final TcpReadOwnership reads = new TcpReadOwnership(lock, decoder);
        try
        {
            assertEquals(0, reads.read(pipe[0], 4), "nothing there: one direct attempt, no buffer read");
            write(600);
            assertEquals(1, reads.read(pipe[0], 4));
            assertEquals(600, decoder.direct, "the payload's bytes went straight into place");
            assertEquals(0, decoder.buffered, "and the socket was dry after them: no buffer read");
            assertEquals(1, reads.directReads());
            assertEquals(0, reads.pollerReads());

            write(400 + 50);
            assertEquals(2, reads.read(pipe[0], 4));
            assertEquals(1000, decoder.direct, "no more than the payload's rest straight into place");
            assertEquals(50, decoder.buffered, "the next frame's bytes through the buffer");
            assertEquals(0, reads.read(pipe[0], 4));
        }
        finally
        {
            decoder.scratch.release();
        }
    }

    /** A decoder in the middle of a large payload, which it reads from the socket itself. */
    private static final class PayloadInProgress implements TcpReadOwnership.Decoder
    {
        private final ByteBuf scratch = UnpooledByteBufAllocator.DEFAULT.directBuffer(4096);
        private long remaining;
        private int direct;
        private int buffered;
        private FileDescriptor fd;

        PayloadInProgress(final long remaining)
        {
            this.remaining = remaining;
        }

        public boolean decode(final ByteBuf in)
        {
            buffered += in.readableBytes();
            in.skipBytes(in.readableBytes());
            return true;
        }

        public long continuePayloadDirect()
        {
            if (0 == remaining)
            {
                return -1;
            }
            try
            {
                final int n = fd.readAddress(scratch.memoryAddress(), 0, (int)Math.min(remaining, 4096));
                if (n > 0)
                {
                    direct += n;
                    remaining -= n;
                }
                return Math.max(0, n);
            }
            catch (final IOException ex)
            {
                return -1;
            }
        }

        public boolean inPayload()
        {
            return remaining > 0;
        }
    }

    @Test
    void shouldStopReadingOnceTheDecoderClosedTheConnection() throws IOException
    {
        final AtomicInteger calls = new AtomicInteger();
        final TcpReadOwnership reads = new TcpReadOwnership(lock, in ->
        {
            calls.incrementAndGet();
            in.skipBytes(in.readableBytes());
            return false;
        });
        write(2 * TcpReadOwnership.BUFFER_LENGTH);
        assertEquals(1, reads.read(pipe[0], 4));
        assertEquals(1, calls.get());
    }

    @Test
    void shouldFreeItsBufferOnReleaseAndStillReadAfterwards()
    {
        final AtomicInteger decoded = new AtomicInteger();
        final TcpReadOwnership reads = new TcpReadOwnership(lock, in ->
        {
            decoded.addAndGet(in.readableBytes());
            in.skipBytes(in.readableBytes());
            return true;
        });
        reads.release();
        write(10);
        assertEquals(1, reads.read(pipe[0], 1));
        reads.release();
        reads.release();
        write(20);
        assertEquals(1, reads.read(pipe[0], 1));
        assertEquals(30, decoded.get());
        reads.release();
    }

    @Test
    void shouldReportTheEndOfTheStream() throws IOException
    {
        final TcpReadOwnership reads = new TcpReadOwnership(lock, in ->
        {
            in.skipBytes(in.readableBytes());
            return true;
        });
        write(10);
        pipe[1].close();
        assertEquals(1, reads.read(pipe[0], 1));
        assertEquals(TcpReadOwnership.END_OF_STREAM, reads.read(pipe[0], 1));
    }

    private int write(final int length)
    {
        final ByteBuf out = UnpooledByteBufAllocator.DEFAULT.directBuffer(length).writeZero(length);
        try
        {
            int written = 0;
            while (out.isReadable())
            {
                final int n = pipe[1].writeAddress(out.memoryAddress(), out.readerIndex(), out.writerIndex());
                if (n <= 0)
                {
                    break;
                }
                out.skipBytes(n);
                written += n;
            }
            return written;
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
        finally
        {
            out.release();
        }
    }

    private static Thread start(final String name, final AtomicReference<Throwable> failure, final Body body)
    {
        final Thread thread = new Thread(() ->
        {
            try
            {
                body.run();
            }
            catch (final Throwable ex)
            {
                failure.compareAndSet(null, ex);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** A thread's work that may throw. */
    private interface Body
    {
        void run() throws Exception;
    }

    /**
     * The driver lock as {@link TcpConnection} has it: a flag that pollers try and the I/O thread spins for, with
     * the I/O thread's own "already held by an outer entry point" mark.
     */
    private static final class TestLock implements TcpReadOwnership.DriverLock
    {
        final AtomicBoolean held = new AtomicBoolean();
        final AtomicInteger loopLocks = new AtomicInteger();
        private boolean loopHolds;

        boolean tryLock()
        {
            return held.compareAndSet(false, true);
        }

        void unlock()
        {
            held.set(false);
        }

        public boolean lockLoop()
        {
            if (loopHolds)
            {
                return false;
            }
            while (!tryLock())
            {
                Thread.onSpinWait();
            }
            loopHolds = true;
            loopLocks.incrementAndGet();
            return true;
        }

        public void unlockLoop(final boolean locked)
        {
            if (locked)
            {
                loopHolds = false;
                unlock();
            }
        }
    }

    /** Checks that the decoded bytes are the longs 0, 1, 2, ... in order, with the lock held. */
    private static final class StreamChecker implements TcpReadOwnership.Decoder
    {
        private final TestLock lock;
        private final byte[] partial = new byte[Long.BYTES];
        private int partialFill;
        volatile long next;

        StreamChecker(final TestLock lock)
        {
            this.lock = lock;
        }

        public boolean decode(final ByteBuf in)
        {
            if (!lock.held.get())
            {
                throw new AssertionError("decoding without the driver lock");
            }
            long expected = next;
            while (in.isReadable())
            {
                partial[partialFill++] = in.readByte();
                if (Long.BYTES == partialFill)
                {
                    partialFill = 0;
                    final long value = io.netty.buffer.Unpooled.wrappedBuffer(partial).readLongLE();
                    if (value != expected)
                    {
                        throw new AssertionError("decoded " + value + " where " + expected + " was next");
                    }
                    expected++;
                }
            }
            next = expected;
            return true;
        }
    }

    /** Netty's adaptive allocator, whose handle's readComplete can be made to throw. */
    private static final class ThrowingHandleAllocator implements RecvByteBufAllocator
    {
        boolean failReadComplete;

        @SuppressWarnings("deprecation")
        public Handle newHandle()
        {
            final ExtendedHandle netty = (ExtendedHandle)new AdaptiveRecvByteBufAllocator().newHandle();
            return new Failing(netty);
        }

        @SuppressWarnings("deprecation")
        private final class Failing extends DelegatingHandle implements ExtendedHandle
        {
            Failing(final ExtendedHandle netty)
            {
                super(netty);
            }

            public boolean continueReading(final io.netty.util.UncheckedBooleanSupplier maybeMore)
            {
                return ((ExtendedHandle)delegate()).continueReading(maybeMore);
            }

            public void readComplete()
            {
                super.readComplete();
                if (failReadComplete)
                {
                    throw new IllegalStateException("readComplete failed");
                }
            }
        }
    }
}
