// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Communicators over the real providers, ranks as threads ({@link ThreadCluster}, in-memory store): transport
 * {shm, tcp} × world size {1, 2, 3, 4, 5, 8}; for each, AllReduce over counts {0, 1, 7, 1009, 100003} × every
 * algorithm, rotating type/op pairs and buffer kinds (registered region, direct, heap), checked for exact values and
 * bit-identity across ranks; then one pass over the rest of the family.
 */
class CommunicatorThreadTest
{
    private static final long[] COUNTS = {0, 1, 7, 1009, 100_003};
    private static final Algorithm[] ALGORITHMS = {Algorithm.RING, Algorithm.TREE, Algorithm.RECURSIVE_DOUBLING,
        Algorithm.HALVING_DOUBLING, Algorithm.AUTO};

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final String transport : new String[]{"shm", "tcp"})
        {
            for (final int size : new int[]{1, 2, 3, 4, 5, 8})
            {
                cases.add(Arguments.of(transport, size));
            }
        }
        return cases.stream();
    }

    static CommunicatorContext context(final int rank, final int size, final io.verbs4j.collectives.rendezvous
        .RendezvousStore store, final String transport, final String name)
    {
        return new CommunicatorContext().rank(rank).size(size).store(store).transport(transport).name(name)
            .chunkBytes(64 * 1024).calibrate(false).opTimeout(Duration.ofSeconds(60));
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("cases")
    void allReduceGrid(final String transport, final int size)
    {
        final byte[][][] results = new byte[size][][];
        new ThreadCluster(size, Duration.ofSeconds(240)).run((rank, n, store) ->
        {
            try (Communicator comm = Communicator.create(context(rank, n, store, transport, "grid")))
            {
                assertEquals(rank, comm.rank());
                assertEquals(n, comm.size());
                final MemoryRegion region = comm.allocate(8 * COUNTS[COUNTS.length - 1]);
                final List<byte[]> mine = new ArrayList<>();
                int k = 0;
                for (final long count : COUNTS)
                {
                    for (final Algorithm algorithm : ALGORITHMS)
                    {
                        final Object[] typeOp = Cases.TYPE_OPS[k % Cases.TYPE_OPS.length];
                        final DataType type = (DataType)typeOp[0];
                        final ReduceOp op = (ReduceOp)typeOp[1];
                        final byte[] in = Cases.input(type, op, rank, count);
                        final byte[] out;
                        switch ((k + rank) % 3)
                        {
                            case 0:
                            {
                                region.putBytes(0, in, 0, in.length);
                                final CommBuffer b = CommBuffer.of(region, 0, in.length);
                                comm.allReduce(b, b, count, type, op, algorithm);
                                out = new byte[in.length];
                                region.getBytes(0, out, 0, out.length);
                                break;
                            }
                            case 1:
                            {
                                final ByteBuffer direct = ByteBuffer.allocateDirect(Math.max(1, in.length));
                                final ByteBuffer result = ByteBuffer.allocateDirect(Math.max(1, in.length));
                                direct.put(in).flip();
                                comm.allReduce(CommBuffer.of(direct), CommBuffer.of(result), count, type, op,
                                    algorithm);
                                out = new byte[in.length];
                                result.get(out);
                                break;
                            }
                            default:
                            {
                                out = new byte[in.length];
                                comm.allReduce(CommBuffer.of(in), CommBuffer.of(out), count, type, op, algorithm);
                                break;
                            }
                        }
                        assertArrayEquals(Cases.allReduce(type, op, n, count), out,
                            transport + " n=" + n + " count=" + count + " " + algorithm + " " + type + " " + op);
                        mine.add(out);
                        k++;
                    }
                }
                results[rank] = mine.toArray(new byte[0][]);
                otherCollectives(comm, rank, n);
            }
        });
        for (int rank = 1; rank < size; rank++)
        {
            for (int i = 0; i < results[0].length; i++)
            {
                assertArrayEquals(results[0][i], results[rank][i], "bit-identity, call " + i + ", rank " + rank);
            }
        }
    }

    private static void otherCollectives(final Communicator comm, final int rank, final int n)
    {
        final int count = 1001;
        final long[] data = new long[count];
        for (int root = 0; root < n; root++)
        {
            Arrays.fill(data, rank == root ? root + 100 : -1);
            comm.broadcast(CommBuffer.of(data), count, DataType.INT64, root);
            for (final long v : data)
            {
                assertEquals(root + 100, v);
            }
        }
        final double[] mine = new double[count];
        Arrays.fill(mine, rank + 1);
        final double[] sum = new double[count];
        comm.reduce(CommBuffer.of(mine), CommBuffer.of(sum), count, DataType.FLOAT64, ReduceOp.SUM, n - 1);
        if (rank == n - 1)
        {
            for (final double v : sum)
            {
                assertEquals(n * (n + 1) / 2.0, v);
            }
        }
        final int[] gathered = new int[count * n];
        final int[] block = new int[count];
        Arrays.fill(block, rank);
        comm.allGather(CommBuffer.of(block), CommBuffer.of(gathered), count, DataType.INT32);
        for (int i = 0; i < gathered.length; i++)
        {
            assertEquals(i / count, gathered[i]);
        }
        final int[] scattered = new int[count];
        comm.reduceScatter(CommBuffer.of(gathered), CommBuffer.of(scattered), count, DataType.INT32, ReduceOp.SUM);
        for (final int v : scattered)
        {
            assertEquals(rank * n, v);
        }
        final int[] a2a = new int[count * n];
        for (int i = 0; i < a2a.length; i++)
        {
            a2a[i] = rank * 1000 + i / count;
        }
        final int[] a2aOut = new int[count * n];
        comm.allToAll(CommBuffer.of(a2a), CommBuffer.of(a2aOut), count, DataType.INT32);
        for (int i = 0; i < a2aOut.length; i++)
        {
            assertEquals((i / count) * 1000 + rank, a2aOut[i]);
        }
        comm.barrier();
        if (n > 1)
        {
            final int right = (rank + 1) % n;
            final int left = (rank + n - 1) % n;
            final int[] fromLeft = new int[count];
            final int[] toRight = new int[count];
            Arrays.fill(toRight, rank);
            comm.sendRecv(CommBuffer.of(toRight), count, right, CommBuffer.of(fromLeft), count, left, DataType.INT32);
            assertEquals(left, fromLeft[0]);
            assertEquals(left, fromLeft[count - 1]);
        }
    }
}
