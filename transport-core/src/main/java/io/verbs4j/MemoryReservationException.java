// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.nio.file.Path;

/**
 * The pages of a shared-memory segment (a region, a connection's rings, a listener, a device's table) could not be
 * reserved when it was created: its directory (a tmpfs such as /dev/shm) has less room than the segment needs.
 * Segments are reserved in full at creation so that a full directory fails here, on the setup path, with this
 * exception, and never later as a fault inside a memory access of this process or of a peer.
 * <p>
 * The message names the directory, the bytes asked for, the bytes free and the remedy (a larger tmpfs, e.g.
 * {@code docker run --shm-size=1g}, or the provider's directory property); the accessors give the same figures to
 * code.
 */
public final class MemoryReservationException extends VerbsException
{
    private static final long serialVersionUID = 1L;

    /** The directory the segment was to be created in. */
    private final String directory;
    /** Bytes the segment needed. */
    private final long requestedBytes;
    /** Bytes free there when it was refused, or -1 if unknown. */
    private final long freeBytes;

    /**
     * @param directory      the directory the segment was to be created in.
     * @param requestedBytes bytes the segment needs.
     * @param freeBytes      bytes free there when it was refused, or -1 if unknown.
     * @param message        the full description, with the remedy.
     * @param cause          the underlying failure (e.g. "No space left on device"), or null.
     */
    public MemoryReservationException(final Path directory, final long requestedBytes, final long freeBytes,
        final String message, final Throwable cause)
    {
        super(message, cause);
        this.directory = String.valueOf(directory);
        this.requestedBytes = requestedBytes;
        this.freeBytes = freeBytes;
    }

    /** @return the directory the segment was to be created in. */
    public String directory()
    {
        return directory;
    }

    /** @return bytes the segment needs. */
    public long requestedBytes()
    {
        return requestedBytes;
    }

    /** @return bytes free in the directory when the segment was refused, or -1 if unknown. */
    public long freeBytes()
    {
        return freeBytes;
    }
}
