// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

/**
 * The README's example: a distributed hash table of non-zero long keys and long values on a symmetric heap. Slot
 * {@code i} of the global table (open addressing, linear probing) lives on PE {@code i % nPes} at entry
 * {@code i / nPes}; an insert claims a slot with one remote compare-and-swap on its key word, then puts the value.
 * Inserts and lookups may run on every PE at once; a lookup sees an insert made before the last barrier.
 */
final class ShmemHashTable
{
    static final long MISSING = Long.MIN_VALUE;
    private static final int ENTRY = 16;                           // key (8 bytes), value (8 bytes)

    private final SymmetricHeap heap;
    private final SymmetricMemory table;
    private final long slots;

    ShmemHashTable(final SymmetricHeap heap, final int entriesPerPe)
    {
        this.heap = heap;
        this.table = heap.allocate((long)ENTRY * entriesPerPe);    // collective
        this.slots = (long)entriesPerPe * heap.nPes();
    }

    void put(final long key, final long value)
    {
        for (long probe = 0, i = home(key); probe < slots; probe++, i = (i + 1) % slots)
        {
            final int pe = (int)(i % heap.nPes());
            final long offset = ENTRY * (i / heap.nPes());
            final long seen = heap.atomicCompareSwap(table, offset, 0, key, pe);
            if (0 == seen || key == seen)
            {
                heap.putLong(table, offset + 8, value, pe);
                return;
            }
        }
        throw new IllegalStateException("table full");
    }

    long get(final long key)
    {
        for (long probe = 0, i = home(key); probe < slots; probe++, i = (i + 1) % slots)
        {
            final int pe = (int)(i % heap.nPes());
            final long offset = ENTRY * (i / heap.nPes());
            final long seen = heap.atomicFetch(table, offset, pe);
            if (key == seen)
            {
                return heap.getLong(table, offset + 8, pe);
            }
            if (0 == seen)
            {
                return MISSING;
            }
        }
        return MISSING;
    }

    private long home(final long key)
    {
        return Long.remainderUnsigned(key * 0x9E3779B97F4A7C15L, slots);
    }
}
