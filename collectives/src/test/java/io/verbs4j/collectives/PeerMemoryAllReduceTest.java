// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;
import java.util.Random;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.algorithm.PeerMemoryAllReduce;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The single-copy AllReduce of ranks on one host ({@link PeerMemoryAllReduce}): every rank gets the bits of the
 * rank-order fold, with uneven slices; it runs only for out-of-place AUTO calls at or above the threshold whose
 * buffers every rank allocated from the communicator, and hands back to the usual algorithm (every rank alike, the
 * same result on every rank) when one rank's buffer cannot be mapped or the call is in place; a region allocated
 * after another closed is mapped anew.
 */
class PeerMemoryAllReduceTest
{
    /** Odd, so the slices differ in length; 1.2 MB of float32, above the 256 KiB default threshold and one shot. */
    private static final int COUNT = 300_007;

    @ParameterizedTest(name = "{0} ranks, {1} floats")
    @CsvSource({"2, 100003", "2, 300007", "3, 300007"})
    void shouldGiveEveryRankTheBitsOfTheRankOrderFoldAndHandInPlaceCallsBack(final int ranks, final int count)
    {
        final float[][] contributions = new float[ranks][];
        for (int r = 0; r < ranks; r++)
        {
            contributions[r] = randomFloats(r, count);
        }
        final int[] expected = foldInRankOrder(contributions);
        final int[][] outOfPlace = new int[ranks][];
        final int[][] inPlace = new int[ranks][];
        new ThreadCluster(ranks, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "pm-fold")))
            {
                final PeerMemoryAllReduce pm = comm.engine().peerMemory();
                assertNotNull(pm, "every peer shares the host: the single-copy AllReduce is on");
                final MemoryRegion send = comm.allocate(4L * count);
                final MemoryRegion recv = comm.allocate(4L * count);
                put(send, contributions[rank]);
                comm.allReduce(CommBuffer.of(send), CommBuffer.of(recv), count, DataType.FLOAT32, ReduceOp.SUM);
                outOfPlace[rank] = bits(recv, count);
                put(recv, contributions[rank]);
                comm.allReduce(CommBuffer.of(recv), CommBuffer.of(recv), count, DataType.FLOAT32, ReduceOp.SUM);
                inPlace[rank] = bits(recv, count);
                assertEquals(1, pm.calls(), "the out-of-place call ran single-copy");
                // Two ranks up to 1 MiB: one shot (each rank reduces everything); else reduce-scatter and gather.
                assertEquals(2 == ranks && 4L * count <= 1 << 20 ? 1 : 0, pm.oneShotCalls());
                assertEquals(1, pm.fallbacks(), "the in-place call ran the usual algorithm");
                send.close();
                recv.close();
            }
        });
        for (int r = 0; r < ranks; r++)
        {
            assertArrayEquals(expected, outOfPlace[r], "rank " + r + ", out of place");
            // In place runs the ring, whose order at three ranks differs: the same bits on every rank, and at two
            // ranks (a + b == b + a exactly) the fold's bits.
            assertArrayEquals(2 == ranks ? expected : inPlace[0], inPlace[r], "rank " + r + ", in place");
        }
    }

    @Test
    void shouldAverageAndTakeTheMaximumOfIntegers()
    {
        final int count = 100_003;
        new ThreadCluster(3, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "pm-int")))
            {
                final MemoryRegion send = comm.allocate(4L * count);
                final MemoryRegion buffer = comm.allocate(4L * count);
                for (int i = 0; i < count; i++)
                {
                    send.putInt(4L * i, i * (rank + 1) - 7 * rank);
                }
                comm.allReduce(CommBuffer.of(send), CommBuffer.of(buffer), count, DataType.INT32, ReduceOp.AVG);
                for (int i = 0; i < count; i += 997)
                {
                    assertEquals((6 * i - 21) / 3, buffer.getInt(4L * i), "AVG element " + i);
                }
                for (int i = 0; i < count; i++)
                {
                    send.putInt(4L * i, (i % 3 == rank ? 1000 : 0) + i);
                }
                comm.allReduce(CommBuffer.of(send), CommBuffer.of(buffer), count, DataType.INT32, ReduceOp.MAX);
                for (int i = 0; i < count; i += 991)
                {
                    assertEquals(1000 + i, buffer.getInt(4L * i), "MAX element " + i);
                }
                assertEquals(2, comm.engine().peerMemory().calls());
                send.close();
                buffer.close();
            }
        });
    }

    @Test
    void shouldHandBackToTheUsualAlgorithmWhenOneRankBufferCannotBeMapped()
    {
        new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "pm-heap")))
            {
                final float[] values = new float[COUNT];
                java.util.Arrays.fill(values, rank + 1.5f);
                final MemoryRegion region = comm.allocate(4L * COUNT);
                put(region, values);
                // Rank 0 passes a heap array, in place (staged, not mappable by the peer).
                final MemoryRegion send = comm.allocate(4L * COUNT);
                put(send, values);
                // Out of place on both ranks; rank 1 allocated both buffers.
                comm.allReduce(0 == rank ? CommBuffer.of(values) : CommBuffer.of(send),
                    0 == rank ? CommBuffer.of(values) : CommBuffer.of(region), COUNT, DataType.FLOAT32, ReduceOp.SUM);
                final PeerMemoryAllReduce pm = comm.engine().peerMemory();
                assertEquals(0, pm.calls());
                assertEquals(1, pm.fallbacks(), "both ranks handed back alike");
                for (int i = 0; i < COUNT; i += 4999)
                {
                    final float got = 0 == rank ? values[i] : Float.intBitsToFloat(region.getInt(4L * i));
                    assertEquals(4f, got, "element " + i);
                }
                send.close();
                region.close();
            }
        });
    }

    @Test
    void shouldLeaveSmallCallsAndPinnedAlgorithmsToTheUsualAlgorithms()
    {
        new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "pm-pinned")))
            {
                final MemoryRegion send = comm.allocate(4L * COUNT);
                final MemoryRegion region = comm.allocate(4L * COUNT);
                comm.allReduce(CommBuffer.of(send), CommBuffer.of(region), COUNT, DataType.FLOAT32, ReduceOp.SUM,
                    Algorithm.RING);
                comm.allReduce(CommBuffer.of(send), CommBuffer.of(region), 1024, DataType.FLOAT32, ReduceOp.SUM);
                final PeerMemoryAllReduce pm = comm.engine().peerMemory();
                assertEquals(0, pm.calls() + pm.fallbacks(), "a pinned algorithm and a 4 KiB call never describe");
                send.close();
                region.close();
            }
        });
    }

    @Test
    void shouldMapARegionAllocatedAfterTheLastOneClosed()
    {
        new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, size, store, "pm-remap")))
            {
                for (int round = 0; round < 3; round++)
                {
                    final MemoryRegion send = comm.allocate(8L * COUNT);
                    final MemoryRegion region = comm.allocate(8L * COUNT);
                    for (int i = 0; i < COUNT; i += 1000)
                    {
                        send.putLong(8L * i, (long)round * (rank + 1) + i);
                    }
                    comm.allReduce(CommBuffer.of(send), CommBuffer.of(region), COUNT, DataType.INT64,
                        ReduceOp.SUM);
                    for (int i = 0; i < COUNT; i += 1000)
                    {
                        assertEquals(3L * round + 2L * i, region.getLong(8L * i), "round " + round + ", element " + i);
                    }
                    send.close();
                    region.close();
                }
                assertEquals(3, comm.engine().peerMemory().calls());
            }
        });
    }

    private static CommunicatorContext context(final int rank, final int size,
        final io.verbs4j.collectives.rendezvous.RendezvousStore store, final String name)
    {
        return new CommunicatorContext().rank(rank).size(size).store(store).transport("shm").name(name)
            .calibrate(false);
    }

    private static float[] randomFloats(final int seed, final int count)
    {
        final Random random = new Random(seed);
        final float[] values = new float[count];
        for (int i = 0; i < count; i++)
        {
            // Magnitudes spread over several binades: a different summation order would change low bits.
            values[i] = (random.nextFloat() - 0.5f) * (1 << random.nextInt(12));
        }
        return values;
    }

    private static int[] foldInRankOrder(final float[][] contributions)
    {
        final int[] bits = new int[contributions[0].length];
        for (int i = 0; i < bits.length; i++)
        {
            float sum = contributions[0][i] + contributions[1][i];
            for (int r = 2; r < contributions.length; r++)
            {
                sum += contributions[r][i];
            }
            bits[i] = Float.floatToRawIntBits(sum);
        }
        return bits;
    }

    private static void put(final MemoryRegion region, final float[] values)
    {
        final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        region.wrap(view, 0, 4 * values.length);
        for (int i = 0; i < values.length; i++)
        {
            view.putFloat(4 * i, values[i]);
        }
    }

    private static int[] bits(final MemoryRegion region, final int count)
    {
        final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        region.wrap(view, 0, 4 * count);
        final int[] bits = new int[count];
        for (int i = 0; i < count; i++)
        {
            bits[i] = view.getInt(4 * i);
        }
        return bits;
    }
}
