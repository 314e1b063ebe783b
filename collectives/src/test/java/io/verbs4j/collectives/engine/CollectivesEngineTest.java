// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rest of the family over fake links, for world sizes 1..8 and counts that do not divide evenly, plus
 * determinism, fusion, argument checks and failure handling.
 */
class CollectivesEngineTest
{
    private static final int[] COUNTS = {0, 1, 7, 131};

    private static int[] ints(final int rank, final int count, final int salt)
    {
        final int[] v = new int[count];
        for (int i = 0; i < count; i++)
        {
            v[i] = rank * 1000 + i * 7 + salt;
        }
        return v;
    }

    private static OpRequest req(final OpKind kind, final CommBuffer send, final CommBuffer recv, final long count,
        final DataType type, final ReduceOp op, final int root)
    {
        return new OpRequest().set(kind, send, recv, count, type, op, root);
    }

    @ParameterizedTest(name = "n={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void broadcastAndReduceWithEveryRootAndShape(final int size)
    {
        FakeCluster.runOk(size, 2, 64, (engine, rank, mesh) ->
        {
            for (final int count : COUNTS)
            {
                for (int root = 0; root < size; root++)
                {
                    for (final Algorithm shape : new Algorithm[]{Algorithm.RING, Algorithm.TREE})
                    {
                        final int[] buf = rank == root ? ints(root, count, 1) : new int[count];
                        final OpRequest b = req(OpKind.BROADCAST, CommBuffer.of(buf), CommBuffer.of(buf), count,
                            DataType.INT32, null, root);
                        b.algorithm = shape;
                        engine.execute(b);
                        assertArrayEquals(ints(root, count, 1), buf, "broadcast root " + root + " " + shape);

                        final int[] mine = ints(rank, count, 2);
                        final int[] out = new int[count];
                        final OpRequest r = req(OpKind.REDUCE, CommBuffer.of(mine), CommBuffer.of(out), count,
                            DataType.INT32, ReduceOp.SUM, root);
                        r.algorithm = shape;
                        engine.execute(r);
                        if (rank == root)
                        {
                            final int[] expected = new int[count];
                            for (int q = 0; q < size; q++)
                            {
                                final int[] v = ints(q, count, 2);
                                for (int i = 0; i < count; i++)
                                {
                                    expected[i] += v[i];
                                }
                            }
                            assertArrayEquals(expected, out, "reduce root " + root + " " + shape);
                        }
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "n={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void gatherFamily(final int size)
    {
        FakeCluster.runOk(size, 2, 64, (engine, rank, mesh) ->
        {
            for (final int count : COUNTS)
            {
                // allGather
                final int[] all = new int[count * size];
                engine.execute(req(OpKind.ALL_GATHER, CommBuffer.of(ints(rank, count, 3)), CommBuffer.of(all),
                    count, DataType.INT32, null, 0));
                for (int q = 0; q < size; q++)
                {
                    assertArrayEquals(ints(q, count, 3), Arrays.copyOfRange(all, q * count, (q + 1) * count));
                }

                // reduceScatter (AVG over int64 to cover the divide)
                final long[] blocks = new long[count * size];
                for (int i = 0; i < blocks.length; i++)
                {
                    blocks[i] = rank * 10L + i;
                }
                final long[] mineOut = new long[count];
                engine.execute(req(OpKind.REDUCE_SCATTER, CommBuffer.of(blocks), CommBuffer.of(mineOut), count,
                    DataType.INT64, ReduceOp.AVG, 0));
                for (int i = 0; i < count; i++)
                {
                    long sum = 0;
                    for (int q = 0; q < size; q++)
                    {
                        sum += q * 10L + rank * count + i;
                    }
                    assertEquals(sum / size, mineOut[i]);
                }

                // allToAll, out of place and in place
                final int[] send = new int[count * size];
                for (int q = 0; q < size; q++)
                {
                    for (int i = 0; i < count; i++)
                    {
                        send[q * count + i] = rank * 100_000 + q * 1000 + i;
                    }
                }
                final int[] recv = new int[count * size];
                engine.execute(req(OpKind.ALL_TO_ALL, CommBuffer.of(send), CommBuffer.of(recv), count,
                    DataType.INT32, null, 0));
                final CommBuffer inPlace = CommBuffer.of(send);
                engine.execute(req(OpKind.ALL_TO_ALL, inPlace, inPlace, count, DataType.INT32, null, 0));
                for (int q = 0; q < size; q++)
                {
                    for (int i = 0; i < count; i++)
                    {
                        assertEquals(q * 100_000 + rank * 1000 + i, recv[q * count + i]);
                        assertEquals(q * 100_000 + rank * 1000 + i, send[q * count + i]);
                    }
                }

                // gather and scatter with every root
                for (int root = 0; root < size; root++)
                {
                    final int[] gathered = rank == root ? new int[count * size] : null;
                    engine.execute(req(OpKind.GATHER, CommBuffer.of(ints(rank, count, 4)),
                        null == gathered ? null : CommBuffer.of(gathered), count, DataType.INT32, null, root));
                    if (rank == root)
                    {
                        for (int q = 0; q < size; q++)
                        {
                            assertArrayEquals(ints(q, count, 4), Arrays.copyOfRange(gathered, q * count,
                                (q + 1) * count));
                        }
                    }
                    final int[] mine = new int[count];
                    final int[] source = new int[count * size];
                    for (int q = 0; q < size; q++)
                    {
                        System.arraycopy(ints(q, count, 5 + root), 0, source, q * count, count);
                    }
                    engine.execute(req(OpKind.SCATTER, rank == root ? CommBuffer.of(source) : null,
                        CommBuffer.of(mine), count, DataType.INT32, null, root));
                    assertArrayEquals(ints(rank, count, 5 + root), mine);
                }
                engine.execute(req(OpKind.BARRIER, null, null, 0, null, null, 0));
            }
        });
    }

    @Test
    void pointToPointInARingAndSendRecvBothWays()
    {
        final int size = 4;
        final int count = 1000;
        FakeCluster.runOk(size, 2, 64, (engine, rank, mesh) ->
        {
            final int right = (rank + 1) % size;
            final int left = (rank + size - 1) % size;
            final int[] got = new int[count];
            if (0 == rank % 2)
            {
                engine.execute(req(OpKind.SEND, CommBuffer.of(ints(rank, count, 6)), null, count, DataType.INT32,
                    null, right));
                engine.execute(req(OpKind.RECV, null, CommBuffer.of(got), count, DataType.INT32, null, left));
            }
            else
            {
                engine.execute(req(OpKind.RECV, null, CommBuffer.of(got), count, DataType.INT32, null, left));
                engine.execute(req(OpKind.SEND, CommBuffer.of(ints(rank, count, 6)), null, count, DataType.INT32,
                    null, right));
            }
            assertArrayEquals(ints(left, count, 6), got);

            // both neighbours at once: larger than the credit window in both directions, no deadlock
            final int[] fromLeft = new int[count];
            final OpRequest r = req(OpKind.SEND_RECV, CommBuffer.of(ints(rank, count, 7)), CommBuffer.of(fromLeft),
                count, DataType.INT32, null, right);
            r.recvCount = count;
            r.peer2 = left;
            engine.execute(r);
            assertArrayEquals(ints(left, count, 7), fromLeft);
        });
    }

    @Test
    void fusedAllReduceMatchesSeparateCalls()
    {
        final int size = 3;
        FakeCluster.runOk(size, 2, 64, (engine, rank, mesh) ->
        {
            final float[] a = new float[17];
            final double[] b = new double[0];
            final ByteBuffer c = ByteBuffer.allocateDirect(4 * 101).order(ByteOrder.nativeOrder());
            Arrays.fill(a, rank + 1);
            for (int i = 0; i < 101; i++)
            {
                c.putFloat(4 * i, i * (rank + 1));
            }
            final OpRequest r = new OpRequest().set(OpKind.ALL_REDUCE_FUSED, null, null, 0, DataType.FLOAT32,
                ReduceOp.SUM, 0);
            r.fused = new CommBuffer[]{CommBuffer.of(a), CommBuffer.of(b), CommBuffer.of(c)};
            r.fusedCounts = new long[]{17, 0, 101};
            engine.execute(r);
            for (final float v : a)
            {
                assertEquals(6.0f, v);
            }
            for (int i = 0; i < 101; i++)
            {
                assertEquals(6.0f * i, c.getFloat(4 * i));
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(value = Algorithm.class, names = "AUTO", mode =
        org.junit.jupiter.params.provider.EnumSource.Mode.EXCLUDE)
    void resultsAreBitIdenticalAcrossRanksAndRuns(final Algorithm algorithm)
    {
        final int size = 5;
        final int count = 3001;
        final float[][][] results = new float[2][size][];
        for (int run = 0; run < 2; run++)
        {
            final int runIndex = run;
            FakeCluster.runOk(size, 2, 128, (engine, rank, mesh) ->
            {
                final Random random = new Random(rank * 31L + 7);
                final float[] v = new float[count];
                for (int i = 0; i < count; i++)
                {
                    v[i] = (float)random.nextGaussian() * (1 + i % 13) * 1e-3f;
                }
                final OpRequest r = req(OpKind.ALL_REDUCE, CommBuffer.of(v), CommBuffer.of(v), count,
                    DataType.FLOAT32, ReduceOp.SUM, 0);
                r.algorithm = algorithm;
                engine.execute(r);
                results[runIndex][rank] = v;
            });
        }
        for (int rank = 0; rank < size; rank++)
        {
            for (int i = 0; i < count; i++)
            {
                assertEquals(Float.floatToRawIntBits(results[0][0][i]), Float.floatToRawIntBits(results[0][rank][i]),
                    "rank " + rank + " element " + i);
                assertEquals(Float.floatToRawIntBits(results[0][rank][i]), Float.floatToRawIntBits(results[1][rank][i]),
                    "run-to-run, rank " + rank + " element " + i);
            }
        }
    }

    @Test
    void badArgumentsThrowBeforeAnythingIsSentAndTheEngineStaysUsable()
    {
        FakeCluster.runOk(2, 2, 64, (engine, rank, mesh) ->
        {
            final float[] small = new float[3];
            assertThrows(IllegalArgumentException.class, () -> engine.execute(req(OpKind.ALL_REDUCE,
                CommBuffer.of(small), CommBuffer.of(small), 4, DataType.FLOAT32, ReduceOp.SUM, 0)));
            assertThrows(IllegalArgumentException.class, () -> engine.execute(req(OpKind.ALL_REDUCE,
                CommBuffer.of(small), CommBuffer.of(small), 3, DataType.FLOAT32, ReduceOp.XOR, 0)));
            assertThrows(IllegalArgumentException.class, () -> engine.execute(req(OpKind.BROADCAST,
                CommBuffer.of(small), CommBuffer.of(small), 3, DataType.FLOAT32, null, 2)));
            assertThrows(IllegalArgumentException.class, () -> engine.execute(req(OpKind.SEND,
                CommBuffer.of(small), null, 3, DataType.FLOAT32, null, rank)));
            final int[] v = {rank + 1};
            engine.execute(req(OpKind.ALL_REDUCE, CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT32,
                ReduceOp.SUM, 0));
            assertEquals(3, v[0]);
        });
    }

    @Test
    void mismatchedCountsFailWithMismatch()
    {
        final Throwable[] failures = FakeCluster.run(2, 2, 64, 2_000, (engine, rank, mesh) ->
        {
            final int count = 0 == rank ? 10 : 12;
            final int[] v = new int[count];
            final OpRequest r = req(OpKind.ALL_REDUCE, CommBuffer.of(v), CommBuffer.of(v), count, DataType.INT32,
                ReduceOp.SUM, 0);
            r.algorithm = Algorithm.RECURSIVE_DOUBLING;
            engine.execute(r);
        });
        assertTrue(failures[0] instanceof CollectiveException || failures[1] instanceof CollectiveException);
        final CollectiveException ex = (CollectiveException)(null != failures[0] ? failures[0] : failures[1]);
        assertEquals(CollectiveException.Reason.MISMATCH, ex.reason(), ex.getMessage());
    }

    @Test
    void aHungRankTimesOutAndLaterCallsFailFast()
    {
        // Rank 2 never calls: it waits until the others have timed out (a fixed sleep could end first on a loaded
        // machine, and the others then saw a peer leave rather than hang).
        final CountDownLatch timedOut = new CountDownLatch(2);
        final Throwable[] failures = FakeCluster.run(3, 2, 64, 500, (engine, rank, mesh) ->
        {
            if (2 == rank)
            {
                timedOut.await(30, TimeUnit.SECONDS);
                return;
            }
            final int[] v = {1};
            final long start = System.nanoTime();
            final CollectiveException ex;
            try
            {
                ex = assertThrows(CollectiveException.class, () -> engine.execute(
                    req(OpKind.ALL_REDUCE, CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT32, ReduceOp.SUM, 0)));
            }
            finally
            {
                timedOut.countDown();
            }
            final long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms < 10_000, "took " + ms + " ms (timeout 500 ms)");
            assertTrue(CollectiveException.Reason.TIMEOUT == ex.reason() ||
                CollectiveException.Reason.PEER_FAILED == ex.reason(), ex.getMessage());
            assertTrue(ex.getMessage().contains("rank " + rank), ex.getMessage());
            final CollectiveException later = assertThrows(CollectiveException.class, () -> engine.execute(
                req(OpKind.BARRIER, null, null, 0, null, null, 0)));
            assertEquals(CollectiveException.Reason.FAILED_EARLIER, later.reason());
            assertNotNull(engine.failure());
        });
        assertEquals(null, failures[0]);
        assertEquals(null, failures[1]);
    }

    @Test
    void aDeadPeerFailsEveryRankWithItsRank()
    {
        final Throwable[] failures = FakeCluster.run(4, 2, 64, 10_000, (engine, rank, mesh) ->
        {
            if (3 == rank)
            {
                mesh.kill(3);
                return;
            }
            final float[] v = new float[5000];
            final long start = System.nanoTime();
            final CollectiveException ex = assertThrows(CollectiveException.class, () -> engine.execute(
                req(OpKind.ALL_REDUCE, CommBuffer.of(v), CommBuffer.of(v), v.length, DataType.FLOAT32, ReduceOp.SUM,
                    0)));
            assertTrue((System.nanoTime() - start) / 1_000_000 < 5_000);
            assertEquals(CollectiveException.Reason.PEER_FAILED, ex.reason(), ex.getMessage());
            assertTrue(ex.getMessage().contains("allReduce"), ex.getMessage());
        });
        for (int r = 0; r < 3; r++)
        {
            assertEquals(null, failures[r], "rank " + r);
        }
    }
}
