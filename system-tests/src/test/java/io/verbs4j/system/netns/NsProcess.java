// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.netns;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A process started in a test host by {@link NetnsCluster#exec}: its standard output and error are read by pump
 * threads into one list of lines (error lines prefixed {@code "! "}, and echoed to the test's standard error with the
 * label), so every wait here has a timeout and a stuck child can never hang the test. {@code ip netns exec} execs the
 * command in place, so the pid is the JVM's.
 */
public final class NsProcess
{
    private final String label;
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final List<Thread> pumps = new ArrayList<>();

    private NsProcess(final String label, final Process process)
    {
        this.label = label;
        this.process = process;
        pumps.add(pump(process.getInputStream(), ""));
        pumps.add(pump(process.getErrorStream(), "! "));
    }

    static NsProcess start(final String label, final List<String> command, final Map<String, String> env)
    {
        final ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        try
        {
            return new NsProcess(label, builder.start());
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot start " + label + ": " + ex, ex);
        }
    }

    private Thread pump(final InputStream in, final String prefix)
    {
        final Thread thread = new Thread(() ->
        {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)))
            {
                String line;
                while (null != (line = reader.readLine()))
                {
                    if (!prefix.isEmpty())
                    {
                        System.err.println("[" + label + "] " + line);
                    }
                    synchronized (lines)
                    {
                        lines.add(prefix + line);
                        lines.notifyAll();
                    }
                }
            }
            catch (final IOException ignore)
            {
                // the process was killed
            }
        }, "netns-pump-" + label);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** @return the label. */
    public String label()
    {
        return label;
    }

    /** @return the pid. */
    public long pid()
    {
        return process.pid();
    }

    /** @return a copy of every line so far (error lines start with {@code "! "}). */
    public List<String> lines()
    {
        synchronized (lines)
        {
            return new ArrayList<>(lines);
        }
    }

    /** @return standard output and error so far, one string (for assertion messages). */
    public String text()
    {
        return label + " (pid " + pid() + "):\n  " + String.join("\n  ", lines());
    }

    /**
     * @param match     what to wait for.
     * @param timeoutMs longest wait.
     * @return the first matching line, or null if none came within the timeout or the process's output ended.
     */
    public String awaitLine(final Predicate<String> match, final long timeoutMs)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (lines)
        {
            while (true)
            {
                for (final String line : lines)
                {
                    if (match.test(line))
                    {
                        return line;
                    }
                }
                final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMs <= 0 || (!process.isAlive() && pumpsDone()))
                {
                    return null;
                }
                try
                {
                    lines.wait(Math.min(leftMs, 200));
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
    }

    private boolean pumpsDone()
    {
        for (final Thread pump : pumps)
        {
            if (pump.isAlive())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param timeoutMs longest wait.
     * @return the exit code, or null if the process still runs after the timeout.
     */
    public Integer awaitExit(final long timeoutMs)
    {
        try
        {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
            {
                return null;
            }
            for (final Thread pump : pumps)
            {
                pump.join(5_000);
            }
            return process.exitValue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** SIGKILLs the process if it still runs and waits for it (at most 10 s). */
    public void kill()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
            try
            {
                process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
