// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import io.verbs4j.MemoryReservationException;

/**
 * Reserves every page of a new segment file before anything maps it, so that no mapping of verbs4j ever has a page
 * that might not exist.
 * <p>
 * Why: a tmpfs file is sparse. Giving it a size reserves nothing; a page is allocated when first touched, and when
 * the tmpfs is full at that moment the touch through a mapping raises SIGBUS, which the JVM turns into an
 * {@link InternalError} in whichever thread touched it (for an RDMA WRITE on shm that is the initiator, in another
 * process). Java has no {@code fallocate}: JDK 17's {@code FileChannel.map} extends a file with {@code ftruncate},
 * which reserves nothing either. A {@link FileChannel#write} does reserve: tmpfs allocates each page it writes and
 * refuses with ENOSPC ("No space left on device", an {@link IOException} on this thread) when full. Writing only the
 * last byte, or sizing the file, is not enough; every page must be written. So the file is filled with zeros, in
 * large writes from one shared zero buffer, from offset 0 upwards: at any moment every page below the file's size
 * exists, which keeps {@code MappedMemory.open}'s size check ("the file holds at least what I map") a guarantee that
 * the pages exist too.
 * <p>
 * Cost: one pass of writes over the segment, measured in docs/RELIABILITY.md. Before writing, the free space of the
 * file system is compared with the request ({@link #checkSpace}) so that the common case, a segment that cannot
 * fit, is refused at once with a message that says what to do, before any page is taken.
 */
public final class PageReservation
{
    /** Bytes per write: large enough that the system calls are noise, small enough to keep in cache. */
    static final int ZERO_CHUNK_LENGTH = 1 << 20;

    /** Read-only, so that sharing it between threads (each with its own duplicate's position) is safe. */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(ZERO_CHUNK_LENGTH).asReadOnlyBuffer();

    private PageReservation()
    {
    }

    /**
     * Refuses a segment that cannot fit in its directory's free space (cheap: one {@code statfs}).
     *
     * @param file        the segment file about to be created.
     * @param length      bytes it needs.
     * @param dirPropName the configuration property that chooses the directory, for the remedy.
     * @throws MemoryReservationException if {@code length} exceeds the free space.
     */
    public static void checkSpace(final Path file, final long length, final String dirPropName)
    {
        final long free = freeBytes(file);
        if (free >= 0 && length > free)
        {
            throw refused(file, length, free, dirPropName, null);
        }
    }

    /**
     * Writes zeros over {@code [0, length)} of a new, empty file, so that every page of it exists.
     *
     * @param channel     the file's channel, open for writing; the file must be empty.
     * @param file        the file, for messages.
     * @param length      bytes to reserve.
     * @param dirPropName the configuration property that chooses the directory, for the remedy.
     * @throws MemoryReservationException if the file system refuses a page (full) or the write fails; the caller
     *                                    deletes the file.
     */
    public static void reserve(final FileChannel channel, final Path file, final long length,
        final String dirPropName)
    {
        final ByteBuffer zeros = ZEROS.duplicate();
        long position = 0;
        try
        {
            while (position < length)
            {
                zeros.clear().limit((int)Math.min(ZERO_CHUNK_LENGTH, length - position));
                while (zeros.hasRemaining())
                {
                    position += channel.write(zeros, position);
                }
            }
        }
        catch (final IOException ex)
        {
            throw refused(file, length, -1, dirPropName, ex);
        }
    }

    /**
     * Builds the refusal: what was asked, where, what is free, and the remedy.
     *
     * @param file        the segment file.
     * @param length      bytes asked for.
     * @param free        bytes free, or -1 to look it up now.
     * @param dirPropName the directory property.
     * @param cause       the write failure, or null.
     * @return the exception.
     */
    static MemoryReservationException refused(final Path file, final long length, final long free,
        final String dirPropName, final IOException cause)
    {
        final Path dir = null == file.getParent() ? file : file.getParent();
        final long freeNow = free >= 0 ? free : freeBytes(file);
        return new MemoryReservationException(dir, length, freeNow, "cannot reserve " + size(length) + " of shared " +
            "memory for " + file.getFileName() + " in " + dir + ": " +
            (freeNow >= 0 ? size(freeNow) + " free there" : "free space unknown") +
            (null == cause ? "" : " (" + cause.getMessage() + ")") + ". Segments are reserved in full when created, " +
            "so that a full directory fails here and not as a fault in a later memory access. Make room: give the " +
            "container a larger /dev/shm (docker run --shm-size=1g; Kubernetes: an emptyDir volume with medium " +
            "Memory), free space there, or set " + dirPropName + " to a tmpfs directory with enough room", cause);
    }

    /**
     * @param file a file or directory on the file system of interest (need not exist; its parent is tried too).
     * @return bytes usable there now, or -1 if the file system will not say.
     */
    static long freeBytes(final Path file)
    {
        Path probe = file;
        while (null != probe && !Files.exists(probe))
        {
            probe = probe.getParent();
        }
        if (null == probe)
        {
            return -1;
        }
        try
        {
            return Files.getFileStore(probe).getUsableSpace();
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    private static String size(final long bytes)
    {
        return String.format(Locale.ROOT, "%.1f MiB (%d bytes)", bytes / (1024.0 * 1024.0), bytes);
    }
}
