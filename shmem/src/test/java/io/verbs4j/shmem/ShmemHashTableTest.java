// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The README example ({@link ShmemHashTable}) works: every PE inserts its keys, then finds everybody's. */
class ShmemHashTableTest
{
    @AfterAll
    static void sweep()
    {
        Heaps.sweep();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void everyPeFindsEveryKey(final String transport)
    {
        Heaps.run(3, transport, heap ->
        {
            final ShmemHashTable table = new ShmemHashTable(heap, 128);
            final int perPe = 60;
            for (int i = 1; i <= perPe; i++)
            {
                final long key = heap.myPe() * 1_000L + i;
                table.put(key, 3 * key);
            }
            heap.barrierAll();
            for (int pe = 0; pe < heap.nPes(); pe++)
            {
                for (int i = 1; i <= perPe; i++)
                {
                    final long key = pe * 1_000L + i;
                    assertEquals(3 * key, table.get(key), "key " + key);
                }
            }
            assertEquals(ShmemHashTable.MISSING, table.get(999_999));
            heap.barrierAll();
        });
    }
}
