// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import io.verbs4j.shmem.ShmemException.Reason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A PE that goes away (aborts its heap without the closing barrier) fails the calls the others are blocked in: a
 * wait on a flag nobody will set, a barrier. PEs as threads; the separate-process kill test is
 * in {@link ShmemProcessSystemTest}.
 */
class SymmetricHeapFailureTest
{
    private static final long BOUND_NS = 10_000_000_000L;
    private static final long READY_OFFSET = 8;

    @AfterAll
    static void sweep()
    {
        Heaps.sweep();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp", "shm-verbs"})
    void aPeThatGoesAwayFailsTheOthersBlockedCalls(final String transport)
    {
        Heaps.run(3, transport, heap ->
        {
            final int me = heap.myPe();
            final SymmetricMemory flag = heap.allocate(64);
            // PE 2 leaves only once the others have told it they are past every collective of the setup: an abort
            // during a collective another PE has not finished fails that collective too, which is not what this
            // test is about (a barrier here raced with the abort: PE 2 could finish it and abort before PE 0 had)
            if (2 == me)
            {
                heap.waitUntil(flag, READY_OFFSET, Cmp.EQ, 1);
                heap.waitUntil(flag, READY_OFFSET + Long.BYTES, Cmp.EQ, 1);
                heap.abort();
                return;
            }
            final long start = System.nanoTime();
            // PE 1 is blocked in a barrier when the heap owns its world communicator (which the abort takes down);
            // over a borrowed communicator (shm-verbs) the world stays up, so it waits on a flag like PE 0
            final boolean inBarrier = 1 == me && !"shm-verbs".equals(transport);
            final ShmemException ex = assertThrows(ShmemException.class, () ->
            {
                // the ready put itself may already see PE 2 gone (its completion comes after PE 2 saw the data)
                heap.putLong(flag, READY_OFFSET + (long) me * Long.BYTES, 1, 2);
                if (inBarrier)
                {
                    heap.barrierAll();
                }
                else
                {
                    heap.waitUntil(flag, 0, Cmp.EQ, 1, 60_000_000_000L);
                }
            });
            final long took = System.nanoTime() - start;
            assertEquals(Reason.PEER_FAILED, ex.reason(), ex.toString());
            assertTrue(took < BOUND_NS, "failed after " + took / 1_000_000 + " ms");
            assertTrue(heap.isFailed());
            // every later call fails too, with the same reason
            assertEquals(Reason.PEER_FAILED, assertThrows(ShmemException.class, heap::barrierAll).reason());
            assertEquals(Reason.PEER_FAILED,
                assertThrows(ShmemException.class, () -> heap.putLong(flag, 0, 1, 1 - me)).reason());
        });
    }
}
