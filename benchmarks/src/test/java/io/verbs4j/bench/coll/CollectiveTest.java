// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** nccl-tests' accounting per collective: counts, the size column, busbw factors; and the names accepted. */
class CollectiveTest
{
    @Test
    void shouldUseNcclTestsBusBandwidthFactors()
    {
        assertEquals(1.5, Collective.ALLREDUCE.busBwFactor(4), 1e-12);
        assertEquals(1.0, Collective.ALLREDUCE.busBwFactor(2), 1e-12);
        assertEquals(0.75, Collective.ALLGATHER.busBwFactor(4), 1e-12);
        assertEquals(0.75, Collective.REDUCESCATTER.busBwFactor(4), 1e-12);
        assertEquals(0.75, Collective.ALLTOALL.busBwFactor(4), 1e-12);
        assertEquals(0.75, Collective.GATHER.busBwFactor(4), 1e-12);
        assertEquals(0.75, Collective.SCATTER.busBwFactor(4), 1e-12);
        assertEquals(1.0, Collective.BROADCAST.busBwFactor(4), 1e-12);
        assertEquals(1.0, Collective.REDUCE.busBwFactor(4), 1e-12);
        assertEquals(1.0, Collective.SENDRECV.busBwFactor(4), 1e-12);
        assertEquals(0.0, Collective.BARRIER.busBwFactor(4), 1e-12);
    }

    @Test
    void shouldCountPerRankForTheGatherFamilyAndRoundDown()
    {
        assertEquals(262144, Collective.ALLREDUCE.count(1 << 20, 4, 3));
        assertEquals(1 << 20, Collective.ALLREDUCE.sizeBytes(262144, 4, 3));
        assertEquals(87381, Collective.ALLGATHER.count(1 << 20, 4, 3));
        assertEquals(87381L * 3 * 4, Collective.ALLGATHER.sizeBytes(87381, 4, 3));
        assertEquals(0, Collective.ALLTOALL.count(8, 4, 4));
        assertEquals(0, Collective.BARRIER.count(1024, 4, 2));
    }

    @Test
    void shouldAcceptNcclTestsNames()
    {
        assertEquals(Collective.ALLREDUCE, Collective.parse("all_reduce_perf"));
        assertEquals(Collective.REDUCESCATTER, Collective.parse("reduce-scatter"));
        assertEquals(Collective.ALLTOALL, Collective.parse("AllToAll"));
        assertEquals("all_gather_perf", Collective.ALLGATHER.ncclTestsBinary());
        assertThrows(IllegalArgumentException.class, () -> Collective.parse("allreduceX"));
    }
}
