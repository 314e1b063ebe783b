// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.verbs4j.spi.Progress;
import org.agrona.concurrent.Agent;

/**
 * The device's progress: receives for every connected queue pair, acknowledgements, RNR retries, sends left over by
 * back-pressure, heartbeats and peer liveness. Run by completion-queue polling (so a polling application sees a
 * SEND without a thread hop) and by the device's agent; a try-lock keeps one thread in it at a time, which makes it
 * the single receiving thread of every queue pair.
 */
final class ShmProgress implements Agent, Progress
{
    private static final VarHandle LOCK;

    static
    {
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
    private final String roleName;
    @SuppressWarnings("unused")
    private volatile int lock;

    ShmProgress(final ShmDevice device)
    {
        this.device = device;
        this.roleName = "verbs4j-shm-progress-" + Long.toHexString(device.deviceId());
    }

    /** {@inheritDoc} */
    public int progress()
    {
        if (!LOCK.compareAndSet(this, 0, 1))
        {
            return 0;
        }
        try
        {
            return device.doProgress();
        }
        finally
        {
            LOCK.setRelease(this, 0);
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
        while (!LOCK.compareAndSet(this, 0, 1))
        {
            Thread.yield();
        }
        try
        {
            task.run();
        }
        finally
        {
            LOCK.setRelease(this, 0);
        }
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
