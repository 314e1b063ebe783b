// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import io.netty.util.concurrent.FastThreadLocal;

import java.util.function.LongSupplier;

/**
 * The select strategy of an event-mode I/O thread: after a read batch that brought in bulk data it keeps polling its
 * sockets without blocking for a while before it goes back to sleep in {@code epoll_wait}, so that the next batch of
 * a stream finds it awake. Otherwise Netty's default: block when there is nothing to do.
 * <p>
 * Why: when the receiver of a stream is the I/O thread (a WRITE or READ target whose application does not poll, as
 * perftest's and ib_write_bw's servers do not), it drained the socket faster than loopback filled it and slept after
 * each batch; every batch then cost a wake-up, paid in part by the sender's system call. On this 2-core machine a
 * 1 MiB WRITE stream reached ~3 GB/s that way and 3.7-4.9 GB/s with the receiver kept awake 200-500 µs, as a
 * polling application keeps its SEND stream's receiver awake. A batch of small frames (a ping-pong, a collective's
 * flags) never starts the spin, so latency-bound traffic and idle connections keep sleeping.
 * <p>
 * Threading: one instance per event loop, used by that loop's thread only. {@link #onBulkRead()} is called by the
 * connection's read-complete handler on the same thread; it finds the loop's instance through a
 * {@link FastThreadLocal} that the strategy sets on its first call (Netty's I/O threads are
 * {@code FastThreadLocalThread}s, where that lookup is an array index).
 */
final class TcpReadSpin implements SelectStrategy
{
    /** A read batch of at least this many bytes starts (or extends) the spin: a bulk frame's worth. */
    static final int BULK_BATCH_BYTES = TcpResponder.SMALL_FRAME_BYTES;

    private static final FastThreadLocal<TcpReadSpin> LOOP = new FastThreadLocal<>();

    private final long spinNs;
    private final LongSupplier clock;
    private boolean bound;
    private long bulkReadNs;
    private long spins;

    /**
     * @param spinNs how long to keep polling after the last bulk batch, ns (positive).
     * @param clock  the time source ({@link System#nanoTime()} outside tests).
     */
    TcpReadSpin(final long spinNs, final LongSupplier clock)
    {
        this.spinNs = spinNs;
        this.clock = clock;
        this.bulkReadNs = clock.getAsLong() - spinNs;
    }

    /**
     * The calling I/O thread just finished a read batch of bulk data: its loop keeps polling for
     * {@code spinNs} from now. No effect on a thread that is not an I/O thread with this strategy.
     *
     * @return true if the calling thread's loop will spin (false: not an I/O thread with this strategy).
     */
    static boolean onBulkRead()
    {
        final TcpReadSpin spin = LOOP.getIfExists();
        if (null == spin)
        {
            return false;
        }
        spin.bulkReadNs = spin.clock.getAsLong();
        return true;
    }

    /** {@inheritDoc} */
    @Override
    public int calculateStrategy(final IntSupplier selectSupplier, final boolean hasTasks) throws Exception
    {
        if (!bound)
        {
            LOOP.set(this);
            bound = true;
        }
        if (hasTasks)
        {
            return selectSupplier.get();
        }
        if (clock.getAsLong() - bulkReadNs >= spinNs)
        {
            return SelectStrategy.SELECT;
        }
        final int ready = selectSupplier.get();
        if (ready > 0)
        {
            return ready;
        }
        spins++;
        Thread.onSpinWait();
        return SelectStrategy.CONTINUE;
    }

    /** @return polls that found nothing during a spin (tests, diagnostics). */
    long spins()
    {
        return spins;
    }
}
