// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.launch;

import io.verbs4j.bench.baseline.ShmFiles;
import io.verbs4j.launch.JvmFlags;
import io.verbs4j.launch.JvmLauncher;
import io.verbs4j.launch.ProcessReaper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A peer JVM on this machine, started by {@link JvmLauncher} (same JDK, same class path, {@link JvmFlags}), running
 * {@code io.verbs4j.bench.Main} with the given arguments.
 * <p>
 * Contract:
 * <ul>
 *     <li>{@link #start} returns only after the child printed its {@link ReadySignal} line, and fails (killing the
 *     child) if it exits first or does not become ready within the timeout.</li>
 *     <li>The child's standard error is inherited; its later standard output is copied to our standard error with a
 *     {@code [peer]} prefix.</li>
 *     <li>The child's standard input stays open as a lifeline: a child started with {@code --exit-with-parent}
 *     exits when it closes, so it dies with this JVM even on {@code SIGKILL}.</li>
 *     <li>{@link #close} asks the child to stop ({@code SIGTERM}, so its shutdown hooks remove its shm files), waits
 *     a grace period, kills it forcibly if needed, then removes any {@code /dev/shm/verbs4j-<childpid>-*} left.</li>
 * </ul>
 * Not thread-safe; one owner.
 */
public final class PeerProcess implements AutoCloseable
{
    private static final Duration GRACE = Duration.ofSeconds(5);

    private final Process process;
    private final String endpoint;
    private final Thread shutdownHook;

    private PeerProcess(final Process process, final String endpoint, final Thread shutdownHook)
    {
        this.process = process;
        this.endpoint = endpoint;
        this.shutdownHook = shutdownHook;
    }

    /**
     * The command line that starts a peer with the given {@code Main} arguments.
     *
     * @param mainArgs arguments for {@code io.verbs4j.bench.Main}.
     * @return the full command, starting with the {@code java} executable.
     */
    public static List<String> command(final List<String> mainArgs)
    {
        return launcher(mainArgs).command();
    }

    /**
     * Starts the peer and waits for its readiness line.
     *
     * @param mainArgs  arguments for {@code io.verbs4j.bench.Main} in the child.
     * @param timeoutMs how long to wait for readiness.
     * @param log       where the child's later standard output is copied.
     * @return the running peer.
     * @throws IOException if the child cannot start, exits early or is not ready in time (it is killed).
     */
    public static PeerProcess start(final List<String> mainArgs, final long timeoutMs, final PrintWriter log)
        throws IOException
    {
        final Process process = launcher(mainArgs).start();
        final Thread hook = new Thread(() -> destroy(process), "verbs4j-peer-reaper");
        Runtime.getRuntime().addShutdownHook(hook);

        final CompletableFuture<String> ready = new CompletableFuture<>();
        final Thread pump = new Thread(() -> pumpOutput(process, ready, log), "verbs4j-peer-stdout");
        pump.setDaemon(true);
        pump.start();
        try
        {
            final String endpoint = ready.get(timeoutMs, TimeUnit.MILLISECONDS);
            return new PeerProcess(process, endpoint, hook);
        }
        catch (final TimeoutException ex)
        {
            abort(process, hook);
            throw new IOException("peer JVM not ready after " + timeoutMs + " ms: " + String.join(" ", mainArgs));
        }
        catch (final ExecutionException ex)
        {
            abort(process, hook);
            throw new IOException("peer JVM failed to start: " + ex.getCause().getMessage(), ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            abort(process, hook);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting the peer JVM", ex);
        }
    }

    /**
     * The endpoint the peer announced in its readiness line.
     *
     * @return the endpoint, as printed by the peer.
     */
    public String endpoint()
    {
        return endpoint;
    }

    /**
     * The operating-system process id of the peer.
     *
     * @return the pid.
     */
    public long pid()
    {
        return process.pid();
    }

    /**
     * Waits for the peer to exit on its own.
     *
     * @param timeoutMs how long to wait.
     * @return the exit code, or -1 if it is still running.
     * @throws InterruptedException if interrupted while waiting.
     */
    public int awaitExit(final long timeoutMs) throws InterruptedException
    {
        return process.waitFor(timeoutMs, TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    /**
     * Stops the peer if still running and removes its leftover shm files. Idempotent.
     */
    @Override
    public void close()
    {
        abort(process, shutdownHook);
    }

    private static void abort(final Process process, final Thread hook)
    {
        destroy(process);
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException ignore)
        {
            // The JVM is already shutting down; the hook is running or has run.
        }
    }

    private static JvmLauncher launcher(final List<String> mainArgs)
    {
        return JvmLauncher.of("io.verbs4j.bench.Main").args(mainArgs);
    }

    private static void destroy(final Process process)
    {
        ProcessReaper.stop(process, GRACE);
        ShmFiles.deleteAllOwnedBy(process.pid());
    }

    private static void pumpOutput(final Process process, final CompletableFuture<String> ready, final PrintWriter log)
    {
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = reader.readLine()))
            {
                final String endpoint = ready.isDone() ? null : ReadySignal.parse(line);
                if (null != endpoint)
                {
                    ready.complete(endpoint);
                }
                else
                {
                    log.println("[peer] " + line);
                    log.flush();
                }
            }
        }
        catch (final IOException ex)
        {
            ready.completeExceptionally(ex);
        }
        if (!ready.isDone())
        {
            try
            {
                final int code = process.waitFor();
                ready.completeExceptionally(new IOException("peer JVM exited with code " + code + " before ready"));
            }
            catch (final InterruptedException ex)
            {
                ready.completeExceptionally(ex);
            }
        }
    }
}
