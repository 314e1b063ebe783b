// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.Access;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Verbs;
import io.verbs4j.bench.Main;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.shm.ShmConfiguration;
import io.verbs4j.stat.StatFile;
import io.verbs4j.stat.StatPublisher;
import io.verbs4j.stat.StatRegistry;
import io.verbs4j.stat.StatSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code verbs4j stat} reads the counters files of running processes (this test JVM is the running process). */
class StatCommandTest
{
    /** A pid far above Linux's pid_max (4194304): no process has it. */
    private static final long NO_SUCH_PID = 999_999_999L;

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();

    private int run(final String... args)
    {
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(out, true));
        return commandLine.execute(args);
    }

    @Test
    void shouldPrintTheCountersOfThisRunningProcess()
    {
        try (StatPublisher publisher = StatRegistry.publishTo(dir, Duration.ofHours(1));
             StatRegistry.Registration group = StatRegistry.register("tcp device 77",
                 sink -> sink.counter("payload bytes sent", 1_234_567)))
        {
            publisher.publishNow();

            assertEquals(0, run("stat", "--dir", dir.toString()), out::toString);
        }
        final String text = out.toString();
        assertTrue(text.startsWith("pid " + ProcessHandle.current().pid() + ", sampled "), text);
        assertTrue(text.contains("\n  tcp device 77\n"), text);
        assertTrue(text.matches("(?s).*\n    payload bytes sent +1,234,567\n.*"), text);
    }

    @Test
    void shouldPrintTheCountersOfAnOpenShmDevice() throws Exception
    {
        final Path shmDir = Files.createDirectories(dir.resolve("shm"));
        try (StatPublisher publisher = StatRegistry.publishTo(dir, Duration.ofHours(1));
             Device device = Verbs.open("shm", new DeviceContext().property(ShmConfiguration.DIR_PROP_NAME,
                 shmDir.toString()));
             MemoryRegion region = device.allocateProtectionDomain().allocate(4096, Access.LOCAL_WRITE))
        {
            publisher.publishNow();

            assertEquals(0, run("stat", "--dir", dir.toString()), out::toString);
        }
        final String text = out.toString();
        assertTrue(text.matches("(?s).*\n  shm device \\d+\n    SEND requests +0\n.*"), text);
        assertTrue(text.matches("(?s).*\n    payload bytes received \\(SEND\\) +0\n.*"), text);
        assertTrue(text.matches("(?s).*\n    region segments created +1\n.*"), text);
        assertTrue(text.matches("(?s).*\n    segments refused for lack of space +0\n.*"), text);
    }

    @Test
    void shouldReportAndCleanTheFilesOfProcessesThatExited() throws Exception
    {
        final Path stale = StatFile.write(dir, new StatSnapshot(NO_SUCH_PID, "java", 1, List.of()));

        assertEquals(1, run("stat", "--dir", dir.toString()));
        assertTrue(out.toString().contains("pid " + NO_SUCH_PID + ": not running (stale "), out.toString());
        assertTrue(out.toString().contains("no running process writes counters to " + dir), out.toString());
        assertTrue(Files.exists(stale));

        assertEquals(1, run("stat", "--dir", dir.toString(), "--clean"));
        assertFalse(Files.exists(stale));
    }

    @Test
    void shouldShowOnlyTheGivenPids()
    {
        try (StatPublisher publisher = StatRegistry.publishTo(dir, Duration.ofHours(1)))
        {
            assertEquals(1, run("stat", "--dir", dir.toString(), "1"));
            assertTrue(out.toString().contains("among pids [1]"), out.toString());
            assertFalse(out.toString().contains("pid " + ProcessHandle.current().pid()), out.toString());
        }
    }

    @Test
    void shouldRefuseANonPositiveWatchInterval()
    {
        assertEquals(2, run("stat", "--dir", dir.toString(), "--watch", "0"));
        assertTrue(out.toString().contains("--watch must be >= 1 second"), out.toString());
    }
}
