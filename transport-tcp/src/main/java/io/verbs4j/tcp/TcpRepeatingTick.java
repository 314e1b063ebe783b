// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.util.concurrent.EventExecutor;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An event-loop tick that repeats at a period counted from the end of its previous run, and is made anew only when
 * the period changes. A Netty task scheduled once is a new object each time: a tick that rescheduled itself on each
 * run allocated on every tick, which showed per operation in {@code TcpAllocationTest} (8-25 B/op in polling mode,
 * more on a slower, loaded machine). A repeating task is queued again as it is.
 * <p>
 * Threading: the connection's event loop only (a repeating task cancelled during its own run is not queued again).
 */
final class TcpRepeatingTick
{
    private final Runnable task;
    private ScheduledFuture<?> future;
    private long periodNs;
    private long made;

    /**
     * @param task what each tick runs.
     */
    TcpRepeatingTick(final Runnable task)
    {
        this.task = task;
    }

    /**
     * Starts the tick, or keeps it running: at {@code periodNs} from now on (a new task only if the period changed).
     *
     * @param executor the connection's event loop.
     * @param periodNs the period.
     */
    void keep(final EventExecutor executor, final long periodNs)
    {
        if (null != future)
        {
            if (this.periodNs == periodNs)
            {
                return;
            }
            future.cancel(false);
        }
        this.periodNs = periodNs;
        made++;
        future = executor.scheduleWithFixedDelay(task, periodNs, periodNs, TimeUnit.NANOSECONDS);
    }

    /** Stops the tick (nothing if it is not running). */
    void cancel()
    {
        if (null != future)
        {
            future.cancel(false);
            future = null;
        }
    }

    /** @return true while the tick runs. */
    boolean isRunning()
    {
        return null != future;
    }

    /** @return tasks made so far: one per start and per change of period (tests, diagnostics). */
    long made()
    {
        return made;
    }
}
