// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.file.Files;
import java.nio.file.Path;

import io.verbs4j.shm.protocol.SegmentHeader;
import org.agrona.concurrent.UnsafeBuffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShmFilesTest
{
    private final Path dir = ShmTestSupport.newDir("files");

    @AfterEach
    void deleteDir()
    {
        ShmTestSupport.deleteDir(dir);
    }

    @Test
    void shouldSweepFilesOfDeadProcessesOnly() throws Exception
    {
        final ShmFiles files = new ShmFiles(dir);
        final long deadPid = deadPid();
        final long livePid = ProcessHandle.current().pid();
        final Path dead = Files.createFile(files.deviceSegment(deadPid, 7));
        final Path deadRegion = Files.createFile(files.region(deadPid, 7, 1));
        final Path live = Files.createFile(files.deviceSegment(livePid, 7));
        final Path foreign = Files.createFile(dir.resolve("something-else"));
        assertEquals(deadPid, files.ownerPid(dead));
        assertEquals(2, files.sweepDead());
        assertFalse(Files.exists(dead));
        assertFalse(Files.exists(deadRegion));
        assertTrue(Files.exists(live));
        assertTrue(Files.exists(foreign));
        assertTrue(files.deviceSegment(1, 2).getFileName().toString().startsWith(files.prefix() + "p1-d2"));
    }

    @Test
    void shouldSweepOneExitedDeviceEvenWhileItsPidReadsAsAliveAndNothingElse() throws Exception
    {
        final ShmFiles files = new ShmFiles(dir);
        // this JVM's PID stands for a zombie: alive to ProcessHandle, so sweepDead() keeps its files
        final long pid = ProcessHandle.current().pid();
        final Path device = Files.createFile(files.deviceSegment(pid, 0xab));
        final Path region = Files.createFile(files.region(pid, 0xab, 1));
        final Path connection = Files.createFile(files.connection(pid, 0xab, 2));
        final Path longerDeviceId = Files.createFile(files.deviceSegment(pid, 0xabc));
        final Path otherDevice = Files.createFile(files.region(pid, 0xcd, 1));
        assertEquals(0, files.sweepDead());
        final Path longerPid = Files.createFile(files.deviceSegment(pid * 10 + 1, 0xab));
        assertEquals(3, files.sweepDevice(pid, 0xab));
        assertFalse(Files.exists(device));
        assertFalse(Files.exists(region));
        assertFalse(Files.exists(connection));
        assertTrue(Files.exists(longerDeviceId));
        assertTrue(Files.exists(otherDevice));
        assertTrue(Files.exists(longerPid));
    }

    @Test
    void shouldSweepFilesOfDeadProcessesLeftInTheBaseDirectoryByEarlierVersions() throws Exception
    {
        final ShmFiles files = new ShmFiles(dir);
        final long deadPid = deadPid();
        final Path legacy = Files.createFile(dir.resolve(files.deviceSegment(deadPid, 7).getFileName()));
        final Path legacyLive = Files.createFile(dir.resolve(files.deviceSegment(ProcessHandle.current().pid(), 7)
            .getFileName()));
        assertEquals(1, files.sweepDead());
        assertFalse(Files.exists(legacy));
        assertTrue(Files.exists(legacyLive));
        assertTrue(Files.isDirectory(files.dir()), "the per-user directory stays");
        Files.delete(legacyLive);
    }

    @Test
    void shouldSweepFilesOfDeadDeviceWhenOpeningOne()
    {
        final long deadPid = deadPid();
        try
        {
            Files.createFile(new ShmFiles(dir).region(deadPid, 3, 9));
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
        ShmTestSupport.open(dir, false).close();
        assertEquals(0, ShmTestSupport.fileCount(dir));
    }

    @Test
    void shouldTreatReusedPidWithOtherStartTimeAsDead() throws Exception
    {
        final ShmFiles files = new ShmFiles(dir);
        final long pid = ProcessHandle.current().pid();
        final long started = ShmFiles.currentStartTimeMs();
        assertTrue(started > 0, "the platform reports process start times");
        assertTrue(ShmFiles.isAlive(pid, started));
        assertTrue(ShmFiles.isAlive(pid, 0), "unknown start time: the PID alone decides");
        assertFalse(ShmFiles.isAlive(pid, started - 10_000), "same PID, other start time: a reused PID");
        final Path reused = writeDeviceHeader(files.deviceSegment(pid, 11), pid, started - 10_000);
        final Path reusedRegion = Files.createFile(files.region(pid, 11, 1));
        final Path mine = writeDeviceHeader(files.deviceSegment(pid, 12), pid, started);
        final Path mineRegion = Files.createFile(files.region(pid, 12, 1));
        assertEquals(2, files.sweepDead());
        assertFalse(Files.exists(reused));
        assertFalse(Files.exists(reusedRegion));
        assertTrue(Files.exists(mine));
        assertTrue(Files.exists(mineRegion));
    }

    private static Path writeDeviceHeader(final Path file, final long pid, final long startTimeMs) throws Exception
    {
        final UnsafeBuffer header = new UnsafeBuffer(new byte[SegmentHeader.LENGTH]);
        SegmentHeader.write(header, SegmentHeader.MAGIC_DEVICE, pid, 1, startTimeMs);
        return Files.write(file, header.byteArray());
    }

    private static long deadPid()
    {
        try
        {
            final Process process = new ProcessBuilder("true").start();
            process.waitFor();
            return process.pid();
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
