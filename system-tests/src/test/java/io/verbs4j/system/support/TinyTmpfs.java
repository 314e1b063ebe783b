// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted for one test class (as a container's 64 MiB /dev/shm is, only smaller), so that "the shm
 * directory is full" can be tested without filling the machine's /dev/shm. Mounting needs root (CAP_SYS_ADMIN);
 * {@link #mount} says why not otherwise, for the test to skip with that reason. {@link #close()} unmounts (lazily if
 * something still holds a file open) and removes the mount point; a shutdown hook does the same if the test JVM
 * ends without closing it.
 */
public final class TinyTmpfs implements AutoCloseable
{
    private final Path dir;
    private final Thread hook;
    private boolean closed;

    private TinyTmpfs(final Path dir)
    {
        this.dir = dir;
        this.hook = new Thread(this::unmountQuietly, "systest-tiny-tmpfs-unmount");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * @param sizeBytes the tmpfs size.
     * @param why       receives the reason when it cannot be mounted ({@code why[0]}).
     * @return the mounted tmpfs, or null if this machine does not let this process mount one.
     */
    public static TinyTmpfs mount(final long sizeBytes, final String[] why)
    {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux"))
        {
            why[0] = "tmpfs mounts need Linux";
            return null;
        }
        final Path dir;
        try
        {
            dir = Files.createTempDirectory("verbs4j-tiny-tmpfs-");
        }
        catch (final IOException ex)
        {
            why[0] = "cannot create a mount point: " + ex;
            return null;
        }
        final String result = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + sizeBytes + ",mode=0755",
            "verbs4j-tiny-tmpfs", dir.toString()));
        if (null != result)
        {
            SystemTests.deleteDir(dir);
            why[0] = "cannot mount a " + sizeBytes + "-byte tmpfs (needs root or CAP_SYS_ADMIN): " + result;
            return null;
        }
        return new TinyTmpfs(dir);
    }

    /** @return the mount point. */
    public Path dir()
    {
        return dir;
    }

    /** @return bytes free in the tmpfs now. */
    public long freeBytes()
    {
        try
        {
            return Files.getFileStore(dir).getUsableSpace();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot stat " + dir + ": " + ex, ex);
        }
    }

    /** @return every regular file below the mount point (empty when nothing was left behind). */
    public List<String> files()
    {
        return Resources.list(dir);
    }

    /** Deletes every file below the mount point (between cases; a case asserts on {@link #files()} first). */
    public void clear()
    {
        try (var paths = Files.list(dir))
        {
            paths.forEach(SystemTests::deleteDir);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot clear " + dir + ": " + ex, ex);
        }
    }

    /** Unmounts and removes the mount point. Idempotent. */
    @Override
    public void close()
    {
        unmountQuietly();
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException ignore)
        {
            // the JVM is already shutting down: the hook runs (and finds it closed)
        }
    }

    private synchronized void unmountQuietly()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (null != run(List.of("umount", dir.toString())))
        {
            // Busy (a child process still has a file mapped): detach now, the kernel frees it when released.
            run(List.of("umount", "-l", dir.toString()));
        }
        SystemTests.deleteDir(dir);
    }

    /** @return null on success, else the command's output and exit code. */
    private static String run(final List<String> command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            final byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(30, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                return String.join(" ", command) + " did not finish in 30 s";
            }
            return 0 == process.exitValue() ? null : String.join(" ", command) + " exited " +
                process.exitValue() + ": " + new String(output, StandardCharsets.UTF_8).trim();
        }
        catch (final IOException ex)
        {
            return String.join(" ", command) + ": " + ex;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return String.join(" ", command) + " interrupted";
        }
    }
}
