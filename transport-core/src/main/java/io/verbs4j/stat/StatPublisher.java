// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Writes this process's counters file ({@link StatFile}) from the {@link StatRegistry} every interval, on a daemon
 * thread, until closed; closing deletes the file. A failed write is retried at the next interval (logged once).
 */
public final class StatPublisher implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger("io.verbs4j.stat");

    private final Path directory;
    private final long intervalMs;
    private final long pid = ProcessHandle.current().pid();
    private final String command;
    private final Thread thread;
    private volatile boolean closed;
    private boolean warned;

    private StatPublisher(final Path directory, final Duration interval)
    {
        this.directory = directory;
        this.intervalMs = Math.max(1, interval.toMillis());
        final Optional<String> commandLine = ProcessHandle.current().info().commandLine();
        this.command = commandLine.orElse("");
        this.thread = new Thread(this::run, "verbs4j-stat");
        this.thread.setDaemon(true);
    }

    static StatPublisher start(final Path directory, final Duration interval)
    {
        try
        {
            Files.createDirectories(directory);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create the stat directory " + directory, ex);
        }
        final StatPublisher publisher = new StatPublisher(directory, interval);
        publisher.publishNow();
        publisher.thread.start();
        return publisher;
    }

    /** @return the file this publisher writes. */
    public Path file()
    {
        return StatFile.of(directory, pid);
    }

    /**
     * Writes the file now, from the registry as it is.
     *
     * @throws UncheckedIOException if it cannot be written.
     */
    public synchronized void publishNow()
    {
        if (closed)
        {
            return;
        }
        try
        {
            StatFile.write(directory, new StatSnapshot(pid, command, System.currentTimeMillis(),
                StatRegistry.sample()));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write " + file(), ex);
        }
    }

    private void run()
    {
        while (!closed)
        {
            try
            {
                Thread.sleep(intervalMs);
                publishNow();
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            catch (final UncheckedIOException ex)
            {
                if (!warned)
                {
                    warned = true;
                    LOG.log(System.Logger.Level.WARNING, "verbs4j: " + ex.getMessage() + " (retrying)");
                }
            }
        }
    }

    /** Stops writing and deletes the file. */
    @Override
    public void close()
    {
        synchronized (this)
        {
            closed = true;
        }
        thread.interrupt();
        try
        {
            Files.deleteIfExists(file());
            Files.deleteIfExists(directory.resolve(file().getFileName() + ".tmp"));
        }
        catch (final IOException ex)
        {
            LOG.log(System.Logger.Level.WARNING, "verbs4j: cannot delete " + file() + ": " + ex.getMessage());
        }
    }
}
