// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TcpDriverLock}: pollers step aside for an event loop that waits for the lock only while that event loop
 * runs (it looked at the lock within {@link TcpDriverLock#IO_WAIT_FRESH_NS}); the event loop gets the lock once its
 * holder lets go, and sends what a poster left for it when it releases the lock.
 */
@Timeout(30)
class TcpDriverLockTest
{
    @Test
    void shouldAskPollersToStepAsideOnlyWhileTheWaitingEventLoopLooksAtTheLock() throws InterruptedException
    {
        final TcpDriverLock lock = new TcpDriverLock(new Pending());
        assertFalse(lock.isIoWaiting(), "nobody waits");
        assertTrue(lock.tryLock(), "a poller holds the lock");
        final AtomicBoolean took = new AtomicBoolean();
        final Thread eventLoop = new Thread(() ->
        {
            final boolean locked = lock.lockIo();
            took.set(locked);
            lock.unlockIo(locked);
        }, "event-loop");
        eventLoop.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        boolean seen = lock.isIoWaiting();
        while (!seen && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
            seen = lock.isIoWaiting();
        }
        assertTrue(seen, "a running event loop that waits asks pollers to step aside");
        // As seen a second later with no new look at the lock (its thread preempted, or yielded to the poller's
        // core): no longer a reason for a poller to leave the lock and the socket idle.
        assertFalse(lock.isIoWaitingAt(System.nanoTime() + TimeUnit.SECONDS.toNanos(1)),
            "an event loop that stopped looking at the lock does not hold pollers back");
        assertFalse(lock.tryLock(), "still held by the poller");
        lock.unlock();
        eventLoop.join(10_000);
        assertFalse(eventLoop.isAlive());
        assertTrue(took.get(), "the event loop took the lock once the poller let go");
        assertFalse(lock.isIoWaiting(), "the event loop no longer waits");
        assertTrue(lock.tryLock(), "and released it");
        lock.unlock();
    }

    @Test
    void shouldNotAskPollersToStepAsideWhenTheLockWasFree()
    {
        final TcpDriverLock lock = new TcpDriverLock(new Pending());
        final boolean locked = lock.lockIo();
        assertTrue(locked);
        assertFalse(lock.isIoWaiting());
        assertFalse(lock.lockIo(), "a nested entry point of the event loop holds it already");
        lock.unlockIo(false);
        assertFalse(lock.tryLock(), "the outer entry point still holds it");
        lock.unlockIo(locked);
        assertTrue(lock.tryLock());
        lock.unlock();
    }

    @Test
    void shouldSendWhatAPosterLeftWhenTheEventLoopReleasesTheLock()
    {
        final Pending pending = new Pending();
        final TcpDriverLock lock = new TcpDriverLock(pending);
        final boolean locked = lock.lockIo();
        pending.wanted.set(true);
        lock.unlockIo(locked);
        assertEquals(1, pending.pumps.get(), "the event loop pumped once on release");
        assertFalse(pending.wanted.get());
        assertTrue(lock.tryLock(), "and released the lock after");
        lock.unlock();
    }

    private static final class Pending implements TcpDriverLock.PendingWork
    {
        final AtomicBoolean wanted = new AtomicBoolean();
        final AtomicInteger pumps = new AtomicInteger();

        public boolean isPumpWanted()
        {
            return wanted.get();
        }

        public void pump()
        {
            wanted.set(false);
            pumps.incrementAndGet();
        }
    }
}
