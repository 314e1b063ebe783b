// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
     * moves where neither is available (then a warm-up judges by the call times alone).
     */
    public static LongSupplier compileMillis()
    {
        if (compilerCpuNanos(TASKS) > 0)
        {
            return () ->
            {
                final long nanos = compilerCpuNanos(TASKS);
                return nanos < 0 ? 0 : nanos / 1_000_000L;
            };
        }
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (null == jit || !jit.isCompilationTimeMonitoringSupported())
        {
            return NONE;
        }
        return jit::getTotalCompilationTime;
    }

    /**
     * @param tasks a process's task directory ({@code /proc/self/task}).
     * @return the summed on-CPU time of the compiler threads in nanoseconds (threads that ended meanwhile are
     *         skipped), or -1 if the directory or a compiler thread's {@code schedstat} cannot be read.
     */
    static long compilerCpuNanos(final Path tasks)
    {
        if (!Files.isDirectory(tasks))
        {
            return -1;
        }
        long total = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks))
        {
            for (final Path thread : threads)
            {
                final String name;
                try
                {
                    name = Files.readString(thread.resolve("comm"));
                }
                catch (final IOException ex)
                {
                    continue; // the thread ended after the listing
                }
                if (isCompilerThread(name))
                {
                    final String schedstat = Files.readString(thread.resolve("schedstat"));
                    final int end = schedstat.indexOf(' ');
                    total += Long.parseLong(end < 0 ? schedstat.trim() : schedstat.substring(0, end));
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
        return total;
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
