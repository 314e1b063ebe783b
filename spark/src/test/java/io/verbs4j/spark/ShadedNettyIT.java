// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.spark.example.LogisticRegressionExample;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs on the shaded jar (failsafe, after package) next to Spark's own Netty at Spark's version: four barrier tasks
 * force the tcp transport, whose relocated Netty (with its renamed epoll library) must work while Spark's Netty
 * runs Spark's RPC in the same JVM.
 */
class ShadedNettyIT
{
    private static final int TASKS = 4;

    /** What one task reports. */
    record Report(int rank, String transports, String shadedEpoll, String shadedSource, double[] sum)
        implements java.io.Serializable
    {
    }

    @Test
    void tcpThroughRelocatedNettyNextToSparksNetty() throws Exception
    {
        // the class path is the real-cluster one: Spark's Netty unrelocated, ours only under the shaded name
        final String sparkNetty = System.getProperty("verbs4j.it.sparkNettyVersion");
        final Map<String, io.netty.util.Version> versions = io.netty.util.Version.identify();
        assertEquals(sparkNetty, versions.get("netty-common").artifactVersion(), versions.toString());
        final String jar = Communicator.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertTrue(jar.endsWith(".jar") && jar.contains("verbs4j-spark"), jar);
        assertFalse(io.netty.channel.Channel.class.getProtectionDomain().getCodeSource().getLocation().getPath()
            .contains("verbs4j-spark"));

        try (JavaSparkContext sc = LocalSpark.start("verbs4j-shaded-it", TASKS))
        {
            final List<Integer> ids = IntStream.range(0, TASKS).boxed().collect(Collectors.toList());
            final List<Report> reports = new ArrayList<>(SparkBarrier.mapPartitions(sc.parallelize(ids, TASKS), it ->
            {
                final double[] v = new double[100_000];
                try (Communicator comm = Communicator.create(
                    BarrierCommunicators.context(BarrierCommunicators.current()).transport("tcp")))
                {
                    final int r = comm.rank();
                    for (int i = 0; i < v.length; i++)
                    {
                        v[i] = r + i * 0.5;
                    }
                    comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), v.length, DataType.FLOAT64, ReduceOp.SUM);
                    final StringBuilder transports = new StringBuilder();
                    for (int q = 0; q < comm.size(); q++)
                    {
                        if (q != r)
                        {
                            transports.append(comm.transport(q)).append(' ');
                        }
                    }
                    final Class<?> epoll = Class.forName("io.verbs4j.shaded.io.netty.channel.epoll.Epoll");
                    final Object cause = epoll.getMethod("unavailabilityCause").invoke(null);
                    final String available = null == cause ? "available" : String.valueOf(cause);
                    return List.of(new Report(r, transports.toString().trim(), available,
                        epoll.getProtectionDomain().getCodeSource().getLocation().getPath(), v)).iterator();
                }
            }).collect());
            reports.sort(Comparator.comparingInt(Report::rank));

            final double[] expected = new double[100_000];
            for (int i = 0; i < expected.length; i++)
            {
                expected[i] = (0 + 1 + 2 + 3) + TASKS * (i * 0.5);
            }
            assertEquals(TASKS, reports.size());
            for (final Report report : reports)
            {
                assertEquals("tcp tcp tcp", report.transports());
                assertArrayEquals(expected, report.sum(), "rank " + report.rank());
                assertTrue(report.shadedSource().contains("verbs4j-spark"), report.shadedSource());
                assertEquals("available", report.shadedEpoll(), "relocated epoll native library did not load");
            }

            // and the README's example job on the shaded jar, default transports (shm here)
            final List<LogisticRegressionExample.PartitionResult> results =
                LogisticRegressionExample.train(sc, TASKS, 2000, 20);
            assertTrue(LogisticRegressionExample.identical(results));
        }
    }
}
