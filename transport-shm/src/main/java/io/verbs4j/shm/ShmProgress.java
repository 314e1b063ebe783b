// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.verbs4j.spi.Progress;
import org.agrona.concurrent.Agent;

/**
 * The device's progress: receives for every connected queue pair, acknowledgements, RNR retries, sends left over by
 * back-pressure, heartbeats and peer liveness. Its drivers are those of the device's
 * {@link io.verbs4j.config.ThreadingMode}: completion-queue polls and the agent ({@code SHARED}), the agent only
 * ({@code DEDICATED}), or polls only ({@code INVOKER} and {@code SINGLE_THREAD}, no agent). A try-lock keeps one
 * thread in it at a time, which makes it the single receiving thread of every queue pair; on a {@code SINGLE_THREAD}
 * device, whose application promises one thread at a time, that try-lock is a plain look and store. With assertions
 * on, a round records its thread (the receive side asserts it runs inside a round), a {@code DEDICATED} device
 * asserts that only its agent drives it, and a {@code SINGLE_THREAD} device that finds its progress held by another
 * thread fails.
 */
final class ShmProgress implements Agent, Progress
{
    private static final VarHandle LOCK;
    private static final boolean ASSERTIONS_ON;

    static
    {
        ASSERTIONS_ON = ShmProgress.class.desiredAssertionStatus();
        try
        {
            LOCK = MethodHandles.lookup().findVarHandle(ShmProgress.class, "lock", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final ShmDevice device;
    private final boolean agentOnly;
    private final String roleName;
    private final boolean singleThread;
    private volatile Thread agentThread;
    @SuppressWarnings("unused")
    private volatile int lock;
    /** The thread inside, kept only when assertions are on (for {@link #heldByCurrentThread()}). */
    private Thread holder;

    /**
     * @param device    the device.
     * @param agentOnly whether only the device's agent may drive it ({@code DEDICATED}).
     */
    ShmProgress(final ShmDevice device, final boolean agentOnly)
    {
        this.device = device;
        this.agentOnly = agentOnly;
        this.singleThread = device.singleThreaded();
        this.roleName = "verbs4j-shm-progress-" + Long.toHexString(device.deviceId());
    }

    /** {@inheritDoc} */
    public int progress()
    {
        if (!tryTake())
        {
            return 0;
        }
        enter();
        try
        {
            assert !agentOnly || Thread.currentThread() == agentThread :
                "a DEDICATED device's progress is driven by its agent only, not by " + Thread.currentThread();
            return device.doProgress();
        }
        finally
        {
            exit();
        }
    }

    /**
     * Runs {@code task} holding the progress lock, waiting for it if progress is running (setup path: used to unmap
     * memory that progress may be reading).
     *
     * @param task what to run.
     */
    void runExclusive(final Runnable task)
    {
        assert !heldByCurrentThread() : "the progress's own thread waiting for the progress would wait for ever";
        while (!tryTake())
        {
            Thread.yield();
        }
        enter();
        try
        {
            task.run();
        }
        finally
        {
            exit();
        }
    }

    /**
     * @return whether the calling thread is inside the progress (a round or an exclusive task); always false when
     *         assertions are off, so call it only in an {@code assert}.
     */
    boolean heldByCurrentThread()
    {
        // The holder is set only while the lock is held, and cleared before it is let go.
        return ASSERTIONS_ON && Thread.currentThread() == holder;
    }

    /**
     * Takes the progress's try-lock: a CAS, or on a {@code SINGLE_THREAD} device a look and a store (the look still
     * refuses a nested round). With assertions on, finding it held by another thread there is a broken promise.
     */
    private boolean tryTake()
    {
        if (singleThread)
        {
            if (0 != lock)
            {
                assert !ASSERTIONS_ON || null == holder || Thread.currentThread() == holder :
                    "a SINGLE_THREAD device driven by two threads at once: " + holder + " and " +
                    Thread.currentThread();
                return false;
            }
            LOCK.setRelease(this, 1);
            return true;
        }
        return LOCK.compareAndSet(this, 0, 1);
    }

    private void enter()
    {
        if (ASSERTIONS_ON)
        {
            holder = Thread.currentThread();
        }
    }

    private void exit()
    {
        if (ASSERTIONS_ON)
        {
            holder = null;
        }
        LOCK.setRelease(this, 0);
    }

    /** {@inheritDoc} */
    public void onStart()
    {
        agentThread = Thread.currentThread();
    }

    /** {@inheritDoc} */
    public int doWork()
    {
        return progress();
    }

    /** {@inheritDoc} */
    public String roleName()
    {
        return roleName;
    }
}
