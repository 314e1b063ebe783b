// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Names, creates and removes the benchmark files under {@code /dev/shm}.
 * <p>
 * Every file is named {@code verbs4j-<pid>-<label>-<n>} after the creating process. Removal is layered so files
 * disappear even on failure: the initiator unlinks a file as soon as it has mapped it (the mappings stay valid);
 * the responder deletes it on close; a shutdown hook deletes whatever this JVM created and still has; and a parent
 * that kills its peer deletes {@code verbs4j-<peer pid>-*} ({@link #deleteAllOwnedBy(long)}). Thread-safe.
 */
public final class ShmFiles
{
    /** Directory of the files: the tmpfs that Linux backs with memory. */
    public static final Path DIRECTORY = Path.of("/dev/shm");

    /** Prefix of every file name. */
    public static final String PREFIX = "verbs4j-";

    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicLong COUNTER = new AtomicLong();

    static
    {
        try
        {
            Runtime.getRuntime().addShutdownHook(new Thread(ShmFiles::deleteLive, "verbs4j-shm-cleanup"));
        }
        catch (final IllegalStateException shuttingDown)
        {
            // First used while the JVM exits (a peer reaper deleting a killed child's files after an interrupt): the
            // class has only just loaded, so this process has no file of its own left to delete. Without the catch
            // the reaper died of an ExceptionInInitializerError and left the child's files behind.
        }
    }

    private ShmFiles()
    {
    }

    /**
     * A fresh path for a new file of this process, registered for deletion at exit.
     *
     * @param label a short word saying what the file is for.
     * @return the path; the file does not exist yet.
     * @throws IOException if {@link #DIRECTORY} does not exist.
     */
    static Path newPath(final String label) throws IOException
    {
        if (!Files.isDirectory(DIRECTORY))
        {
            throw new IOException(DIRECTORY + " does not exist: the shared-memory baselines need a Linux tmpfs there");
        }
        final Path path = DIRECTORY.resolve(
            PREFIX + ProcessHandle.current().pid() + "-" + label + "-" + COUNTER.incrementAndGet());
        LIVE.add(path);
        return path;
    }

    /**
     * Deletes a file if it exists and forgets it. Never throws.
     *
     * @param path the file.
     */
    static void delete(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            System.err.println("# warning: could not delete " + path + ": " + ex.getMessage());
        }
        LIVE.remove(path);
    }

    /**
     * Deletes every {@code verbs4j-<pid>-*} file in {@link #DIRECTORY}, e.g. after killing that process.
     *
     * @param pid the process that created the files.
     * @return how many files were deleted.
     */
    public static int deleteAllOwnedBy(final long pid)
    {
        int deleted = 0;
        if (Files.isDirectory(DIRECTORY))
        {
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(DIRECTORY, PREFIX + pid + "-*"))
            {
                for (final Path path : stream)
                {
                    if (Files.deleteIfExists(path))
                    {
                        deleted++;
                    }
                }
            }
            catch (final IOException ex)
            {
                System.err.println("# warning: could not clean " + DIRECTORY + ": " + ex.getMessage());
            }
        }
        return deleted;
    }

    private static void deleteLive()
    {
        for (final Path path : LIVE)
        {
            delete(path);
        }
    }
}
