// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.verbs4j.spi.LogWarmUp;

/**
 * What a survivor must give back once it has closed everything: verbs4j threads, file descriptors, direct and
 * mapped buffer memory, and the files of a shm directory. {@link #snapshot} takes the figures,
 * {@link #assertBackTo} waits (bounded) until they are back to a baseline, or fails naming what leaked.
 */
public final class Resources
{
    /** File descriptors a survivor may keep over its baseline (lazily opened jars, epoll of the JDK). */
    public static final int FD_SLACK = 4;
    /** Direct memory a survivor may keep over its baseline. */
    public static final long DIRECT_SLACK_BYTES = 1L << 20;
    private static final int WALK_ATTEMPTS = 100;

    private final int verbsThreads;
    private final List<String> verbsThreadNames;
    private final int fds;
    private final long directBytes;
    private final long directCount;
    private final long mappedBytes;
    private final long mappedCount;
    private final List<String> shmFiles;

    private Resources(final Path shmDir)
    {
        verbsThreadNames = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
            .filter(name -> name.startsWith("verbs4j-"))
            // the one-shot logging warm-up (once per JVM, ends by itself) is not a resource a device holds
            .filter(name -> !name.equals(LogWarmUp.THREAD_NAME)).sorted().collect(Collectors.toList());
        verbsThreads = verbsThreadNames.size();
        fds = fdCount();
        long dBytes = 0;
        long dCount = 0;
        long mBytes = 0;
        long mCount = 0;
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                dBytes = pool.getMemoryUsed();
                dCount = pool.getCount();
            }
            else if ("mapped".equals(pool.getName()))
            {
                mBytes = pool.getMemoryUsed();
                mCount = pool.getCount();
            }
        }
        directBytes = dBytes;
        directCount = dCount;
        mappedBytes = mBytes;
        mappedCount = mCount;
        shmFiles = null == shmDir ? List.of() : list(shmDir);
    }

    /**
     * @param shmDir a shm directory to list, or null.
     * @return the current figures.
     */
    public static Resources snapshot(final Path shmDir)
    {
        return new Resources(shmDir);
    }

    /** @return open file descriptors of this process. */
    public static int fdCount()
    {
        try (Stream<Path> fd = Files.list(Path.of("/proc/self/fd")))
        {
            return (int)fd.count() - 1; // the directory stream itself
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /**
     * @param pid a process.
     * @return its open file descriptors, or -1 if gone.
     */
    public static int fdCount(final long pid)
    {
        try (Stream<Path> fd = Files.list(Path.of("/proc/" + pid + "/fd")))
        {
            return (int)fd.count();
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    /**
     * @param pid a process.
     * @return its resident set in KiB (VmRSS), or -1 if gone.
     */
    public static long rssKiB(final long pid)
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/" + pid + "/status")))
            {
                if (line.startsWith("VmRSS:"))
                {
                    return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
        return -1;
    }

    /**
     * @param dir a directory.
     * @return the names of its files, sorted, or an empty list if it does not exist.
     */
    public static List<String> list(final Path dir)
    {
        // The shm provider keeps its files in a per-user directory below dir; the directory itself is not a leak.
        final List<String> names = new ArrayList<>();
        for (final Path f : regularFiles(dir))
        {
            names.add(dir.relativize(f).toString());
        }
        names.sort(null);
        return names;
    }

    /**
     * @param dir a directory.
     * @return the sum of its files' sizes.
     */
    public static long usedBytes(final Path dir)
    {
        long total = 0;
        for (final Path f : regularFiles(dir))
        {
            try
            {
                total += Files.size(f); // apparent size: regions and rings are sized at creation
            }
            catch (final IOException | RuntimeException ex)
            {
                // vanished meanwhile
            }
        }
        return total;
    }

    /**
     * The regular files below {@code dir}, walked again when a file or directory vanished during the walk (the
     * stream then throws an unchecked {@code NoSuchFileException}: a provider is creating and deleting its files
     * meanwhile).
     *
     * @param dir a directory.
     * @return the files, or an empty list if {@code dir} does not exist.
     * @throws IllegalStateException if no walk completes in {@value #WALK_ATTEMPTS} attempts.
     */
    public static List<Path> regularFiles(final Path dir)
    {
        for (int attempt = 1; ; attempt++)
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                return files.filter(Files::isRegularFile).collect(Collectors.toList());
            }
            catch (final IOException | UncheckedIOException ex)
            {
                if (!Files.exists(dir))
                {
                    return List.of();
                }
                if (attempt >= WALK_ATTEMPTS)
                {
                    throw new IllegalStateException("no complete walk of " + dir + " in " + WALK_ATTEMPTS +
                        " attempts", ex);
                }
            }
        }
    }

    /** @return live threads named verbs4j-*. */
    public int verbsThreads()
    {
        return verbsThreads;
    }

    /** @return open file descriptors. */
    public int fds()
    {
        return fds;
    }

    /** @return direct buffer bytes (BufferPoolMXBean "direct"). */
    public long directBytes()
    {
        return directBytes;
    }

    /** @return mapped buffer count. */
    public long mappedCount()
    {
        return mappedCount;
    }

    /** @return the files in the shm directory. */
    public List<String> shmFiles()
    {
        return shmFiles;
    }

    /**
     * Waits up to {@code waitMs} for this process to be back to {@code baseline}: no verbs4j thread (the baseline
     * has none), fds and direct memory within the slack, no more mapped buffers, and an empty shm directory.
     *
     * @param baseline taken before the workload, with nothing of verbs4j open.
     * @param shmDir   the shm directory the workload used (must end empty), or null.
     * @param waitMs   how long the closing may take to settle.
     * @return the final snapshot.
     * @throws AssertionError naming what leaked.
     */
    public static Resources assertBackTo(final Resources baseline, final Path shmDir, final long waitMs)
    {
        final long deadline = System.nanoTime() + waitMs * 1_000_000L;
        Resources now;
        while (true)
        {
            now = snapshot(shmDir);
            final String problem = now.leakAgainst(baseline);
            if (null == problem)
            {
                return now;
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("resources not given back: " + problem);
            }
            if (now.directBytes > baseline.directBytes || now.mappedCount > baseline.mappedCount)
            {
                System.gc(); // mapped and direct buffers are freed by their cleaners
            }
            LockSupport.parkNanos(100_000_000L);
        }
    }

    private String leakAgainst(final Resources baseline)
    {
        final List<String> problems = new ArrayList<>();
        if (verbsThreads > baseline.verbsThreads)
        {
            problems.add("threads " + verbsThreadNames + " (baseline " + baseline.verbsThreadNames + ")");
        }
        if (fds > baseline.fds + FD_SLACK)
        {
            problems.add("fds " + fds + " > baseline " + baseline.fds + " + " + FD_SLACK + ": " + fdTargets());
        }
        if (directBytes > baseline.directBytes + DIRECT_SLACK_BYTES)
        {
            problems.add("direct memory " + directBytes + " B in " + directCount + " buffers > baseline " +
                baseline.directBytes + " B + " + DIRECT_SLACK_BYTES);
        }
        if (mappedCount > baseline.mappedCount)
        {
            problems.add("mapped buffers " + mappedCount + " (" + mappedBytes + " B) > baseline " +
                baseline.mappedCount);
        }
        if (!shmFiles.isEmpty())
        {
            problems.add("shm files left " + shmFiles);
        }
        return problems.isEmpty() ? null : String.join("; ", problems);
    }

    private static String fdTargets()
    {
        final TreeMap<String, Integer> kinds = new TreeMap<>();
        try (Stream<Path> fd = Files.list(Path.of("/proc/self/fd")))
        {
            fd.forEach(f ->
            {
                String target;
                try
                {
                    target = Files.readSymbolicLink(f).toString();
                }
                catch (final IOException ex)
                {
                    target = "?";
                }
                kinds.merge(target.replaceAll("\\[\\d+\\]", "[n]").replaceAll("/proc/\\d+/", "/proc/n/"), 1,
                    Integer::sum);
            });
        }
        catch (final IOException ex)
        {
            return "?";
        }
        return kinds.toString();
    }

    @Override
    public String toString()
    {
        return "threads=" + verbsThreads + " fds=" + fds + " direct=" + directBytes + "B/" + directCount +
            " mapped=" + mappedBytes + "B/" + mappedCount + " shmFiles=" + shmFiles.size();
    }
}
