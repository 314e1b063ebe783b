// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The JIT clock's reading of the compiler threads' CPU time: only compiler threads count, a thread that ended during
 * the listing is skipped, and an unreadable task directory makes the clock fall back instead of guessing.
 */
class JitActivityTest
{
    @TempDir
    Path tasks;

    private void task(final String tid, final String comm, final String schedstat) throws IOException
    {
        final Path dir = Files.createDirectories(tasks.resolve(tid));
        Files.writeString(dir.resolve("comm"), comm + "\n");
        if (null != schedstat)
        {
            Files.writeString(dir.resolve("schedstat"), schedstat + "\n");
        }
    }

    @Test
    void shouldSumTheCompilerThreadsOnly() throws IOException
    {
        task("101", "java", "5000000000 1 1");
        task("102", "C2 CompilerThre", "12345 678 9");
        task("103", "C1 CompilerThre", "1000 2 3");
        task("104", "VM Thread", "777 0 0");
        assertEquals(13345, JitActivity.compilerCpuNanos(tasks));
    }

    @Test
    void shouldSkipAThreadThatEndedDuringTheListing() throws IOException
    {
        task("102", "C2 CompilerThre", "500 0 0");
        Files.createDirectories(tasks.resolve("105")); // listed, then gone: no comm any more
        assertEquals(500, JitActivity.compilerCpuNanos(tasks));
    }

    @Test
    void shouldRefuseWhatItCannotRead() throws IOException
    {
        assertEquals(-1, JitActivity.compilerCpuNanos(tasks.resolve("missing")));
        task("102", "C2 CompilerThre", null);
        assertEquals(-1, JitActivity.compilerCpuNanos(tasks), "a compiler thread without schedstat");
    }

    @Test
    void shouldReadThisJvmsCompilersOnLinux()
    {
        final Path self = Path.of("/proc/self/task");
        assumeTrue(Files.isDirectory(self.resolve(Long.toString(ProcessHandle.current().pid()))) &&
            Files.exists(self.resolve(Long.toString(ProcessHandle.current().pid())).resolve("schedstat")),
            "no per-thread schedstat here");
        final long nanos = JitActivity.compilerCpuNanos(self);
        assertTrue(nanos > 0, "a JVM that ran the test framework has compiled something: " + nanos);
        final long startNs = System.nanoTime();
        for (int i = 0; i < 100; i++)
        {
            JitActivity.compilerCpuNanos(self);
        }
        final long eachUs = (System.nanoTime() - startNs) / 100 / 1000;
        assertTrue(JitActivity.compileMillis().getAsLong() >= nanos / 1_000_000L,
            "the clock reads the same threads (" + eachUs + " us a reading)");
    }

    @Test
    void shouldReadEachThreadsNameOnceAndFollowThreadsThatComeAndGo() throws IOException
    {
        task("102", "C2 CompilerThre", "100 0 0");
        task("103", "main", "5 0 0");
        final JitActivity.CompilerThreadClock clock = new JitActivity.CompilerThreadClock(tasks);
        assertEquals(100, clock.nanos());
        Files.delete(tasks.resolve("102/comm"));
        Files.writeString(tasks.resolve("102/schedstat"), "250 0 0\n");
        assertEquals(250, clock.nanos(), "the name was read once; the time at every reading");
        task("104", "C1 CompilerThre", "50 0 0");
        assertEquals(300, clock.nanos(), "a compiler thread started later counts from its first listing");
        Files.delete(tasks.resolve("102/schedstat"));
        Files.delete(tasks.resolve("102"));
        assertEquals(300, clock.nanos(), "a compiler thread that stopped keeps its time on the clock");
        Files.writeString(tasks.resolve("104/schedstat"), "70 0 0\n");
        assertEquals(320, clock.nanos(), "and the clock goes on from there");
    }

    @Test
    void shouldRepeatTheLastGoodReadingWhenOneFails() throws IOException
    {
        task("102", "C2 CompilerThre", "3000000 0 0");
        final JitActivity.CompilerThreadClock clock = new JitActivity.CompilerThreadClock(tasks);
        final LongSupplier millis = JitActivity.millis(clock, clock.nanos());
        assertEquals(3, millis.getAsLong());
        Files.writeString(tasks.resolve("102/schedstat"), "5000000 0 0\n");
        assertEquals(5, millis.getAsLong());
        Files.delete(tasks.resolve("102/schedstat")); // listed, schedstat gone: this reading fails
        assertEquals(-1, clock.nanos());
        assertEquals(5, millis.getAsLong(), "not 0: a failed reading would look like a jump back and then forward");
        Files.writeString(tasks.resolve("102/schedstat"), "9000000 0 0\n");
        assertEquals(9, millis.getAsLong());
    }
}
