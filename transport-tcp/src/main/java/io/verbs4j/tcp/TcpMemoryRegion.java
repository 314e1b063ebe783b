// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.AbstractProtectionDomain;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.agrona.BufferUtil;

/**
 * A region of the tcp provider: either memory mapped from an unlinked file (allocated regions: outside the JVM's
 * direct-memory limit, over 2 GiB works) or a registered direct buffer.
 * <p>
 * The I/O threads touch region memory asynchronously (a WRITE payload streaming in, a READ response or a send
 * payload in the socket's outbound queue), so they <em>pin</em> a region for as long as they use it. Closing the
 * region invalidates its keys at once, but unmapping waits until the last pin is gone: a peer or a racing close can
 * never make an I/O thread touch unmapped memory.
 */
final class TcpMemoryRegion extends AbstractMemoryRegion
{
    private static final VarHandle PINS;
    private static final int CLOSED = 1 << 30;

    static
    {
        try
        {
            PINS = MethodHandles.lookup().findVarHandle(TcpMemoryRegion.class, "pins", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final boolean mapped;
    @SuppressWarnings("unused")
    private volatile int pins;

    TcpMemoryRegion(
        final AbstractProtectionDomain pd,
        final RegionMemory memory,
        final int lkey,
        final int rkey,
        final int access,
        final boolean mapped)
    {
        super(pd, memory, memory.addressOf(0), lkey, rkey, access);
        this.mapped = mapped;
    }

    /**
     * Pins the memory for an asynchronous use.
     *
     * @return false if the region was closed (the use must not happen).
     */
    boolean tryPin()
    {
        while (true)
        {
            final int value = (int)PINS.getVolatile(this);
            if (value >= CLOSED)
            {
                return false;
            }
            if (PINS.compareAndSet(this, value, value + 1))
            {
                return true;
            }
        }
    }

    /** Ends a use begun by a successful {@link #tryPin()}; the last one after close frees the memory. */
    void unpin()
    {
        final int now = (int)PINS.getAndAdd(this, -1) - 1;
        if (CLOSED == now)
        {
            free();
        }
    }

    /**
     * A ByteBuffer view of a contiguous range (allocates; used only by the NIO socket path).
     *
     * @param address native address inside one chunk.
     * @param length  bytes.
     * @return the view.
     */
    ByteBuffer view(final long address, final int length)
    {
        final RegionMemory memory = memory();
        for (int i = 0; i < memory.chunkCount(); i++)
        {
            final Object backing = memory.keepAlive(i);
            if (backing instanceof ByteBuffer)
            {
                final ByteBuffer buffer = (ByteBuffer)backing;
                final long base = BufferUtil.address(buffer);
                if (address >= base && address + length <= base + buffer.capacity())
                {
                    final ByteBuffer view = buffer.duplicate();
                    view.limit((int)(address - base) + length).position((int)(address - base));
                    return view.slice();
                }
            }
        }
        throw new IllegalStateException("no buffer backs address 0x" + Long.toHexString(address) + " in " + this);
    }

    /** {@inheritDoc} */
    protected void release()
    {
        final int previous = (int)PINS.getAndAdd(this, CLOSED);
        if (0 == previous)
        {
            free();
        }
    }

    private void free()
    {
        if (mapped)
        {
            MappedMemory.unmap(memory());
        }
    }
}
