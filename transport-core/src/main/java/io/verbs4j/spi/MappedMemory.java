// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

import io.verbs4j.MemoryReservationException;
import io.verbs4j.VerbsException;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

/**
 * Maps files as {@link RegionMemory}, in 1 GiB chunks so that regions over 2 GiB work on JDK 17. Files are created
 * with mode 0600 and every page reserved before the first mapping ({@link PageReservation}); {@link #open} maps only
 * files that hold at least what it maps, which, since creation fills files from offset 0 upwards, are pages that
 * exist. Used by the shm provider for shareable regions and by any provider that wants memory outside the
 * JVM's direct-memory limit (create, map, then delete the file: the mapping keeps the memory).
 */
public final class MappedMemory
{
    private MappedMemory()
    {
    }

    /**
     * Creates a new file of {@code length} zero bytes (mode 0600), reserves every page of it
     * ({@link PageReservation}) and maps it read-write. A directory without room for it refuses here, before any
     * mapping exists, never later inside a memory access.
     *
     * @param file        the file to create; it must not exist.
     * @param length      bytes.
     * @param dirPropName the configuration property that chooses the file's directory (named in the remedy when the
     *                    directory is full).
     * @return the mapped memory; unmap with {@link #unmap(RegionMemory)}.
     * @throws MemoryReservationException if the directory has not {@code length} bytes free (nothing is left behind).
     * @throws VerbsException             if the file cannot be created or mapped for another reason.
     */
    public static RegionMemory create(final Path file, final long length, final String dirPropName)
    {
        PageReservation.checkSpace(file, length, dirPropName);
        try
        {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        catch (final IOException ex)
        {
            throw new VerbsException("cannot create " + file + ": " + ex, ex);
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            PageReservation.reserve(channel, file, length, dirPropName);
            return map(channel, length);
        }
        catch (final IOException | RuntimeException ex)
        {
            // Only the file this call created is removed (which also gives its reserved pages back).
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException suppressed)
            {
                ex.addSuppressed(suppressed);
            }
            if (ex instanceof MemoryReservationException)
            {
                throw (MemoryReservationException)ex;
            }
            throw new VerbsException("cannot size and map " + length + " bytes at " + file + ": " + ex, ex);
        }
    }

    /**
     * Maps an existing file read-write.
     *
     * @param file   the file.
     * @param length bytes to map from its start.
     * @return the mapped memory.
     * @throws VerbsException if it cannot be opened or is shorter than {@code length}.
     */
    public static RegionMemory open(final Path file, final long length)
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            if (channel.size() < length)
            {
                throw new VerbsException(file + " holds " + channel.size() + " bytes, expected " + length);
            }
            return map(channel, length);
        }
        catch (final IOException ex)
        {
            throw new VerbsException("cannot map " + file + ": " + ex, ex);
        }
    }

    /**
     * Unmaps every chunk. The memory must not be touched afterwards.
     *
     * @param memory memory from {@link #create} or {@link #open}.
     */
    public static void unmap(final RegionMemory memory)
    {
        for (int i = 0; i < memory.chunkCount(); i++)
        {
            final Object buffer = memory.keepAlive(i);
            if (buffer instanceof MappedByteBuffer)
            {
                IoUtil.unmap((MappedByteBuffer)buffer);
            }
        }
    }

    private static RegionMemory map(final FileChannel channel, final long length) throws IOException
    {
        final int shift = RegionMemory.MAPPED_CHUNK_SHIFT;
        final long chunkSize = 1L << shift;
        final int chunks = (int)Math.max(1, (length + chunkSize - 1) >>> shift);
        final long[] addresses = new long[chunks];
        final Object[] buffers = new Object[chunks];
        try
        {
            for (int i = 0; i < chunks; i++)
            {
                final long position = (long)i << shift;
                final long size = Math.max(0, Math.min(chunkSize, length - position));
                final MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, position, size);
                buffers[i] = buffer;
                addresses[i] = BufferUtil.address(buffer);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            for (final Object buffer : buffers)
            {
                if (null != buffer)
                {
                    IoUtil.unmap((MappedByteBuffer)buffer);
                }
            }
            throw ex;
        }
        return RegionMemory.chunked(addresses, shift, length, buffers);
    }
}
