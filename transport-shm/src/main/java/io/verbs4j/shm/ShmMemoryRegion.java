// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.file.Path;

import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;

/**
 * An shm memory region. Allocated regions live in their own 0600 file under the shm directory, which peers map to
 * do WRITE/READ/atomics and to pull large SENDs themselves ("shared"). Registered direct buffers cannot be mapped
 * by another process ("private"): peers' one-sided operations on them are served by this side's progress, and
 * SENDs from them are copied through the ring (see README).
 * <p>
 * Closing a region while posted work requests still name it is safe: every copy of local memory happens under a
 * queue pair's send lock or inside the device's progress, after checking the region is open; {@link #release()}
 * first waits until no queue pair of the domain is inside such a copy, then unmaps. Requests that reach a closed
 * region complete with {@code LOC_PROT_ERR}.
 */
public final class ShmMemoryRegion extends AbstractMemoryRegion
{
    private final int slot;
    private final long fileId;
    private final Path file;

    ShmMemoryRegion(
        final ShmProtectionDomain pd,
        final RegionMemory memory,
        final int lkey,
        final int rkey,
        final int access,
        final int slot,
        final long fileId,
        final Path file)
    {
        super(pd, memory, memory.addressOf(0), lkey, rkey, access);
        this.slot = slot;
        this.fileId = fileId;
        this.file = file;
    }

    /** @return true when the region is in a shared file that peers map. */
    public boolean isShared()
    {
        return null != file;
    }

    /** @return the region's file, or null for a registered buffer. */
    public Path file()
    {
        return file;
    }

    int slot()
    {
        return slot;
    }

    long fileId()
    {
        return fileId;
    }

    /** {@inheritDoc} */
    protected void release()
    {
        if (null != file)
        {
            ShmDevice.deleteQuietly(file);
            // isOpen() is already false: a copy that starts from now on sees it; wait out those under way.
            ((ShmProtectionDomain)protectionDomain()).awaitNoCopyInProgress();
            MappedMemory.unmap(memory());
        }
    }
}
