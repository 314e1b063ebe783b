// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.QueuePair;
import io.verbs4j.Verbs;
import io.verbs4j.config.DeviceContext;

/**
 * Test helpers: a private segment directory per test class (removed afterwards, even on failure) and connected
 * queue-pair pairs.
 */
final class ShmTestSupport
{
    private ShmTestSupport()
    {
    }

    static Path newDir(final String name)
    {
        sweepDirsOfDeadTestJvms();
        try
        {
            final Path dir = Path.of("/dev/shm").resolve("verbs4j-test-" + ProcessHandle.current().pid() + "-" + name +
                "-" + Long.toHexString(System.nanoTime()));
            Files.createDirectories(dir);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteDir(dir)));
            return dir;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * A test JVM killed with SIGKILL runs no shutdown hook; its private directory is removed by the next test run.
     */
    private static void sweepDirsOfDeadTestJvms()
    {
        try (Stream<Path> dirs = Files.list(Path.of("/dev/shm")))
        {
            dirs.filter(dir -> dir.getFileName().toString().startsWith("verbs4j-test-")).forEach(dir ->
            {
                final String[] parts = dir.getFileName().toString().split("-");
                try
                {
                    final long pid = Long.parseLong(parts[2]);
                    if (ProcessHandle.of(pid).isEmpty())
                    {
                        deleteDir(dir);
                    }
                }
                catch (final NumberFormatException | ArrayIndexOutOfBoundsException ignore)
                {
                    // not one of ours
                }
            });
        }
        catch (final IOException ignore)
        {
            // best effort: /dev/shm unreadable means there is nothing of ours to sweep
        }
    }

    static void deleteDir(final Path dir)
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException ignore)
        {
            // best effort
        }
    }

    /** @return the names of the regular files below {@code dir}. */
    static String[] fileNames(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            return files.filter(Files::isRegularFile).map(f -> f.getFileName().toString()).sorted()
                .toArray(String[]::new);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** @return the regular files below {@code dir} (the shm files are in a per-user directory inside it). */
    static long fileCount(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            return files.filter(Files::isRegularFile).count();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    static DeviceContext context(final Path dir, final boolean progressThread)
    {
        return new DeviceContext()
            .property(ShmConfiguration.DIR_PROP_NAME, dir.toString())
            .progressThread(progressThread)
            .peerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300));
    }

    static Device open(final Path dir, final boolean progressThread)
    {
        return Verbs.open("shm", context(dir, progressThread));
    }

    /**
     * Connects {@code client} to {@code server} through a listener named {@code name}.
     *
     * @return the private data the server answered with.
     */
    static byte[] connect(
        final Device serverDevice, final QueuePair server, final QueuePair client, final String name,
        final byte[] clientData, final byte[] serverData)
    {
        final ExecutorService executor = Executors.newSingleThreadExecutor();
        try (Listener listener = serverDevice.connectionManager().listen("shm://" + name))
        {
            final Future<byte[]> accepted = executor.submit(() ->
            {
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(10));
                if (null == request)
                {
                    throw new IllegalStateException("no request");
                }
                request.accept(server, serverData);
                return request.privateData();
            });
            final byte[] answer = client.protectionDomain().device().connectionManager()
                .connect(client, "shm://" + name, clientData, Duration.ofSeconds(10));
            final byte[] sent = accepted.get(10, TimeUnit.SECONDS);
            if (!java.util.Arrays.equals(sent, clientData))
            {
                throw new IllegalStateException("private data mismatch");
            }
            return answer;
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
        finally
        {
            executor.shutdownNow();
        }
    }

    /** Polls until one completion arrives (fails after 10 s) and returns it in {@code batch} at index 0. */
    static void pollOne(final CompletionQueue cq, final CompletionBatch batch)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        batch.clear();
        while (0 == cq.poll(batch, 1))
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("no completion within 10 s");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
