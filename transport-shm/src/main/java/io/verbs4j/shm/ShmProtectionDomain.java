// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.SecureRandom;

import io.verbs4j.MemoryReservationException;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.AbstractProtectionDomain;
import io.verbs4j.spi.AbstractQueuePair;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.agrona.BufferUtil;

/**
 * An shm protection domain. Its random id is published with each of its regions in the device's region table and
 * sent to the peer of each of its queue pairs at connection time, so that an initiator can check that the rkey it
 * uses belongs to the protection domain of the queue pair it is connected to.
 */
public final class ShmProtectionDomain extends AbstractProtectionDomain
{
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Runnable NOTHING = () ->
    {
    };

    private final ShmDevice device;
    private final long pdId;

    ShmProtectionDomain(final ShmDevice device)
    {
        super(device);
        this.device = device;
        long id;
        do
        {
            id = RANDOM.nextLong();
        }
        while (0 == id);
        this.pdId = id;
    }

    /** @return the id published with this domain's regions. */
    public long pdId()
    {
        return pdId;
    }

    /** {@inheritDoc} */
    protected AbstractMemoryRegion newAllocatedRegion(final long length, final int access, final int lkey,
        final int rkey)
    {
        final int slot = device.reserveSlot();
        try
        {
            final long fileId = device.nextFileId();
            final Path file = device.files().region(device.pid(), device.deviceId(), fileId);
            final RegionMemory memory = MappedMemory.create(file, length, ShmConfiguration.DIR_PROP_NAME);
            device.counters().increment(ShmCounter.SEGMENTS_CREATED);
            return new ShmMemoryRegion(this, memory, lkey, rkey, access, slot, fileId, file);
        }
        catch (final RuntimeException ex)
        {
            if (ex instanceof MemoryReservationException)
            {
                device.counters().increment(ShmCounter.SEGMENTS_REFUSED);
            }
            device.freeSlot(slot);
            throw ex;
        }
    }

    /** {@inheritDoc} */
    protected AbstractMemoryRegion newRegisteredRegion(
        final ByteBuffer buffer, final int access, final int lkey, final int rkey)
    {
        final int slot = device.reserveSlot();
        final RegionMemory memory = RegionMemory.contiguous(
            BufferUtil.address(buffer) + buffer.position(), buffer.remaining(), buffer);
        return new ShmMemoryRegion(this, memory, lkey, rkey, access, slot, 0, null);
    }

    /** {@inheritDoc} */
    protected AbstractQueuePair newQueuePair(final QueuePairConfig config, final int qpNumber)
    {
        return new ShmQueuePair(this, config, qpNumber);
    }

    /**
     * Waits until no queue pair of this domain is inside a copy of local memory (setup path: region close). Every
     * such copy checks that its regions are open first, and runs either under its queue pair's send lock (posting
     * threads, the pump) or inside the device's progress (the receive side): both are waited out once.
     */
    void awaitNoCopyInProgress()
    {
        for (final AbstractQueuePair qp : queuePairs())
        {
            ((ShmQueuePair)qp).awaitSendUnlocked();
        }
        device.progressExclusive(NOTHING);
    }

    /** {@inheritDoc} */
    protected void onRegistered(final AbstractMemoryRegion region)
    {
        device.publish((ShmMemoryRegion)region, pdId);
    }

    /** {@inheritDoc} */
    protected void onDeregistered(final AbstractMemoryRegion region)
    {
        device.unpublish((ShmMemoryRegion)region);
    }
}
