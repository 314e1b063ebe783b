// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.nio.ByteBuffer;

import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The heap's API with PEs as threads, over shm (direct peer memory), tcp (RDMA verbs) and, for the data path, shm
 * with direct access turned off (RDMA verbs on shm queue pairs): puts and gets of every
 * size class (inline, staged in one and in several slots, zero-copy from symmetric memory), non-blocking forms with
 * quiet, the atomics, put-with-signal in both signal modes, wait timeouts, {@code ptr}, and teams.
 */
class SymmetricHeapThreadTest
{
    private static final int[] SIZES = {1, 8, 255, 257, 4096, 70_001, 200_000};

    @AfterAll
    static void sweep()
    {
        Heaps.sweep();
    }

    private static byte pattern(final int pe, final int size, final int i)
    {
        return (byte)(pe * 31 + size * 7 + i);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp", "shm-verbs"})
    void putsAndGetsOfEverySizeReachTheRightPe(final String transport)
    {
        Heaps.run(3, transport, heap ->
        {
            final int me = heap.myPe();
            final int n = heap.nPes();
            final int right = (me + 1) % n;
            final int left = (me + n - 1) % n;
            final SymmetricMemory target = heap.allocate(200_000);
            final SymmetricMemory source = heap.allocate(200_000);
            final UnsafeBuffer heapArray = new UnsafeBuffer(new byte[200_000]);
            final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(200_000));
            for (final int size : SIZES)
            {
                for (int variant = 0; variant < 3; variant++)
                {
                    // variant 0: heap array, 1: unregistered direct buffer, 2: symmetric (registered) source
                    final AtomicBuffer src = 0 == variant ? heapArray : 1 == variant ? direct : source.local();
                    for (int i = 0; i < size; i++)
                    {
                        src.putByte(i, pattern(me, size + variant, i));
                    }
                    if (1 == variant % 2)
                    {
                        heap.putNbi(target, 0, src, 0, size, right);
                        heap.quiet();
                    }
                    else
                    {
                        heap.put(target, 0, src, 0, size, right);
                    }
                    heap.barrierAll();
                    for (int i = 0; i < size; i++)
                    {
                        assertEquals(pattern(left, size + variant, i), target.local().getByte(i),
                            "put size " + size + " variant " + variant + " byte " + i);
                    }
                    heap.barrierAll();
                }
            }
            // gets: every PE's target holds its own pattern; read the right neighbour's
            for (final int size : SIZES)
            {
                for (int i = 0; i < size; i++)
                {
                    target.local().putByte(i, pattern(me, size, i));
                }
                heap.barrierAll();
                heap.get(heapArray, 0, target, 0, size, right);
                heap.getNbi(direct, 0, target, 0, size, right);
                heap.get(source.local(), 0, target, 0, size, right);
                heap.quiet();
                for (int i = 0; i < size; i++)
                {
                    final byte expected = pattern(right, size, i);
                    assertEquals(expected, heapArray.getByte(i), "get size " + size + " byte " + i);
                    assertEquals(expected, direct.getByte(i), "getNbi size " + size + " byte " + i);
                    assertEquals(expected, source.local().getByte(i), "zero-copy get size " + size + " byte " + i);
                }
                heap.barrierAll();
            }
            heap.putLong(target, 8, 1000 + me, right);
            heap.barrierAll();
            assertEquals(1000 + left, target.local().getLong(8));
            assertEquals(1000 + me, heap.getLong(target, 8, right));
            heap.free(source);
            heap.free(target);
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp", "shm-verbs"})
    void atomicsAreAtomicAcrossPes(final String transport)
    {
        Heaps.run(3, transport, heap ->
        {
            final int me = heap.myPe();
            final int n = heap.nPes();
            final int right = (me + 1) % n;
            final int left = (me + n - 1) % n;
            final SymmetricMemory words = heap.allocate(64);
            final int adds = 200;
            for (int i = 0; i < adds; i++)
            {
                heap.atomicFetchAdd(words, 0, 1, 0);
                heap.atomicAdd(words, 32, 2, 0);
            }
            // election: exactly one PE swaps 0 -> me + 1
            final long before = heap.atomicCompareSwap(words, 8, 0, me + 1, 0);
            if (0 == before)
            {
                heap.atomicAdd(words, 16, 1, 0);
            }
            heap.atomicSet(words, 24, 5000 + me, right);
            heap.barrierAll();
            if (0 == me)
            {
                assertEquals((long)adds * n, words.local().getLongVolatile(0));
                assertEquals(2L * adds * n, words.local().getLongVolatile(32));
                assertEquals(1, words.local().getLongVolatile(16), "one CAS winner");
                final long winner = words.local().getLongVolatile(8);
                assertTrue(winner >= 1 && winner <= n, "winner " + winner);
            }
            assertEquals(5000 + left, words.local().getLongVolatile(24));
            assertEquals(5000 + me, heap.atomicFetch(words, 24, right));
            heap.barrierAll();
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp", "shm-verbs"})
    void putSignalDeliversTheDataBeforeTheSignal(final String transport)
    {
        Heaps.run(3, transport, heap ->
        {
            final int me = heap.myPe();
            final int n = heap.nPes();
            final int right = (me + 1) % n;
            final int left = (me + n - 1) % n;
            final int bytes = 4096;
            final SymmetricMemory data = heap.allocate(bytes);
            final SymmetricMemory signals = heap.allocate(64);
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[bytes]);
            for (int iter = 1; iter <= 50; iter++)
            {
                payload.setMemory(0, bytes, (byte)(iter + me));
                if (0 == iter % 2)
                {
                    heap.putSignal(data, 0, payload, 0, bytes, signals, 0, iter, SignalOp.SET, right);
                }
                else
                {
                    heap.putSignalNbi(data, 0, payload, 0, bytes, signals, 0, iter, SignalOp.SET, right);
                }
                assertEquals(iter, heap.signalWait(signals, 0, Cmp.EQ, iter));
                for (int i = 0; i < bytes; i++)
                {
                    assertEquals((byte)(iter + left), data.local().getByte(i), "iteration " + iter + " byte " + i);
                }
                // acknowledge to the left so it does not overwrite data we have not read
                heap.atomicAdd(signals, 8, 1, left);
                heap.waitUntil(signals, 8, Cmp.GE, iter);
            }
            // ADD: every PE signals PE 0 once
            heap.putSignal(data, 0, payload, 0, 0, signals, 16, 1, SignalOp.ADD, 0);
            if (0 == me)
            {
                assertEquals(n, heap.signalWait(signals, 16, Cmp.GE, n));
            }
            heap.barrierAll();
            assertEquals(0 == me ? n : 0, heap.signalFetch(signals, 16));
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aWaitTimesOutAndLeavesTheHeapUsable(final String transport)
    {
        Heaps.run(2, transport, heap ->
        {
            final SymmetricMemory flag = heap.allocate(8);
            final long start = System.nanoTime();
            final ShmemException ex = assertThrows(ShmemException.class,
                () -> heap.waitUntil(flag, 0, Cmp.EQ, 42, 50_000_000L));
            assertEquals(ShmemException.Reason.TIMEOUT, ex.reason());
            assertTrue(System.nanoTime() - start >= 50_000_000L);
            assertThrows(IllegalArgumentException.class, () -> heap.waitUntil(flag, 4, Cmp.EQ, 0, 1));
            assertThrows(IllegalArgumentException.class, () -> heap.putLong(flag, 8, 1, 0));
            heap.barrierAll();                                 // both timed out before either sets the flag
            heap.putLong(flag, 0, 42, 1 - heap.myPe());
            assertEquals(42, heap.waitUntil(flag, 0, Cmp.EQ, 42));
            heap.barrierAll();
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void ptrIsTheDirectViewOfSameHostPes(final String transport)
    {
        Heaps.run(2, transport, heap ->
        {
            final int me = heap.myPe();
            final int other = 1 - me;
            final SymmetricMemory memory = heap.allocate(64);
            assertNotNull(memory.ptr(me));
            assertTrue(heap.isDirect(me));
            if ("shm".equals(transport))
            {
                assertTrue(heap.isDirect(other));
                final AtomicBuffer peer = memory.ptr(other);
                assertNotNull(peer);
                peer.putLongRelease(0, 77 + me);
            }
            else
            {
                assertNull(memory.ptr(other));
                assertTrue(!heap.isDirect(other));
                heap.putLong(memory, 0, 77 + me, other);
            }
            assertEquals(transport, heap.transport(other));
            heap.barrierAll();
            assertEquals(77 + other, memory.local().getLongVolatile(0));
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void stridedTeamsBarrierBroadcastAndReduce(final String transport)
    {
        Heaps.run(4, transport, heap ->
        {
            final int me = heap.myPe();
            final SymmetricMemory src = heap.allocate(8 * 16);
            final SymmetricMemory dest = heap.allocate(8 * 16);
            for (int i = 0; i < 16; i++)
            {
                src.local().putLong(8 * i, 100L * me + i);
            }
            final ShmemTeam evens = heap.teamSplitStrided(heap.teamWorld(), 0, 2, 2);
            if (0 != me % 2)
            {
                assertNull(evens);
            }
            else
            {
                assertNotNull(evens);
                assertEquals(me / 2, evens.myPe());
                assertEquals(2, evens.nPes());
                assertEquals(2, evens.worldPe(1));
                evens.barrier();
                evens.broadcast(dest, 0, src, 0, 8 * 16, 1);
                for (int i = 0; i < 16; i++)
                {
                    assertEquals(200L + i, dest.local().getLong(8 * i), "broadcast element " + i);
                }
                evens.reduce(dest, 0, src, 0, 16, DataType.INT64, ReduceOp.SUM);
                for (int i = 0; i < 16; i++)
                {
                    assertEquals(200L + 2 * i, dest.local().getLong(8 * i), "reduce element " + i);
                }
                evens.close();
            }
            heap.teamWorld().reduce(dest, 0, src, 0, 16, DataType.INT64, ReduceOp.MAX);
            assertEquals(300L + 15, dest.local().getLong(8 * 15));
            // world fcollect: element 0 of every PE, in PE order; alltoall: element j of PE i to PE j's block i
            heap.teamWorld().fcollect(dest, 0, src, 0, 8);
            for (int pe = 0; pe < 4; pe++)
            {
                assertEquals(100L * pe, dest.local().getLong(8 * pe), "fcollect block " + pe);
            }
            heap.teamWorld().alltoall(dest, 0, src, 0, 8);
            for (int pe = 0; pe < 4; pe++)
            {
                assertEquals(100L * pe + me, dest.local().getLong(8 * pe), "alltoall block " + pe);
            }
            heap.barrierAll();
        });
    }
}
