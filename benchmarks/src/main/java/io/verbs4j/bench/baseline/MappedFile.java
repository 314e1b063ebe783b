// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import org.agrona.BufferUtil;
import org.agrona.IoUtil;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A read-write shared mapping of a whole file, exposing its base address for {@code Unsafe} access.
 * The creator owns the file and deletes it on {@link #close()}; an opener unlinks it right after mapping.
 */
final class MappedFile implements AutoCloseable
{
    private final Path path;
    private final MappedByteBuffer buffer;
    private final long address;
    private final boolean owner;

    private MappedFile(final Path path, final MappedByteBuffer buffer, final boolean owner)
    {
        this.path = path;
        this.buffer = buffer;
        this.address = BufferUtil.address(buffer);
        this.owner = owner;
    }

    /**
     * Creates a new zero-filled (sparse) file under {@code /dev/shm} and maps it.
     *
     * @param label  file label, see {@link ShmFiles#newPath(String)}.
     * @param length length in bytes, at most {@link Integer#MAX_VALUE}.
     * @return the mapping, owning the file.
     * @throws IOException if the file cannot be created or mapped (it is deleted again).
     */
    static MappedFile create(final String label, final long length) throws IOException
    {
        final Path path = ShmFiles.newPath(label);
        try
        {
            return new MappedFile(path, IoUtil.mapNewFile(path.toFile(), length, false), true);
        }
        catch (final RuntimeException ex)
        {
            ShmFiles.delete(path);
            throw new IOException("cannot create and map " + path + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Maps an existing file created by a peer, then unlinks it: from now on only the two mappings keep it alive.
     *
     * @param path           the file, as published by the responder.
     * @param expectedLength the length both sides derived from the session.
     * @return the mapping.
     * @throws IOException if the file is missing (e.g. the responder runs on another host) or has the wrong length.
     */
    static MappedFile openAndUnlink(final Path path, final long expectedLength) throws IOException
    {
        if (!path.getFileName().toString().startsWith(ShmFiles.PREFIX))
        {
            throw new IOException("not a verbs4j shm file: " + path);
        }
        final long length;
        try
        {
            length = Files.size(path);
        }
        catch (final NoSuchFileException ex)
        {
            throw new IOException(path + " not found: shared-memory transports need the responder on this host", ex);
        }
        if (length != expectedLength)
        {
            throw new IOException(path + " has " + length + " bytes, expected " + expectedLength);
        }
        final MappedByteBuffer buffer = IoUtil.mapExistingFile(
            path.toFile(), FileChannel.MapMode.READ_WRITE, "verbs4j shm", 0, length);
        Files.deleteIfExists(path);
        return new MappedFile(path, buffer, false);
    }

    /**
     * The file's path (published as the endpoint).
     *
     * @return the path.
     */
    Path path()
    {
        return path;
    }

    /**
     * Base address of the mapping; page aligned.
     *
     * @return the address.
     */
    long address()
    {
        return address;
    }

    /**
     * Unmaps, and deletes the file if this side created it. Must not be called while another thread still uses
     * {@link #address()}.
     */
    @Override
    public void close()
    {
        IoUtil.unmap(buffer);
        if (owner)
        {
            ShmFiles.delete(path);
        }
    }
}
