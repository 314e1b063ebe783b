// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Steady state allocates nothing: after warm-up, a few hundred blocking calls (registered and heap buffers, small and
 * pipelined sizes, several collectives) and non-blocking calls allocate 0 bytes on the calling thread and on the
 * communicator's progress thread ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}).
 * <p>
 * The JVM itself allocates a few hundred bytes now and then on a thread that parks (seen with Agrona's
 * {@code BackoffIdleStrategy} around JIT transitions, never in a loop of plain {@code LockSupport.parkNanos}), so the
 * test takes the smallest of several rounds: a per-call allocation would show in every round. The shm provider's
 * liveness check ({@code ProcessHandle.info()}, every peer timeout / 8, run by whichever thread polls) allocates too;
 * a long peer timeout keeps it out of the measured rounds.
 */
class AllocationTest
{
    private static final int CALLS = 300;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void steadyStateAllocatesNothing(final String transport)
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long[][] allocated = new long[3][2];
        new ThreadCluster(3, Duration.ofSeconds(180)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size)
                .store(store).transport(transport).name("alloc").chunkBytes(16 * 1024).calibrate(false)
                .peerTimeout(Duration.ofSeconds(120))))
            {
                final MemoryRegion region = comm.allocate(1 << 20);
                final CommBuffer small = CommBuffer.of(region, 0, 8);
                final CommBuffer large = CommBuffer.of(region, 0, 200_000);
                final float[] heap = new float[5000];
                final CommBuffer heapBuffer = CommBuffer.of(heap);
                final CommBuffer[] fused = {CommBuffer.of(region, 0, 4000), heapBuffer};
                final long[] fusedCounts = {1000, 5000};
                final Duration wait = Duration.ofSeconds(60);

                allocated[rank][0] = Long.MAX_VALUE;
                final long[] worst = new long[1];
                for (int round = 0; round < 6 && (0 == round || 0 != worst[0]); round++)
                {
                    final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
                    for (int i = 0; i < CALLS; i++)
                    {
                        comm.allReduce(small, small, 2, DataType.FLOAT32, ReduceOp.SUM);
                        if (0 == i % 10)
                        {
                            comm.allReduce(large, large, 50_000, DataType.FLOAT32, ReduceOp.SUM, Algorithm.RING);
                            comm.allReduce(large, large, 50_000, DataType.FLOAT32, ReduceOp.AVG, Algorithm.TREE);
                            comm.allReduce(heapBuffer, heapBuffer, 5000, DataType.FLOAT32, ReduceOp.MAX);
                            comm.allReduceFused(fused, fusedCounts, DataType.FLOAT32, ReduceOp.SUM);
                            comm.broadcast(large, 50_000, DataType.INT32, i % size);
                            comm.allGather(small, large, 2, DataType.FLOAT32);
                            comm.barrier();
                            comm.async().allReduce(large, large, 50_000, DataType.FLOAT32, ReduceOp.SUM).await(wait);
                        }
                    }
                    final long bytes = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
                    allocated[rank][0] = Math.min(allocated[rank][0], bytes);
                    // every rank must run the same number of rounds: agree on whether anyone saw an allocation
                    worst[0] = bytes;
                    comm.allReduce(CommBuffer.of(worst), CommBuffer.of(worst), 1, DataType.INT64, ReduceOp.MAX);
                }
                long progressBefore = -1;
                long progressId = -1;
                for (final Thread t : Thread.getAllStackTraces().keySet())
                {
                    if (t.getName().equals("verbs4j-collectives-r" + rank + "-alloc"))
                    {
                        progressId = t.getId();
                    }
                }
                allocated[rank][1] = Long.MAX_VALUE;
                for (int round = 0; round < 6 && (0 == round || 0 != worst[0]); round++)
                {
                    progressBefore = threads.getThreadAllocatedBytes(progressId);
                    for (int i = 0; i < CALLS; i++)
                    {
                        comm.async().allReduce(small, small, 2, DataType.FLOAT32, ReduceOp.SUM).await(wait);
                        comm.async().broadcast(large, 20_000, DataType.FLOAT32, 0).await(wait);
                    }
                    TimeUnit.MILLISECONDS.sleep(10);
                    final long bytes = threads.getThreadAllocatedBytes(progressId) - progressBefore;
                    allocated[rank][1] = Math.min(allocated[rank][1], bytes);
                    worst[0] = bytes;
                    comm.allReduce(CommBuffer.of(worst), CommBuffer.of(worst), 1, DataType.INT64, ReduceOp.MAX);
                }
            }
        });
        for (int rank = 0; rank < 3; rank++)
        {
            assertEquals(0, allocated[rank][0], transport + " rank " + rank + " caller thread bytes");
            assertEquals(0, allocated[rank][1], transport + " rank " + rank + " progress thread bytes");
        }
    }
}
