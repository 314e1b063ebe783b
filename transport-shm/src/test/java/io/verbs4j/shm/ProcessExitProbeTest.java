// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ProcessExitProbeTest
{
    @Test
    void readsTheStateAfterTheLastParenthesis()
    {
        assertTrue(state("1234 (java) Z 1 1234"));
        assertTrue(state("1234 (java) X 1 1234"));
        assertFalse(state("1234 (java) S 1 1234"));
        assertFalse(state("1234 (java) R 1 1234"));
        assertFalse(state("1234 (we) Z) S 1 1234"), "a ')' in the command name is not the end of it");
        assertTrue(state("1234 (we) S) Z 1 1234"));
        assertFalse(state("1234 (java"));
        assertFalse(state(""));
    }

    private static boolean state(final String line)
    {
        final byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
        return ProcessExitProbe.isExitedState(bytes, bytes.length);
    }

    @Test
    void seesAZombieThatItsParentHasNotReaped() throws Exception
    {
        assumeTrue(ProcessExitProbe.of(ProcessHandle.current().pid()).available(), "no /proc here");
        // The child sleeps until the test ends it; its parent (an exec'd sleep) never reaps it, so it stays a zombie.
        // (A child that ended by itself after 0.3 s could end before a slow test thread had seen it running.)
        final Process parent = new ProcessBuilder("bash", "-c", "sleep 60 & echo $!; exec sleep 60").start();
        try
        {
            final long pid = Long.parseLong(new BufferedReader(new InputStreamReader(parent.getInputStream(),
                StandardCharsets.US_ASCII)).readLine().trim());
            try (ProcessExitProbe probe = ProcessExitProbe.of(pid))
            {
                assertTrue(probe.available());
                assertFalse(probe.exited(), "running");
                // Only once bash has become the sleep that never reaps (bash itself would reap the child).
                final Path comm = Path.of("/proc/" + parent.pid() + "/comm");
                final long execDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!"sleep".equals(Files.readString(comm).trim()) &&
                    System.nanoTime() < execDeadline)
                {
                    Thread.sleep(5);
                }
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!probe.exited() && System.nanoTime() < deadline)
                {
                    Thread.sleep(5);
                }
                assertTrue(probe.exited(), "zombie seen");
                assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                    "the handle still says alive: the probe is what sees it");
            }
        }
        finally
        {
            parent.destroyForcibly();
        }
    }

    @Test
    void aReapedProcessReadsAsExitedAndAnInterruptDoesNotFakeIt() throws Exception
    {
        assumeTrue(ProcessExitProbe.of(ProcessHandle.current().pid()).available(), "no /proc here");
        final Process child = new ProcessBuilder("sleep", "60").start();
        try (ProcessExitProbe probe = ProcessExitProbe.of(child.pid()))
        {
            Thread.currentThread().interrupt();
            try
            {
                assertFalse(probe.exited(), "an interrupted caller still reads the state");
            }
            finally
            {
                Thread.interrupted();
            }
            child.destroy();
            child.waitFor();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!probe.exited() && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            assertTrue(probe.exited());
        }
    }

    @Test
    void noProcFileMeansNoAnswer()
    {
        try (ProcessExitProbe probe = ProcessExitProbe.of(Long.MAX_VALUE))
        {
            assertFalse(probe.available());
            assertFalse(probe.exited());
        }
    }
}
