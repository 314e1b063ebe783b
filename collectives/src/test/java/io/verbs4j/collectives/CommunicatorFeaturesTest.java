// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Non-blocking handles, fusion, split, several communicators at once, calibration, abort and rebuilding after a
 * failure, over shm with ranks as threads.
 */
class CommunicatorFeaturesTest
{
    private static CommunicatorContext context(final int rank, final int size,
        final io.verbs4j.collectives.rendezvous.RendezvousStore store, final String name)
    {
        return new CommunicatorContext().rank(rank).size(size).store(store).transport("shm").name(name)
            .chunkBytes(32 * 1024).calibrate(false);
    }

    @Test
    void nonBlockingCallsRunInIssueOrderAndOverlapWithTheCaller()
    {
        new ThreadCluster(4, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "async")))
            {
                final float[][] buckets = new float[8][20_000];
                final CollectiveHandle[] handles = new CollectiveHandle[buckets.length];
                for (int b = 0; b < buckets.length; b++)
                {
                    Arrays.fill(buckets[b], rank + b);
                    handles[b] = comm.async().allReduce(CommBuffer.of(buckets[b]), CommBuffer.of(buckets[b]),
                        buckets[b].length, DataType.FLOAT32, ReduceOp.SUM);
                }
                // overlap: the caller computes while the progress thread reduces
                double busy = 0;
                for (int i = 0; i < 100_000; i++)
                {
                    busy += Math.sqrt(i);
                }
                assertTrue(busy > 0);
                // a blocking call issued now runs after the pending ones
                final int[] token = {rank};
                comm.allReduce(CommBuffer.of(token), CommBuffer.of(token), 1, DataType.INT32, ReduceOp.SUM);
                assertEquals(6, token[0]);
                for (int b = 0; b < buckets.length; b++)
                {
                    assertTrue(handles[b].isDone(), "issue order: bucket " + b + " finished before the blocking call");
                    assertTrue(handles[b].await(Duration.ofSeconds(30)));
                    assertEquals(6 + 4 * b, buckets[b][0]);
                    assertEquals(6 + 4 * b, buckets[b][buckets[b].length - 1]);
                }
                assertThrows(IllegalStateException.class, () -> handles[0].await(Duration.ofSeconds(1)));

                final CollectiveHandle barrier = comm.async().barrier();
                assertTrue(barrier.await(Duration.ofSeconds(30)));
                final long[] all = new long[size];
                final CollectiveHandle gather = comm.async().allGather(CommBuffer.of(new long[]{rank * 10L}),
                    CommBuffer.of(all), 1, DataType.INT64);
                assertTrue(gather.await(Duration.ofSeconds(30)));
                assertArrayEquals(new long[]{0, 10, 20, 30}, all);
            }
        });
    }

    @Test
    void fusedBucketsOfMixedBufferKinds()
    {
        new ThreadCluster(3, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "fused")))
            {
                final MemoryRegion region = comm.allocate(4 * 1000);
                for (int i = 0; i < 1000; i++)
                {
                    region.putInt(4L * i, Float.floatToRawIntBits(rank));
                }
                final float[] heap = new float[333];
                Arrays.fill(heap, 2 * rank);
                final CommBuffer[] buffers = {CommBuffer.of(region), CommBuffer.of(heap)};
                comm.allReduceFused(buffers, new long[]{1000, 333}, DataType.FLOAT32, ReduceOp.SUM);
                assertEquals(3.0f, Float.intBitsToFloat(region.getInt(0)));
                assertEquals(3.0f, Float.intBitsToFloat(region.getInt(4 * 999)));
                assertEquals(6.0f, heap[332]);
                assertTrue(comm.async().allReduceFused(buffers, new long[]{1000, 333}, DataType.FLOAT32, ReduceOp.AVG)
                    .await(Duration.ofSeconds(30)));
                assertEquals(3.0f, Float.intBitsToFloat(region.getInt(0)));
                assertEquals(6.0f, heap[0]);
            }
        });
    }

    @Test
    void splitIntoEvenAndOddAndSeveralCommunicatorsAtOnce()
    {
        new ThreadCluster(5, Duration.ofSeconds(90)).run((rank, size, store) ->
        {
            try (Communicator world = Communicator.create(context(rank, size, store, "world"));
                 Communicator other = Communicator.create(context(rank, size, store, "other")))
            {
                final int colour = 4 == rank ? -1 : rank % 2;
                try (Communicator half = world.split(colour, -rank))
                {
                    if (4 == rank)
                    {
                        assertNull(half);
                    }
                    else
                    {
                        assertNotNull(half);
                        assertEquals(2, half.size());
                        // key = -rank: the higher world rank comes first
                        assertEquals(rank < 2 ? 1 : 0, half.rank());
                        final int[] v = {rank};
                        half.allReduce(CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT32, ReduceOp.SUM);
                        assertEquals(0 == colour ? 2 : 4, v[0]);
                    }
                    final int[] w = {1};
                    other.allReduce(CommBuffer.of(w), CommBuffer.of(w), 1, DataType.INT32, ReduceOp.SUM);
                    world.allReduce(CommBuffer.of(w), CommBuffer.of(w), 1, DataType.INT32, ReduceOp.SUM);
                    assertEquals(25, w[0]);
                }
            }
        });
    }

    @Test
    void calibrationGivesEveryRankTheSameModelAndTheSameChoices()
    {
        final String[] models = new String[3];
        final Algorithm[][] choices = new Algorithm[3][];
        new ThreadCluster(3, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "calibrated").calibrate(true)))
            {
                assertTrue(comm.costModel().measured());
                models[rank] = comm.costModel().toString();
                final long[] sizes = {8, 1 << 10, 1 << 16, 1 << 20, 1 << 26};
                choices[rank] = new Algorithm[sizes.length];
                for (int i = 0; i < sizes.length; i++)
                {
                    choices[rank][i] = comm.allReduceAlgorithm(sizes[i], Algorithm.AUTO);
                    assertFalse(Algorithm.AUTO == choices[rank][i]);
                }
                assertEquals(Algorithm.TREE, comm.allReduceAlgorithm(8, Algorithm.TREE));
            }
        });
        assertEquals(models[0], models[1]);
        assertEquals(models[0], models[2]);
        assertArrayEquals(choices[0], choices[1]);
        assertArrayEquals(choices[0], choices[2]);
    }

    @Test
    void abortFailsTheRunningCallAndPeersAndSurvivorsRebuild()
    {
        new ThreadCluster(3, Duration.ofSeconds(90)).run((rank, size, store) ->
        {
            final Communicator comm = Communicator.create(context(rank, size, store, "doomed")
                .opTimeout(Duration.ofSeconds(20)));
            final int[] v = {1};
            comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT32, ReduceOp.SUM);
            store.set("first-call-done-" + rank, new byte[0]);
            if (2 == rank)
            {
                // Only once the others have returned from the first call (else rank 2 could abort while one of
                // them still waits for a send of that call to complete, and the first call would fail there).
                store.waitFor(java.util.List.of("first-call-done-0", "first-call-done-1"), Duration.ofSeconds(60));
                // rank 2 aborts instead of taking part: the others fail fast (their links to it go to ERROR)
                comm.abort();
                assertTrue(comm.isFailed());
                final CollectiveException after = assertThrows(CollectiveException.class,
                    () -> comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT32, ReduceOp.SUM));
                assertEquals(CollectiveException.Reason.ABORTED, after.reason());
                return;
            }
            final long start = System.nanoTime();
            final CollectiveException ex = assertThrows(CollectiveException.class,
                () -> comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT32, ReduceOp.SUM));
            assertTrue((System.nanoTime() - start) / 1_000_000 < 10_000, ex.getMessage());
            assertEquals(CollectiveException.Reason.PEER_FAILED, ex.reason(), ex.getMessage());
            assertEquals(2, ex.peer(), ex.getMessage());
            comm.close();
            // the survivors build a new communicator under a new name
            try (Communicator rebuilt = Communicator.create(context(rank, 2, store, "rebuilt")))
            {
                final int[] w = {rank + 1};
                rebuilt.allReduce(CommBuffer.of(w), CommBuffer.of(w), 1, DataType.INT32, ReduceOp.SUM);
                assertEquals(3, w[0]);
            }
        });
    }

    @Test
    void abortFromAnotherThreadStopsAWaitingCall()
    {
        // Rank 1 stays (without calling) until rank 0's call was aborted: had it left first, rank 0 would see a
        // peer gone rather than its abort.
        final CountDownLatch aborted = new CountDownLatch(1);
        new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "watchdog")
                .opTimeout(Duration.ofSeconds(30))))
            {
                if (1 == rank)
                {
                    aborted.await(30, TimeUnit.SECONDS);    // never calls
                    return;
                }
                final Thread watchdog = new Thread(() ->
                {
                    try
                    {
                        Thread.sleep(300);
                    }
                    catch (final InterruptedException ignore)
                    {
                        return;
                    }
                    comm.abort();
                });
                watchdog.start();
                final int[] v = {1};
                final CollectiveException ex;
                try
                {
                    ex = assertThrows(CollectiveException.class,
                        () -> comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT32, ReduceOp.SUM));
                }
                finally
                {
                    aborted.countDown();
                }
                assertEquals(CollectiveException.Reason.ABORTED, ex.reason(), ex.getMessage());
                watchdog.join();
            }
        });
    }
}
