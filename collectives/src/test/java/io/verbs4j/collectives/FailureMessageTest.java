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
    void aRankThatClosesAfterAnExceptionIsReportedAsLeftDuringTheCallOverFlagLinks()
    {
        closeWhileTheOtherRankIsInACall("left-flag", true, 2);
    }

    @Test
    void aRankThatClosesAfterAnExceptionIsReportedAsLeftDuringTheCallOverVerbsLinks()
    {
        closeWhileTheOtherRankIsInACall("left-verbs", false, 2);
    }

    @Test
    void aRankThatClosesWhileTheOtherIsInALargeAllReduceIsReportedAsLeft()
    {
        closeWhileTheOtherRankIsInACall("left-large", false, 1 << 20);
    }

    /**
     * The same host, flag links on, and an AllReduce above the flag-link size: it runs over the verbs links, where
     * the leaving rank's close announces itself before its final barrier runs over the flag links (before that, rank
     * 0 waited for its operation timeout).
     */
    @Test
    void aRankThatClosesWhileTheOtherIsInAnAllReduceAboveTheFlagLinkSizeIsReportedAsLeft()
    {
        closeWhileTheOtherRankIsInACall("left-large-flag", true, 1 << 20);
    }

    @Test
    void aRankThatClosesWhileTheOtherIsInABarrierIsReportedAsLeftDuringTheBarrier()
    {
        new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "left-barrier")))
            {
                comm.barrier();
                if (1 == rank)
                {
                    return; // closes: its final barrier tells rank 0 it leaves
                }
                final CollectiveException ex = assertThrows(CollectiveException.class, comm::barrier);
                assertEquals(CollectiveException.Reason.PEER_LEFT, ex.reason(), ex.getMessage());
                assertTrue(ex.getMessage().matches("(?s).*: barrier #\\d+ .* failed: rank 1 left during barrier " +
                    "#\\d+: it closed its communicator while this rank was in that call.*"), ex.getMessage());
            }
        });
    }

    /**
     * Rank 1's code throws inside try-with-resources: close() runs while rank 0 is in an AllReduce of
     * {@code count} floats; rank 0 is told that rank 1 left during it.
     */
    private static void closeWhileTheOtherRankIsInACall(final String name, final boolean flagLinks, final int count)
    {
        new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            final CommunicatorContext context = context(rank, size, store, name);
            if (!flagLinks)
            {
                context.flagLinks(false, CollectivesConfiguration.flagMaxBytes(),
                    CollectivesConfiguration.flagSlotBytes(), CollectivesConfiguration.flagSlots());
            }
            if (1 == rank)
            {
                assertThrows(IllegalStateException.class, () ->
                {
                    try (Communicator comm = Communicator.create(context))
                    {
                        comm.barrier();
                        throw new IllegalStateException("a bug in rank 1's code");
                    }
                });
                return;
            }
            try (Communicator comm = Communicator.create(context))
            {
                comm.barrier();
                final float[] v = new float[count];
                final CollectiveException ex = assertThrows(CollectiveException.class,
                    () -> comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), count, DataType.FLOAT32, ReduceOp.SUM));
                assertEquals(CollectiveException.Reason.PEER_LEFT, ex.reason(), ex.getMessage());
                assertEquals(1, ex.peer());
                assertTrue(ex.getMessage().matches("(?s).*: allReduce #(\\d+) .* failed: rank 1 left during " +
                    "allReduce #\\1: it closed its communicator while this rank was in that call.*"), ex.getMessage());
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
