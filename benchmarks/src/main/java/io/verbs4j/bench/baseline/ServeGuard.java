// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.spi.WaitLoop;

import java.util.concurrent.TimeoutException;

/**
 * Lets a responder that works on mapped memory be closed from another thread safely: {@link #closeAndAwait()}
 * aborts the serving thread's {@link WaitLoop} and returns only once {@code serve()} has left the mapped memory, so
 * the caller can unmap afterwards without crashing the JVM. Setup/teardown only, never on the hot path.
 */
public final class ServeGuard
{
    private final WaitLoop waitLoop;
    private boolean closed;
    private boolean running;

    /**
     * @param waitLoop how {@code close} waits for a serve loop still running on another thread.
     */
    public ServeGuard(final WaitLoop waitLoop)
    {
        this.waitLoop = waitLoop;
    }

    /**
     * Called by {@code serve()} before touching the mapping.
     *
     * @throws TimeoutException if the responder was already closed.
     */
    public synchronized void enter() throws TimeoutException
    {
        if (closed)
        {
            throw new TimeoutException("responder closed before serving");
        }
        running = true;
    }

    /**
     * Called by {@code serve()} in a {@code finally} block once it no longer touches the mapping.
     */
    public synchronized void exit()
    {
        running = false;
        notifyAll();
    }

    /**
     * Aborts a running {@code serve()} and waits for it to {@link #exit()}.
     *
     * @return {@code true} the first time, {@code false} if already closed (the caller must not release twice).
     */
    public boolean closeAndAwait()
    {
        waitLoop.abort();
        synchronized (this)
        {
            if (closed)
            {
                return false;
            }
            closed = true;
            boolean interrupted = false;
            while (running)
            {
                try
                {
                    wait(100);
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
            return true;
        }
    }
}
