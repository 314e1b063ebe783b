package io.verbs4j.shm;

import java.nio.file.Path;

import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;

/**
 * An shm memory region. Allocated regions live in their own 0600 file under the shm directory, which peers map to
 * do WRITE/READ/atomics and to pull large SENDs themselves ("shared"). Registered direct buffers cannot be mapped
 * by another process ("private"): peers' one-sided operations on them fail with REM_ACCESS_ERR, and SENDs from
 * them go inline through the ring (see README, LIMITATIONS).
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
            MappedMemory.unmap(memory());
        }
    }
}
