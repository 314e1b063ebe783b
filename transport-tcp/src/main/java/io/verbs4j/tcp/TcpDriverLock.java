// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The driver lock of one connection (a CAS on one int): the connection's state (requester, responder, decoder) and
 * the right to read and write its socket belong to whoever holds it. The event loop takes it in each of its entry
 * points ({@link #lockIo()}, which spins the few microseconds a poster or poller may hold it, and asks pollers to
 * step aside meanwhile); a posting thread ({@link TcpRequester#requestPump()}) or a thread polling a completion
 * queue ({@link TcpSocketPoller#progress()}) only tries ({@link #tryLock()}), never waits. When the event loop
 * releases it, it sends what a poster left for it while it held the lock ({@link PendingWork}).
 * <p>
 * Threading: any thread; {@link #lockIo()}, {@link #unlockIo(boolean)} on the connection's event loop only.
 */
final class TcpDriverLock implements TcpReadOwnership.DriverLock
{
    private static final VarHandle DRIVER;

    static
    {
        try
        {
            DRIVER = MethodHandles.lookup().findVarHandle(TcpDriverLock.class, "driver", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** What a poster left for the event loop while it held the lock (the requester). */
    interface PendingWork
    {
        /** @return true if a poster asked for the send queue to be looked at. */
        boolean isPumpWanted();

        /** Driver lock held, event loop: sends what the send queue holds. */
        void pump();
    }

    /**
     * How long after the event loop last looked at the lock it waits for pollers still leave it alone: longer than
     * a spin step or a yield that returns at once, far shorter than a scheduler slice.
     */
    static final long IO_WAIT_FRESH_NS = 20_000;

    private final PendingWork pending;
    @SuppressWarnings("unused")
    private volatile int driver;
    private boolean ioLocked;
    /**
     * While the event loop waits for the driver lock, when it last looked at it ({@link System#nanoTime()}; 0: not
     * waiting): pollers leave the lock alone while that is recent.
     */
    private volatile long ioWaitingNs;

    /**
     * @param pending what to send when the event loop releases the lock.
     */
    TcpDriverLock(final PendingWork pending)
    {
        this.pending = pending;
    }

    /**
     * Any thread: takes the driver lock if free.
     *
     * @return true if taken (release with {@link #unlock()}).
     */
    boolean tryLock()
    {
        return DRIVER.compareAndSet(this, 0, 1);
    }

    /** Releases the driver lock taken with {@link #tryLock()}. */
    void unlock()
    {
        // A full fence, not a release store: the holder then looks at PUMP_WANTED, which a poster set before its
        // tryLock failed; x86 would let that look pass a release store, and both would miss the request.
        DRIVER.setVolatile(this, 0);
    }

    /**
     * Whether a poller should leave the lock alone now: the event loop waits for it and looked at it within
     * {@link #IO_WAIT_FRESH_NS}. An event loop that waits but does not run (its thread preempted, or gone to
     * {@link Thread#yield()} on the core of the spinning poller that holds the lock) no longer counts: a poller
     * that stepped aside for it kept its core and the lock idle until the scheduler ended its slice (EEVDF: 1-2 ms
     * per 8 B AllReduce of two busy-polling ranks over tcp, instead of 11 µs), while the reads it would have done
     * are what the event loop waits to do.
     *
     * @return true while the event loop waits for the lock and is running.
     */
    boolean isIoWaiting()
    {
        return 0 != ioWaitingNs && isIoWaitingAt(System.nanoTime());
    }

    /**
     * {@link #isIoWaiting()} as seen at a given time (tests: a waiting event loop that stopped running).
     *
     * @param nowNs the time, {@link System#nanoTime()} scale.
     * @return true if the event loop waits for the lock and looked at it within {@link #IO_WAIT_FRESH_NS} of nowNs.
     */
    boolean isIoWaitingAt(final long nowNs)
    {
        final long since = ioWaitingNs;
        return 0 != since && nowNs - since < IO_WAIT_FRESH_NS;
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
            int spins = 0;
            do
            {
                ioWaitingNs = System.nanoTime() | 1;
                if (++spins < 100)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    Thread.yield();
                }
            }
            while (!DRIVER.compareAndSet(this, 0, 1));
            ioWaitingNs = 0;
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
        unlock();
        while (pending.isPumpWanted() && DRIVER.compareAndSet(this, 0, 1))
        {
            ioLocked = true;
            try
            {
                pending.pump();
            }
            finally
            {
                ioLocked = false;
                unlock();
            }
        }
    }

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
