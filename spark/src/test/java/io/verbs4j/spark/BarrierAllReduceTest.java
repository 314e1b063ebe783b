// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Four barrier tasks of a local[4] Spark context build communicators through allGather and AllReduce. */
class BarrierAllReduceTest
{
    private static final int TASKS = 4;
    private static JavaSparkContext sc;

    @BeforeAll
    static void startSpark()
    {
        sc = LocalSpark.start("verbs4j-barrier-test", TASKS);
    }

    @AfterAll
    static void stopSpark()
    {
        if (null != sc)
        {
            sc.close();
        }
    }

    private static JavaRDD<Integer> partitions()
    {
        return sc.parallelize(IntStream.range(0, TASKS).boxed().collect(Collectors.toList()), TASKS);
    }

    /** What one task reports. */
    record Report(int rank, int size, String transports, int[] ints, double[] doubles, long[] region)
        implements java.io.Serializable
    {
    }

    @Test
    void everyTaskSeesTheExactSum()
    {
        final int small = 1000;
        final int large = 300_000;                      // 2.4 MB of doubles: several chunks per rank, ring/tree
        final List<Report> reports = new ArrayList<>(SparkBarrier.mapPartitions(partitions(), it ->
        {
            final int[] ints = new int[small];
            final double[] doubles = new double[large];
            try (Communicator comm = BarrierCommunicators.create())
            {
                final int r = comm.rank();
                for (int i = 0; i < small; i++)
                {
                    ints[i] = (r + 1) * i;
                }
                for (int i = 0; i < large; i++)
                {
                    doubles[i] = r * 0.25 + i;                // exact in float64: sums are exact too
                }
                comm.allReduce(CommBuffer.of(ints), CommBuffer.of(ints), small, DataType.INT32, ReduceOp.SUM);
                comm.allReduce(CommBuffer.of(doubles), CommBuffer.of(doubles), large, DataType.FLOAT64,
                    ReduceOp.SUM);

                // registered memory: no copy at all
                final long[] region = new long[64];
                try (MemoryRegion mr = comm.allocate(8L * region.length))
                {
                    for (int i = 0; i < region.length; i++)
                    {
                        mr.putLong(8L * i, (long)r << 32 | i);
                    }
                    comm.allReduce(CommBuffer.of(mr), CommBuffer.of(mr), region.length, DataType.INT64,
                        ReduceOp.MAX);
                    for (int i = 0; i < region.length; i++)
                    {
                        region[i] = mr.getLong(8L * i);
                    }
                }
                final StringBuilder transports = new StringBuilder();
                for (int q = 0; q < comm.size(); q++)
                {
                    transports.append(q == r ? "-" : comm.transport(q)).append(' ');
                }
                return List.of(new Report(r, comm.size(), transports.toString().trim(), ints, doubles, region))
                    .iterator();
            }
        }).collect());
        reports.sort(Comparator.comparingInt(Report::rank));

        assertEquals(TASKS, reports.size());
        final int[] expectedInts = new int[small];
        for (int i = 0; i < small; i++)
        {
            expectedInts[i] = (1 + 2 + 3 + 4) * i;
        }
        final double[] expectedDoubles = new double[large];
        for (int i = 0; i < large; i++)
        {
            expectedDoubles[i] = (0 + 1 + 2 + 3) * 0.25 + TASKS * (double)i;
        }
        final long[] expectedRegion = new long[64];
        for (int i = 0; i < expectedRegion.length; i++)
        {
            expectedRegion[i] = (long)(TASKS - 1) << 32 | i;
        }
        for (int r = 0; r < TASKS; r++)
        {
            final Report report = reports.get(r);
            assertEquals(r, report.rank());
            assertEquals(TASKS, report.size());
            assertArrayEquals(expectedInts, report.ints(), "ints of rank " + r);
            assertArrayEquals(expectedDoubles, report.doubles(), "doubles of rank " + r);
            assertArrayEquals(expectedRegion, report.region(), "region of rank " + r);
            // local mode: every task on this host, so shared memory for every pair
            assertTrue(report.transports().replace("-", "").trim().split(" +").length == TASKS - 1 &&
                report.transports().matches("[- ]*(shm[- ]*)+"), report.transports());
        }
    }

    @Test
    void twoCommunicatorsInOneStageThenAgainInTheNextStage()
    {
        for (int stage = 0; stage < 2; stage++)
        {
            final List<long[]> out = SparkBarrier.mapPartitions(partitions(), it ->
            {
                final long[] v = new long[2];
                try (Communicator a = BarrierCommunicators.create())
                {
                    v[0] = a.rank() + 1;
                    a.allReduce(CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT64, ReduceOp.SUM);
                }
                try (Communicator b = Communicator.create(BarrierCommunicators.context(BarrierCommunicators.current())
                    .name("second")))
                {
                    final long[] w = { b.rank() + 1 };
                    b.allReduce(CommBuffer.of(w), CommBuffer.of(w), 1, DataType.INT64, ReduceOp.PROD);
                    v[1] = w[0];
                }
                return List.of(v).iterator();
            }).collect();
            assertEquals(TASKS, out.size());
            for (final long[] v : out)
            {
                assertArrayEquals(new long[] { 10, 24 }, v);
            }
        }
    }

    @Test
    void clearErrorOutsideABarrierStage()
    {
        final IllegalStateException onDriver = assertThrows(IllegalStateException.class,
            BarrierCommunicators::create);
        assertTrue(onDriver.getMessage().contains("no Spark task is running"), onDriver.getMessage());

        final SparkException inPlainStage = assertThrows(SparkException.class, () -> partitions().mapPartitions(it ->
        {
            BarrierCommunicators.create().close();
            return it;
        }).collect());
        assertTrue(String.valueOf(inPlainStage.getMessage()).contains("is not a barrier stage"),
            inPlainStage.getMessage());
    }

    @Test
    void taskAddressesBecomeHostNames()
    {
        assertEquals("10.0.0.7", BarrierCommunicators.hostOf("10.0.0.7"));
        assertEquals("10.0.0.7", BarrierCommunicators.hostOf("10.0.0.7:38211"));
        assertEquals("fe80::1", BarrierCommunicators.hostOf("[fe80::1]:38211"));
        assertEquals("fe80::1", BarrierCommunicators.hostOf("fe80::1"));
        assertEquals("", BarrierCommunicators.hostOf(null));
    }
}
