// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM for tests, started by {@link JvmLauncher} (so with {@link JvmFlags} and the test's class path), whose
 * standard output is read line by line by a pump thread: every wait has a timeout, so a child that hangs or stops
 * can never hang the test, and the child can be SIGKILLed, SIGSTOPped and SIGCONTed by its own pid (never by name).
 * <p>
 * Two kinds of child use it:
 * <ul>
 *     <li>a command peer ({@link #ChildJvm(String, List, Class, List)}): driven over its stdin, one command per
 *     line, answered by one line ({@code OK ...} or {@code ERR ...}); it prints {@code READY <pid>} when it is up
 *     and exits on {@code EXIT}; other lines it prints (events such as {@code FAILED ...}) are kept for
 *     {@link #awaitLine};</li>
 *     <li>any other child ({@link #builder}): the test waits for the lines it expects with {@link #awaitLine}, and
 *     may have every line copied to a stream as it arrives ({@link Builder#echo}).</li>
 * </ul>
 * {@link #close} ends the child in every case (the exit command first if it has one, then SIGKILL), so a test that
 * closes it in {@code finally} or try-with-resources leaves no process behind even when it fails.
 */
public final class ChildJvm implements AutoCloseable
{
    /** Longest wait for the answer to a command. */
    public static final long CALL_TIMEOUT_MS = 60_000;

    private static final String EOF = "\u0000EOF";

    private final Process process;
    private final PrintStream commands;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> skipped = new ArrayList<>();
    private final Thread pump;
    private final String label;
    private final String exitCommand;
    private final PrintStream echo;
    private final String echoPrefix;
    private final long pid;

    /**
     * Starts a command peer: {@code mainClass} with the test's class path and {@link JvmFlags}, and waits for its
     * {@code READY <pid>} line.
     *
     * @param label     for messages.
     * @param jvmArgs   extra JVM arguments (heap, JIT).
     * @param mainClass the child's main class.
     * @param args      its arguments.
     */
    public ChildJvm(final String label, final List<String> jvmArgs, final Class<?> mainClass, final List<String> args)
    {
        this(builder(label, mainClass).jvmArgs(jvmArgs).args(args).exitCommand("EXIT"));
        final String ready = awaitLine("READY", CALL_TIMEOUT_MS);
        final long reported = Long.parseLong(ready.substring("READY ".length()).trim());
        if (reported != process.pid())
        {
            close();
            throw new IllegalStateException(label + " reports pid " + reported + " but is " + process.pid());
        }
    }

    private ChildJvm(final Builder builder)
    {
        this.label = builder.label;
        this.exitCommand = builder.exitCommand;
        this.echo = builder.echo;
        this.echoPrefix = builder.echoPrefix;
        final ProcessBuilder processBuilder = builder.launcher.processBuilder();
        if (builder.mergeStderr)
        {
            processBuilder.redirectErrorStream(true);
        }
        else
        {
            processBuilder.redirectError(ProcessBuilder.Redirect.INHERIT);
        }
        try
        {
            process = processBuilder.start();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot start " + label + ": " + ex, ex);
        }
        pid = process.pid();
        commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        pump = new Thread(this::pumpLines, "test-child-output-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * A child that is not a command peer: configure, then {@link Builder#start}.
     *
     * @param label     for messages.
     * @param mainClass the child's main class (on the test's class path).
     * @return the builder.
     */
    public static Builder builder(final String label, final Class<?> mainClass)
    {
        return new Builder(label, JvmLauncher.of(mainClass));
    }

    /** How to start a {@link ChildJvm}; one use. */
    public static final class Builder
    {
        private final String label;
        private final JvmLauncher launcher;
        private boolean mergeStderr;
        private String exitCommand;
        private PrintStream echo;
        private String echoPrefix = "";

        private Builder(final String label, final JvmLauncher launcher)
        {
            this.label = Objects.requireNonNull(label, "label");
            this.launcher = launcher;
        }

        /**
         * @param jvmArgs JVM arguments after {@link JvmFlags} (heap, JIT, system properties).
         * @return this.
         */
        public Builder jvmArgs(final List<String> jvmArgs)
        {
            launcher.jvmArgs(jvmArgs);
            return this;
        }

        /**
         * @param args the main class's arguments.
         * @return this.
         */
        public Builder args(final List<String> args)
        {
            launcher.args(args);
            return this;
        }

        /**
         * Reads the child's standard error together with its standard output (default: inherited by this JVM).
         *
         * @return this.
         */
        public Builder mergeStderr()
        {
            this.mergeStderr = true;
            return this;
        }

        /**
         * @param command the line that asks the child to exit, sent by {@link #close} before it kills (default
         *                none: close kills at once).
         * @return this.
         */
        public Builder exitCommand(final String command)
        {
            this.exitCommand = command;
            return this;
        }

        /**
         * Copies every line of the child's output to {@code out}, prefixed, as it arrives (the lines stay available
         * to {@link #awaitLine} as well).
         *
         * @param out    where to copy.
         * @param prefix written before each line, such as {@code "[child] "}.
         * @return this.
         */
        public Builder echo(final PrintStream out, final String prefix)
        {
            this.echo = Objects.requireNonNull(out, "out");
            this.echoPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * Starts the child; returns at once.
         *
         * @return the running child.
         */
        public ChildJvm start()
        {
            return new ChildJvm(this);
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
                if (EOF.equals(line))
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
            if (EOF.equals(line))
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

    /**
     * Sends the exit command, if the child has one, and kills the child (SIGKILL) if it does not exit within 10 s
     * (at once without an exit command); then closes the pipes. Idempotent.
     */
    @Override
    public void close()
    {
        if (process.isAlive())
        {
            if (null != exitCommand)
            {
                commands.println(exitCommand);
                commands.flush();
            }
            if (null == exitCommand || !waitFor(10_000))
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
                if (null != echo)
                {
                    echo.println(echoPrefix + line);
                }
                lines.add(line);
            }
        }
        catch (final IOException ignore)
        {
            // the child died or close() closed the stream
        }
        lines.add(EOF);
    }
}
