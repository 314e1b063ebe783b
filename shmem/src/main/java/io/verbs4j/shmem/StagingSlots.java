// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Registered bounce memory of one device for the verbs path: {@code slots} slots of {@code slotBytes} (copies of
 * unregistered put sources, landing places of READs into unregistered buffers and of atomic results), plus a small
 * scratch area for inline sources (copied by the provider at post time, so reusable at once) and a sink for
 * results nobody reads. A slot is taken by a post and given back when its completion is handled (or, for results the
 * caller reads, by the caller), so a slot is never reused while the provider may still read or write it.
 * Single-threaded (the heap's thread), allocation-free after construction.
 */
final class StagingSlots implements AutoCloseable
{
    /** Bytes of the inline-source scratch area (at least any provider's inline limit used here). */
    static final int SCRATCH_BYTES = 1024;
    /** Offset of the sink for discarded atomic results, after the scratch area. */
    static final int SINK_OFFSET = SCRATCH_BYTES;
    private static final int HEADER_BYTES = SCRATCH_BYTES + 64;

    private final MemoryRegion region;
    private final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
    private final int slotBytes;
    private final int[] free;
    private int freeCount;

    /**
     * @param pd        protection domain of the device.
     * @param slots     number of slots.
     * @param slotBytes bytes per slot.
     */
    StagingSlots(final ProtectionDomain pd, final int slots, final int slotBytes)
    {
        final long bytes = HEADER_BYTES + (long)slots * slotBytes;
        this.region = pd.allocate(bytes, Access.LOCAL_WRITE);
        region.wrap(buffer, 0, (int)bytes);
        this.slotBytes = slotBytes;
        this.free = new int[slots];
        for (int i = 0; i < slots; i++)
        {
            free[i] = slots - 1 - i;
        }
        this.freeCount = slots;
    }

    /** @return a free slot, or -1 when all are in flight. */
    int acquire()
    {
        return freeCount > 0 ? free[--freeCount] : -1;
    }

    /**
     * @param slot a slot taken with {@link #acquire()}.
     */
    void release(final int slot)
    {
        free[freeCount++] = slot;
    }

    /** @return bytes per slot. */
    int slotBytes()
    {
        return slotBytes;
    }

    /**
     * @param slot a slot.
     * @return its offset in {@link #buffer()}.
     */
    int offset(final int slot)
    {
        return HEADER_BYTES + slot * slotBytes;
    }

    /** @return the whole staging memory (index 0 is {@link #address()}). */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** @return the verbs address of byte 0. */
    long address()
    {
        return region.address();
    }

    /** @return the lkey. */
    int lkey()
    {
        return region.lkey();
    }

    /** Frees the memory. */
    public void close()
    {
        region.close();
    }
}
