// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.support;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM driven over its stdin/stdout, one command per line, answered by one line ({@code OK ...} or
 * {@code ERR ...}); other lines the child prints (events such as {@code FAILED ...}) are kept for
 * {@link #awaitLine}. Unlike the conformance kit's {@code RemotePeer}, every wait here has a timeout (a pump thread
 * reads the child's output), so a child that hangs or stops can never hang the test, and the child can be
 * SIGKILLed, SIGSTOPped and SIGCONTed by its own pid (never by name).
 */
public final class ChildJvm implements AutoCloseable
{
    /** Longest wait for the answer to a command. */
    public static final long CALL_TIMEOUT_MS = 60_000;

    private final Process process;
    private final PrintStream commands;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> skipped = new ArrayList<>();
    private final Thread pump;
    private final String label;
    private final long pid;

    /**
     * Starts {@code mainClass} with the test's class path and the JVM flags of {@code verbs4j.test.jvmFlags}, and
     * waits for its {@code READY <pid>} line.
     *
     * @param label     for messages.
     * @param jvmArgs   extra JVM arguments (heap, JIT).
     * @param mainClass the child's main class.
     * @param args      its arguments.
     */
    public ChildJvm(final String label, final List<String> jvmArgs, final Class<?> mainClass, final List<String> args)
    {
        this.label = label;
        final List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        for (final String flag : System.getProperty("verbs4j.test.jvmFlags", "").trim().split("\\s+"))
        {
            if (!flag.isEmpty())
            {
                command.add(flag);
            }
        }
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        try
        {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot start " + label + ": " + ex, ex);
        }
        commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        pump = new Thread(this::pumpLines, "systest-child-output-" + process.pid());
        pump.setDaemon(true);
        pump.start();
        final String ready = awaitLine("READY", CALL_TIMEOUT_MS);
        pid = Long.parseLong(ready.substring("READY ".length()).trim());
        if (pid != process.pid())
        {
            throw new IllegalStateException(label + " reports pid " + pid + " but is " + process.pid());
        }
    }

    /** @return the child's pid. */
    public long pid()
    {
        return pid;
    }

    /** @return true while the process runs. */
    public boolean isAlive()
    {
        return process.isAlive();
    }

    /**
     * Sends a command and waits for its answer.
     *
     * @param command the line.
     * @return the text after {@code OK }.
     * @throws IllegalStateException on {@code ERR}, timeout or death of the child.
     */
    public synchronized String call(final String command)
    {
        return call(command, CALL_TIMEOUT_MS);
    }

    /**
     * @param command   the line.
     * @param timeoutMs longest wait.
     * @return the text after {@code OK }.
     */
    public synchronized String call(final String command, final long timeoutMs)
    {
        commands.println(command);
        final String reply = awaitLine(null, timeoutMs);
        if (reply.startsWith("OK"))
        {
            return reply.length() > 3 ? reply.substring(3) : "";
        }
        throw new IllegalStateException(label + " failed '" + command + "': " + reply);
    }

    /**
     * @param prefix    the line must start with this (other lines are skipped), or null for the next OK/ERR line.
     * @param timeoutMs longest wait.
     * @return the line.
     * @throws IllegalStateException on timeout or if the child's output ended.
     */
    public String awaitLine(final String prefix, final long timeoutMs)
    {
        synchronized (skipped)
        {
            for (int i = 0; i < skipped.size(); i++)
            {
                if (null != prefix && skipped.get(i).startsWith(prefix))
                {
                    return skipped.remove(i);
                }
            }
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try
        {
            while (true)
            {
                final long left = deadline - System.nanoTime();
                final String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
                if (null == line)
                {
                    throw new IllegalStateException(label + " (pid " + process.pid() + "): no " +
                        (null == prefix ? "answer" : "'" + prefix + "' line") + " within " + timeoutMs + " ms");
                }
                if ("\u0000EOF".equals(line))
                {
                    lines.add(line);
                    throw new IllegalStateException(label + " exited (code " +
                        (process.isAlive() ? "?" : process.exitValue()) + ") before " +
                        (null == prefix ? "answering" : "printing '" + prefix + "'"));
                }
                if (null == prefix ? line.startsWith("OK") || line.startsWith("ERR") : line.startsWith(prefix))
                {
                    return line;
                }
                if (line.startsWith("WRONG") || line.startsWith("BAD"))
                {
                    throw new AssertionError(label + " reported: " + line);
                }
                synchronized (skipped)
                {
                    skipped.add(line);
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    /**
     * @return every line starting with {@code BAD} or {@code WRONG} the child printed so far (drains the queue).
     */
    public List<String> badLines()
    {
        final List<String> out = new ArrayList<>();
        String line;
        while (null != (line = lines.poll()))
        {
            if ("\u0000EOF".equals(line))
            {
                lines.add(line);
                break;
            }
            synchronized (skipped)
            {
                skipped.add(line);
            }
        }
        synchronized (skipped)
        {
            for (final String l : skipped)
            {
                if (l.startsWith("BAD") || l.startsWith("WRONG"))
                {
                    out.add(l);
                }
            }
        }
        return out;
    }

    /** Sends SIGKILL and waits until the process is gone. */
    public void kill()
    {
        process.destroyForcibly();
        waitFor(10_000);
    }

    /** Sends SIGSTOP (the process stops responding without dying). */
    public void stop()
    {
        signal("STOP");
    }

    /** Sends SIGCONT. */
    public void resume()
    {
        signal("CONT");
    }

    private void signal(final String name)
    {
        try
        {
            final Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || 0 != kill.exitValue())
            {
                throw new IllegalStateException("kill -" + name + " " + pid + " failed");
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("kill -" + name + " " + pid + ": " + ex, ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @param timeoutMs longest wait.
     * @return true if the process ended.
     */
    public boolean waitFor(final long timeoutMs)
    {
        try
        {
            return process.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** @return the exit code (the process must have ended). */
    public int exitValue()
    {
        return process.exitValue();
    }

    /** Asks the child to exit, kills it if it does not within 10 s, and closes the pipes. Idempotent. */
    @Override
    public void close()
    {
        if (process.isAlive())
        {
            try
            {
                commands.println("EXIT");
                commands.flush();
            }
            catch (final RuntimeException ignore)
            {
                // the pipe is gone: the kill below ends it
            }
            if (!waitFor(10_000))
            {
                process.destroyForcibly();
                waitFor(10_000);
            }
        }
        commands.close();
        try
        {
            process.getInputStream().close();
        }
        catch (final IOException ignore)
        {
            // already closed
        }
        try
        {
            pump.join(5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void pumpLines()
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = in.readLine()))
            {
                lines.add(line);
            }
        }
        catch (final IOException ignore)
        {
            // the child died or close() closed the stream
        }
        lines.add("\u0000EOF");
    }
}
