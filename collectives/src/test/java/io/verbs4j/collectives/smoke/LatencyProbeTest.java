// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.smoke;

import java.time.Duration;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("slow")
class LatencyProbeTest
{
    @Test
    void probe()
    {
        for (final String transport : new String[]{"shm", "tcp"})
        {
            for (final int ranks : new int[]{2, 4})
            {
                new ThreadCluster(ranks, Duration.ofSeconds(120)).run((rank, size, store) ->
                {
                    try (Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size)
                        .store(store).transport(transport).name("probe")))
                    {
                        final MemoryRegion region = comm.allocate(1 << 22);
                        final CommBuffer buf = CommBuffer.of(region);
                        for (final long bytes : new long[]{8, 1 << 20})
                        {
                          for (final Algorithm a : Algorithm.values())
                          {
                            final int iters = bytes == 8 ? 20000 : 200;
                            for (int i = 0; i < iters; i++)
                            {
                                comm.allReduce(buf, buf, bytes / 4, DataType.FLOAT32, ReduceOp.SUM, a);
                            }
                            final long start = System.nanoTime();
                            for (int i = 0; i < iters; i++)
                            {
                                comm.allReduce(buf, buf, bytes / 4, DataType.FLOAT32, ReduceOp.SUM, a);
                            }
                            final double us = (System.nanoTime() - start) / 1000.0 / iters;
                            if (0 == rank)
                            {
                                System.out.printf("%s n=%d %d B %s: %.2f us (%s) busbw %.2f GB/s%n", transport, size,
                                    bytes, a, us, comm.allReduceAlgorithm(bytes, a),
                                    bytes / us / 1000.0 * 2 * (size - 1) / size);
                            }
                          }
                        }
                        if (0 == rank)
                        {
                            System.out.println(comm.costModel());
                        }
                    }
                });
            }
        }
    }
}
