// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * How much this JVM's JIT compilers have worked so far, as a clock that a warm-up reads before and after a window:
 * a window during which it moved ran (partly) on code that was still being compiled, however steady its time looked.
 * A 1 MiB AllReduce of four processes on two cores ran 300 calls at a steady 5-7 ms each while the four JVMs'
 * compilers competed for the cores, then 0.6-0.7 ms once they were done; a rule that looked at the times alone
 * called the first plateau stable.
 * <p>
 * Where Linux shows the JVM's threads ({@code /proc/self/task}), the clock is the CPU time of the compiler threads
 * (their {@code schedstat}), which moves while a compilation runs. Elsewhere it is
 * {@link CompilationMXBean#getTotalCompilationTime()}, which moves only when a compilation ends: a long C2
 * compilation that spans a whole window (on a rank bound to one core, it takes that core from the rank for
 * scheduler slices of milliseconds) is then not seen.
 */
public final class JitActivity
{
    private static final LongSupplier NONE = () -> 0;
    private static final Path TASKS = Path.of("/proc/self/task");
    /** HotSpot's compiler threads ("C1 CompilerThread0", "C2 CompilerThread1", ...), as the kernel shortens them. */
    private static final String[] COMPILER_THREAD_PREFIXES = { "C1 CompilerThre", "C2 CompilerThre", "JVMCI Compiler" };

    private JitActivity()
    {
    }

    /**
     * @return a clock of this JVM's compilation work in milliseconds: the compiler threads' CPU time where the
     * kernel reports it, else the accumulated compilation time of the {@link CompilationMXBean}; a clock that never
     * moves where neither is available (then a warm-up judges by the call times alone). The clock keeps state (the
     * threads it has seen): read each one from one thread at a time. A reading costs tens of microseconds.
     */
    public static LongSupplier compileMillis()
    {
        final CompilerThreadClock compilers = new CompilerThreadClock(TASKS);
        final long first = compilers.nanos();
        if (first > 0)
        {
            return millis(compilers, first);
        }
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (null == jit || !jit.isCompilationTimeMonitoringSupported())
        {
            return NONE;
        }
        return jit::getTotalCompilationTime;
    }

    /**
     * @param compilers  the compiler threads' clock.
     * @param firstNanos its first reading.
     * @return its readings in milliseconds; a reading that fails (a thread that ended between the listing and its
     *         {@code schedstat}, a transient error of {@code /proc}) repeats the last good one, so the clock neither
     *         runs backwards nor jumps when the next reading succeeds.
     */
    static LongSupplier millis(final CompilerThreadClock compilers, final long firstNanos)
    {
        final long[] lastMillis = { Math.max(0, firstNanos) / 1_000_000L };
        return () ->
        {
            final long nanos = compilers.nanos();
            if (nanos >= 0)
            {
                lastMillis[0] = nanos / 1_000_000L;
            }
            return lastMillis[0];
        };
    }

    /**
     * @param tasks a process's task directory ({@code /proc/self/task}).
     * @return the summed on-CPU time of the compiler threads in nanoseconds (threads that ended meanwhile are
     *         skipped), or -1 if the directory or a compiler thread's {@code schedstat} cannot be read.
     */
    static long compilerCpuNanos(final Path tasks)
    {
        return new CompilerThreadClock(tasks).nanos();
    }

    /**
     * The compiler threads' CPU time, read from a task directory. A thread's name is read once (the JVM starts and
     * stops compiler threads as the queue grows and shrinks, so the listing is taken at every reading): a reading
     * then costs the listing and one {@code schedstat} per compiler thread. Single-threaded.
     */
    static final class CompilerThreadClock
    {
        /** The value of a task that is not a compiler thread. */
        private static final long NOT_COMPILER = -1;

        private final Path tasks;
        /** Every task seen: {@link #NOT_COMPILER}, or a compiler thread's CPU nanoseconds at the last reading. */
        private final Map<String, Long> nanosByTask = new HashMap<>();
        private final Set<String> listed = new HashSet<>();
        private long retiredNanos;

        CompilerThreadClock(final Path tasks)
        {
            this.tasks = tasks;
        }

        /**
         * @return the compiler threads' summed on-CPU nanoseconds, those of compiler threads that stopped included
         *         (so the clock never runs backwards), or -1 if something could not be read.
         */
        long nanos()
        {
            if (!Files.isDirectory(tasks))
            {
                return -1;
            }
            long total = 0;
            listed.clear();
            try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks))
            {
                for (final Path thread : threads)
                {
                    final String tid = thread.getFileName().toString();
                    Long last = nanosByTask.get(tid);
                    if (null == last)
                    {
                        try
                        {
                            last = isCompilerThread(Files.readString(thread.resolve("comm"))) ? 0L : NOT_COMPILER;
                        }
                        catch (final IOException ex)
                        {
                            continue; // the thread ended after the listing
                        }
                    }
                    listed.add(tid);
                    if (NOT_COMPILER == last)
                    {
                        nanosByTask.put(tid, NOT_COMPILER);
                        continue;
                    }
                    final String schedstat = Files.readString(thread.resolve("schedstat"));
                    final int end = schedstat.indexOf(' ');
                    final long nanos = Long.parseLong(end < 0 ? schedstat.trim() : schedstat.substring(0, end));
                    nanosByTask.put(tid, nanos);
                    total += nanos;
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                return -1;
            }
            if (nanosByTask.size() > listed.size())
            {
                // Threads ended: forget them; a compiler thread's time stays on the clock.
                nanosByTask.entrySet().removeIf(e ->
                {
                    if (listed.contains(e.getKey()))
                    {
                        return false;
                    }
                    if (NOT_COMPILER != e.getValue())
                    {
                        retiredNanos += e.getValue();
                    }
                    return true;
                });
            }
            return retiredNanos + total;
        }
    }

    private static boolean isCompilerThread(final String name)
    {
        for (final String prefix : COMPILER_THREAD_PREFIXES)
        {
            if (name.startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }
}
