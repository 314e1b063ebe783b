// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;

import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the other ranks are told when one rank's code throws and its communicator closes or aborts. */
class FailureMessageTest
{
    private static CommunicatorContext context(final int rank, final int size,
        final io.verbs4j.collectives.rendezvous.RendezvousStore store, final String name)
    {
        return new CommunicatorContext().rank(rank).size(size).store(store).transport("shm").name(name)
            .calibrate(false).opTimeout(Duration.ofSeconds(20));
    }

    @Test
    void aRankThatClosesAfterAnExceptionIsNamedAsClosingNotAsAPlainMismatch()
    {
        new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            if (1 == rank)
            {
                assertThrows(IllegalStateException.class, () ->
                {
                    try (Communicator comm = Communicator.create(context(rank, size, store, "closing")))
                    {
                        comm.barrier();
                        throw new IllegalStateException("a bug in rank 1's code");
                    }
                });
                return;
            }
            try (Communicator comm = Communicator.create(context(rank, size, store, "closing")))
            {
                comm.barrier();
                final float[] v = {1, 2};
                final CollectiveException ex = assertThrows(CollectiveException.class,
                    () -> comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), 2, DataType.FLOAT32, ReduceOp.SUM));
                assertEquals(CollectiveException.Reason.MISMATCH, ex.reason(), ex.getMessage());
                assertEquals(1, ex.peer());
                assertTrue(ex.getMessage().contains("rank 1 sent an empty message where 8 bytes were expected: it " +
                    "is in a barrier, or it is closing its communicator"), ex.getMessage());
            }
        });
    }

    @Test
    void aRankThatAbortsAfterAnExceptionIsNamedAsAborting()
    {
        new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "aborting")))
            {
                comm.barrier();
                // rank 1 aborts only once rank 0 is out of the barrier (told through the store): an abort while
                // rank 0 still finishes the barrier would fail the barrier instead of the allReduce checked here
                if (1 == rank)
                {
                    store.get("aborting/rank0-past-barrier", Duration.ofSeconds(30));
                    comm.abort(); // what a catch block should do
                    return;
                }
                store.set("aborting/rank0-past-barrier", new byte[] {1});
                final float[] v = {1, 2};
                final CollectiveException ex = assertThrows(CollectiveException.class,
                    () -> comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), 2, DataType.FLOAT32, ReduceOp.SUM));
                assertEquals(1, ex.peer(), ex.getMessage());
                assertTrue(ex.getMessage().contains("rank 1 aborted the communicator"), ex.getMessage());
            }
        });
    }
}
