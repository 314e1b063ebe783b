// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.launch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Ends child processes, bounded in time, so that "returned" means "gone": {@link #stop} lets the child run its
 * shutdown hooks (which remove its shm files) and kills it if it does not go in time; {@link #killTree} kills a
 * child together with every process it started.
 */
public final class ProcessReaper
{
    private ProcessReaper()
    {
    }

    /**
     * Asks the process to stop ({@code SIGTERM}), waits up to {@code grace}, then kills it ({@code SIGKILL}) and
     * waits up to {@code grace} again. Does nothing if it has already ended.
     *
     * @param process the child.
     * @param grace   how long each wait may take.
     */
    public static void stop(final Process process, final Duration grace)
    {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(grace, "grace");
        if (!process.isAlive())
        {
            return;
        }
        process.destroy();
        try
        {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly().waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Kills the process and its descendants ({@code SIGKILL}) and waits, up to {@code grace} in all, until they are
     * gone.
     *
     * @param process the child.
     * @param grace   the longest wait.
     */
    public static void killTree(final Process process, final Duration grace)
    {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(grace, "grace");
        // Descendants first: once the child dies they are re-parented and no longer listed as its descendants.
        final List<ProcessHandle> tree = new ArrayList<>();
        try (Stream<ProcessHandle> descendants = process.descendants())
        {
            descendants.forEach(tree::add);
        }
        tree.forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        tree.add(process.toHandle());
        // destroyForcibly only sends SIGKILL; wait (bounded) so that returning means the processes are gone.
        final long deadlineNs = System.nanoTime() + grace.toNanos();
        for (final ProcessHandle handle : tree)
        {
            try
            {
                handle.onExit().get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
            catch (final ExecutionException | TimeoutException ex)
            {
                // Not reaped in time: the caller sees it through isAlive(); nothing more can be done here.
            }
        }
    }
}
