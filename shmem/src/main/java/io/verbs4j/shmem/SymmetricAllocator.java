// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.RemoteMemory;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.types.DataType;

/**
 * The collective allocation of one {@link SymmetricMemory}:
 * <ol>
 *   <li>each PE allocates its copy on its primary device (the direct-access one if any, so that same-host peers can
 *       map it) and registers the same memory on each further device it uses (tcp next to shm in a mixed job);</li>
 *   <li>one AllToAll of three longs per pair: PE p sends PE q the address and rkey of its copy as registered on the
 *       device of its link to q, and its length (all PEs must ask for the same size);</li>
 *   <li>each PE maps the copies of its direct-access peers ({@code mapRemote}, read, write and atomics).</li>
 * </ol>
 * On any failure everything made so far is released. Setup path.
 */
final class SymmetricAllocator
{
    private static final int RECORD_LONGS = 3;

    private SymmetricAllocator()
    {
    }

    static SymmetricMemory allocate(final SymmetricHeap heap, final Communicator world, final HeapMesh mesh,
        final int length)
    {
        final int me = world.rank();
        final int size = world.size();
        final int devices = null == mesh ? 1 : mesh.devices().size();
        final int primary = null == mesh ? 0 : mesh.primaryDevice();
        final MemoryRegion[] regions = new MemoryRegion[devices];
        final RemoteMemory[] views = new RemoteMemory[size];
        try
        {
            if (null == mesh)
            {
                regions[0] = world.allocate(length);
            }
            else
            {
                regions[primary] = mesh.devices().get(primary).pd().allocate(length, Access.ALL);
                for (int d = 0; d < devices; d++)
                {
                    if (d != primary)
                    {
                        regions[d] = mesh.devices().get(d).pd().register(regions[primary].byteBuffer(0, length),
                            Access.ALL);
                    }
                }
            }
            final long[] mine = new long[RECORD_LONGS * size];
            final long[] theirs = new long[RECORD_LONGS * size];
            for (int q = 0; q < size; q++)
            {
                final MemoryRegion region = regions[q == me || null == mesh ? primary : mesh.deviceOf(q)];
                mine[RECORD_LONGS * q] = region.address();
                mine[RECORD_LONGS * q + 1] = region.rkey();
                mine[RECORD_LONGS * q + 2] = length;
            }
            exchange(heap, world, mine, theirs);
            final long[] addresses = new long[size];
            final int[] rkeys = new int[size];
            for (int q = 0; q < size; q++)
            {
                if (theirs[RECORD_LONGS * q + 2] != length)
                {
                    throw new IllegalArgumentException("PE " + q + " allocated " + theirs[RECORD_LONGS * q + 2] +
                        " bytes and PE " + me + " " + length + ": allocate is collective, with the same size");
                }
                addresses[q] = theirs[RECORD_LONGS * q];
                rkeys[q] = (int)theirs[RECORD_LONGS * q + 1];
            }
            for (int q = 0; q < size; q++)
            {
                if (q != me && mesh.isDirect(q))
                {
                    views[q] = mesh.queuePair(q).mapRemote(addresses[q], rkeys[q], length,
                        Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC);
                }
            }
            final SymmetricMemory memory = new SymmetricMemory(heap, length, regions, primary, addresses, rkeys,
                views);
            heap.register(memory);
            return memory;
        }
        catch (final RuntimeException ex)
        {
            for (final RemoteMemory view : views)
            {
                if (null != view)
                {
                    view.close();
                }
            }
            // the further registrations first: they name the primary region's memory
            for (int d = 0; d < devices; d++)
            {
                if (d != primary && null != regions[d])
                {
                    regions[d].close();
                }
            }
            if (null != regions[primary])
            {
                regions[primary].close();
            }
            throw ex;
        }
    }

    private static void exchange(final SymmetricHeap heap, final Communicator world, final long[] mine,
        final long[] theirs)
    {
        try
        {
            world.allToAll(CommBuffer.of(mine), CommBuffer.of(theirs), RECORD_LONGS, DataType.INT64);
        }
        catch (final RuntimeException ex)
        {
            throw heap.communicatorFailure(ex);
        }
    }
}
