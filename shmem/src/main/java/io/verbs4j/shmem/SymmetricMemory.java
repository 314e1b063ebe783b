// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import io.verbs4j.MemoryRegion;
import io.verbs4j.RemoteMemory;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One symmetric object: {@link #length()} bytes allocated collectively by {@link SymmetricHeap#allocate(long)} on
 * every PE, addressed by (offset, PE) in the heap's calls. Each PE's copy is one registered region (registered again
 * on each further device the PE uses, same memory); every PE knows every other PE's address and rkey for it, and
 * has mapped the copies of its same-host peers.
 * <p>
 * {@link #local()} is this PE's copy, {@link #ptr(int)} the direct view of a same-host PE's copy
 * ({@code nvshmem_ptr}): plain loads and stores through it bypass the heap's ordering calls (use the buffer's
 * release/acquire and atomic methods, or {@link SymmetricHeap#fence()}). Both stay valid until the object is freed.
 * <p>
 * Threading: the views may be used from any thread; the object itself is managed by the heap's thread.
 */
public final class SymmetricMemory
{
    private final SymmetricHeap heap;
    private final int length;
    private final MemoryRegion[] regions;
    private final UnsafeBuffer local;
    private final long localAddress;
    private final long[] remoteAddress;
    private final int[] rkey;
    private final RemoteMemory[] views;
    private final AtomicBuffer[] direct;
    private boolean freed;

    SymmetricMemory(final SymmetricHeap heap, final int length, final MemoryRegion[] regions, final int primary,
        final long[] remoteAddress, final int[] rkey, final RemoteMemory[] views)
    {
        this.heap = heap;
        this.length = length;
        this.regions = regions;
        this.local = new UnsafeBuffer(0, 0);
        regions[primary].wrap(local, 0, length);
        this.localAddress = local.addressOffset();
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        this.views = views;
        this.direct = new AtomicBuffer[remoteAddress.length];
        for (int q = 0; q < direct.length; q++)
        {
            direct[q] = null != views[q] ? views[q].buffer() : null;
        }
        direct[heap.myPe()] = local;
    }

    /** @return the heap it belongs to. */
    public SymmetricHeap heap()
    {
        return heap;
    }

    /** @return bytes (the same on every PE). */
    public long length()
    {
        return length;
    }

    /** @return this PE's copy (valid until freed). */
    public AtomicBuffer local()
    {
        return local;
    }

    /**
     * The direct view of a PE's copy, like {@code nvshmem_ptr}.
     *
     * @param pe a PE of the heap.
     * @return this PE's copy for {@code pe == myPe()}, a view of the peer's memory for a PE on this host reached
     *         through direct peer memory, or null when {@code pe} is only reachable through RDMA (another host).
     */
    public AtomicBuffer ptr(final int pe)
    {
        return direct[pe];
    }

    /** @return true once freed. */
    public boolean isFreed()
    {
        return freed;
    }

    RemoteMemory view(final int pe)
    {
        return views[pe];
    }

    AtomicBuffer direct(final int pe)
    {
        return direct[pe];
    }

    long remoteAddress(final int pe)
    {
        return remoteAddress[pe];
    }

    int rkey(final int pe)
    {
        return rkey[pe];
    }

    long localAddress()
    {
        return localAddress;
    }

    long iova(final int device)
    {
        return regions[device].address();
    }

    int lkey(final int device)
    {
        return regions[device].lkey();
    }

    MemoryRegion region(final int device)
    {
        return regions[device];
    }

    /** Closes the views and deregisters the copies (after the collective free's barrier). */
    void release()
    {
        freed = true;
        for (final RemoteMemory view : views)
        {
            if (null != view)
            {
                view.close();
            }
        }
        // registrations on other devices first: they name the primary region's memory
        for (int d = regions.length - 1; d >= 0; d--)
        {
            if (null != regions[d] && regions[d] != regions[heap.primaryDevice()])
            {
                regions[d].close();
            }
        }
        regions[heap.primaryDevice()].close();
    }
}
