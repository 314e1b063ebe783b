// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.verbs4j.Access;
import io.verbs4j.Capabilities;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;

/**
 * The shared part of a protection domain: argument checks, the {@link KeyTable}, ownership of regions and queue
 * pairs, and close. A provider supplies the memory and the queue-pair class.
 */
public abstract class AbstractProtectionDomain implements ProtectionDomain
{
    private final AbstractDevice device;
    private final KeyTable keys = new KeyTable();
    private final Set<AbstractMemoryRegion> regions = ConcurrentHashMap.newKeySet();
    private final Set<AbstractQueuePair> queuePairs = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param device the owning device.
     */
    protected AbstractProtectionDomain(final AbstractDevice device)
    {
        this.device = device;
    }

    /** {@inheritDoc} */
    public final AbstractDevice device()
    {
        return device;
    }

    /** @return the domain's key table. */
    public final KeyTable keys()
    {
        return keys;
    }

    /** {@inheritDoc} */
    public final MemoryRegion allocate(final long length, final int access)
    {
        checkOpen();
        checkLength(length);
        Access.validate(access);
        final AbstractMemoryRegion region = newAllocatedRegion(length, access, keys.newKey(), keys.newKey());
        return adopt(region);
    }

    /** {@inheritDoc} */
    public final MemoryRegion register(final ByteBuffer buffer, final int access)
    {
        Objects.requireNonNull(buffer, "buffer");
        checkOpen();
        if (!buffer.isDirect())
        {
            throw new IllegalArgumentException("only direct ByteBuffers can be registered; allocate one with " +
                "ByteBuffer.allocateDirect or use ProtectionDomain.allocate");
        }
        checkLength(buffer.remaining());
        Access.validate(access);
        return adopt(newRegisteredRegion(buffer, access, keys.newKey(), keys.newKey()));
    }

    /** {@inheritDoc} */
    public final QueuePair createQueuePair(final QueuePairConfig config)
    {
        Objects.requireNonNull(config, "config");
        checkOpen();
        config.validate(device.capabilities());
        final BaseCompletionQueue sendCq = device.ownCq(config.sendCq());
        final BaseCompletionQueue recvCq = device.ownCq(config.recvCq());
        sendCq.attach(config.sendDepth());
        try
        {
            recvCq.attach(config.recvDepth());
        }
        catch (final RuntimeException ex)
        {
            sendCq.detach(config.sendDepth());
            throw ex;
        }
        final AbstractQueuePair qp;
        try
        {
            qp = newQueuePair(config, device.nextQpNumber());
        }
        catch (final RuntimeException ex)
        {
            sendCq.detach(config.sendDepth());
            recvCq.detach(config.recvDepth());
            throw ex;
        }
        queuePairs.add(qp);
        try
        {
            sendCq.track(qp);
            recvCq.track(qp);
        }
        catch (final IllegalArgumentException ex)
        {
            qp.close(); // gives back the slots and untracks it
            throw ex;
        }
        return qp;
    }

    /** {@inheritDoc} */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final List<AutoCloseable> all = new ArrayList<>(queuePairs);
        all.addAll(regions);
        for (final AutoCloseable resource : all)
        {
            try
            {
                resource.close();
            }
            catch (final Exception ignore)
            {
                // Keep closing the rest: one failing resource must not leak the others.
            }
        }
        device.removeDomain(this);
    }

    /** @return true once closed. */
    public final boolean isClosed()
    {
        return closed;
    }

    /** @return the open regions (snapshot). */
    public final List<AbstractMemoryRegion> regions()
    {
        return new ArrayList<>(regions);
    }

    /** @return the open queue pairs (snapshot). */
    public final List<AbstractQueuePair> queuePairs()
    {
        return new ArrayList<>(queuePairs);
    }

    final void deregister(final AbstractMemoryRegion region)
    {
        keys.remove(region);
        regions.remove(region);
        onDeregistered(region);
    }

    final void removeQueuePair(final QueuePairStateMachine qp)
    {
        queuePairs.remove(qp);
    }

    /**
     * Allocates memory for a new region.
     *
     * @param length checked length.
     * @param access checked access.
     * @param lkey   the new lkey.
     * @param rkey   the new rkey.
     * @return the region.
     */
    protected abstract AbstractMemoryRegion newAllocatedRegion(long length, int access, int lkey, int rkey);

    /**
     * Wraps a direct buffer as a new region.
     *
     * @param buffer the buffer (position to limit).
     * @param access checked access.
     * @param lkey   the new lkey.
     * @param rkey   the new rkey.
     * @return the region.
     */
    protected abstract AbstractMemoryRegion newRegisteredRegion(ByteBuffer buffer, int access, int lkey, int rkey);

    /**
     * @param config   validated attributes.
     * @param qpNumber the number to give it.
     * @return the queue pair, in RESET.
     */
    protected abstract AbstractQueuePair newQueuePair(QueuePairConfig config, int qpNumber);

    /**
     * Called after a new region's keys were added (e.g. to publish it for peers). Default: nothing.
     *
     * @param region the region.
     */
    protected void onRegistered(final AbstractMemoryRegion region)
    {
    }

    /**
     * Called after a region's keys were removed (e.g. to unpublish it for peers). Default: nothing.
     *
     * @param region the region.
     */
    protected void onDeregistered(final AbstractMemoryRegion region)
    {
    }

    private MemoryRegion adopt(final AbstractMemoryRegion region)
    {
        keys.add(region);
        regions.add(region);
        onRegistered(region);
        return region;
    }

    private void checkLength(final long length)
    {
        final Capabilities caps = device.capabilities();
        if (length < 1 || length > caps.maxRegionLength())
        {
            throw new IllegalArgumentException("region length " + length + " is out of range [1, " +
                caps.maxRegionLength() + "]");
        }
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("protection domain is closed");
        }
    }
}
