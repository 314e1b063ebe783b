// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The directory walks the leak checks and the soak's sampler rely on: a file or directory that vanishes during the
 * walk (a provider deleting its files meanwhile) makes the walk start over instead of killing the caller.
 */
class ResourcesTest
{
    private Path dir;

    @AfterEach
    void tearDown() throws IOException
    {
        if (null != dir && Files.exists(dir))
        {
            try (Stream<Path> paths = Files.walk(dir))
            {
                for (final Path p : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
                {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Test
    void shouldListAndSizeAStableDirectory() throws IOException
    {
        dir = Files.createTempDirectory("verbs4j-resources-");
        Files.createDirectories(dir.resolve("user"));
        Files.write(dir.resolve("user/b"), new byte[100]);
        Files.write(dir.resolve("a"), new byte[28]);
        assertEquals(List.of("a", "user/b"), Resources.list(dir));
        assertEquals(128, Resources.usedBytes(dir));
    }

    @Test
    void shouldGiveNothingForAMissingDirectory()
    {
        final Path missing = Path.of(System.getProperty("java.io.tmpdir"), "verbs4j-resources-missing-" +
            ProcessHandle.current().pid());
        assertEquals(List.of(), Resources.list(missing));
        assertEquals(0, Resources.usedBytes(missing));
    }

    @Test
    void shouldNeverThrowWhileSubdirectoriesComeAndGo() throws Exception
    {
        dir = Files.createTempDirectory("verbs4j-resources-");
        Files.write(dir.resolve("kept"), new byte[10]);
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread churn = new Thread(() ->
        {
            int n = 0;
            while (!stop.get())
            {
                final Path sub = dir.resolve("sub" + (n++ & 7));
                try
                {
                    Files.createDirectories(sub.resolve("deeper"));
                    Files.write(sub.resolve("deeper/f"), new byte[1]);
                    Files.delete(sub.resolve("deeper/f"));
                    Files.delete(sub.resolve("deeper"));
                    Files.delete(sub);
                    LockSupport.parkNanos(50_000); // a provider's pace, not a tight loop that no walk could outrun
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            }
        }, "resources-churn");
        churn.start();
        try
        {
            final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            int walks = 0;
            while (System.nanoTime() - end < 0 || walks < 200)
            {
                assertTrue(Resources.list(dir).contains("kept"), "the file that stays is always listed");
                assertTrue(Resources.usedBytes(dir) >= 10);
                walks++;
            }
        }
        finally
        {
            stop.set(true);
            churn.join(10_000);
        }
    }
}
