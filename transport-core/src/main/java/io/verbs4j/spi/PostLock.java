// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The lock of one queue of a queue pair created with
 * {@link io.verbs4j.QueuePairConfig#threadSafePosting(boolean)}: it makes concurrent posts to that queue take turns,
 * so that everything behind it (the work queue's single producer, the last checked request, the direct path) keeps
 * its one-poster invariant. A post holds it for well under a microsecond and never waits for anything inside, so a
 * waiter spins, then yields its core (more threads than cores is common), and never parks; nothing is allocated.
 * <p>
 * Not reentrant. Threading: any number of posting threads. The value is 1 while held, 0 while free (an
 * {@link AtomicInteger} for its CAS and its opaque and release accesses, not for arithmetic).
 */
@SuppressWarnings("serial")
final class PostLock extends AtomicInteger
{
    /** Spins before a waiter starts yielding its core. */
    static final int SPINS_BEFORE_YIELD = 64;

    /** Takes the lock, spinning and then yielding while another poster holds it. */
    void lock()
    {
        int spins = 0;
        while (!compareAndSet(0, 1))
        {
            do
            {
                if (++spins < SPINS_BEFORE_YIELD)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    Thread.yield();
                }
            }
            while (0 != getOpaque());
        }
    }

    /** Releases the lock (the holder only). */
    void unlock()
    {
        setRelease(0);
    }
}
