// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.lang.management.ManagementFactory;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data path allocates nothing per operation: PE 0's thread runs puts (inline, staged, zero copy), gets (staged,
 * zero copy), atomics, put-with-signal, a wait and quiet in a loop, and its allocated bytes
 * ({@code com.sun.management.ThreadMXBean}) over 3000 iterations must stay below one byte per iteration in at least
 * one of a few rounds.
 */
class ShmemAllocationTest
{
    private static final int OPS = 3_000;
    private static final int ROUNDS = 4;

    @AfterAll
    static void sweep()
    {
        Heaps.sweep();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp", "shm-verbs"})
    void theDataPathAllocatesNothingPerOperation(final String transport)
    {
        Heaps.run(2, transport, heap ->
        {
            final SymmetricMemory data = heap.allocate(8192);
            final SymmetricMemory flags = heap.allocate(64);
            final UnsafeBuffer array = new UnsafeBuffer(new byte[8192]);
            heap.barrierAll();
            if (0 == heap.myPe())
            {
                loop(heap, data, flags, array, OPS);                      // warm up (JIT, first-use paths)
                final com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
                // the least of a few rounds: a JIT deoptimisation in one round materialises scalar-replaced
                // objects (a one-off, not a per-operation cost)
                long least = Long.MAX_VALUE;
                for (int round = 0; round < ROUNDS && least >= OPS; round++)
                {
                    final long before = threads.getCurrentThreadAllocatedBytes();
                    loop(heap, data, flags, array, OPS);
                    least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
                }
                assertTrue(least < OPS, least + " bytes allocated over " + OPS + " iterations of 9 operations");
            }
            heap.barrierAll();
            if (1 == heap.myPe())
            {
                assertTrue(heap.signalFetch(flags, 0) >= 2L * OPS && 0 == heap.signalFetch(flags, 0) % OPS);
            }
            heap.barrierAll();
        });
    }

    private static void loop(final SymmetricHeap heap, final SymmetricMemory data, final SymmetricMemory flags,
        final UnsafeBuffer array, final int ops)
    {
        for (int i = 0; i < ops; i++)
        {
            heap.put(data, 0, array, 0, 8, 1);
            heap.put(data, 0, array, 0, 4096, 1);
            heap.putNbi(data, 0, data.local(), 0, 8192, 1);
            heap.get(array, 0, data, 0, 4096, 1);
            heap.get(data.local(), 0, data, 0, 64, 1);
            heap.atomicFetchAdd(flags, 8, 1, 1);
            heap.putSignal(data, 0, array, 0, 64, flags, 0, 1, SignalOp.ADD, 1);
            heap.waitUntil(flags, 16, Cmp.EQ, 0);
            heap.quiet();
        }
    }
}
