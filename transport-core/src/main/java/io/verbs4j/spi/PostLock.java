// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The lock of one queue of a queue pair created with
 * {@link io.verbs4j.QueuePairConfig#threadSafePosting(boolean)}: it makes concurrent posts to that queue take turns,
 * so that everything behind it (the work queue's single producer, the last checked request, the direct path) keeps
 * its one-poster invariant. A post holds it for well under a microsecond and never waits for anything inside, so a
 * waiter spins, then yields its core (more threads than cores is common), and never parks; nothing is allocated.
 * <p>
 * Not reentrant. Threading: any number of posting threads.
 */
final class PostLock
{
    /** Spins before a waiter starts yielding its core. */
    static final int SPINS_BEFORE_YIELD = 64;
    private static final VarHandle HELD;

    static
    {
        try
        {
            HELD = MethodHandles.lookup().findVarHandle(PostLock.class, "held", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    @SuppressWarnings("unused")
    private volatile int held;

    /** Takes the lock, spinning and then yielding while another poster holds it. */
    void lock()
    {
        int spins = 0;
        while (!HELD.compareAndSet(this, 0, 1))
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
            while (0 != (int)HELD.getOpaque(this));
        }
    }

    /** Releases the lock (the holder only). */
    void unlock()
    {
        HELD.setRelease(this, 0);
    }
}
