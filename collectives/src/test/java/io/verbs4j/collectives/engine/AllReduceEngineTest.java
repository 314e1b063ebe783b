// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.Cases;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Every AllReduce algorithm over in-memory fake links (no provider): world sizes 1..8, counts 0, 1, 7, a prime and a
 * large count not divisible by the world size, every type and op, in place and out of place, heap and direct
 * buffers, with tiny slots so that every algorithm runs many pieces and rounds through a 2-slot credit window.
 */
class AllReduceEngineTest
{
    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        int k = 0;
        for (final int size : new int[]{1, 2, 3, 4, 5, 8})
        {
            for (final long count : new long[]{0, 1, 7, 1009, 20_011})
            {
                for (final Algorithm algorithm : new Algorithm[]{Algorithm.RING, Algorithm.TREE,
                    Algorithm.RECURSIVE_DOUBLING, Algorithm.HALVING_DOUBLING, Algorithm.ONE_SHOT})
                {
                    final Object[] typeOp = Cases.TYPE_OPS[k++ % Cases.TYPE_OPS.length];
                    cases.add(Arguments.of(size, count, algorithm, typeOp[0], typeOp[1], 0 == k % 3));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "n={0} count={1} {2} {3} {4} inPlace={5}")
    @MethodSource("cases")
    void allReduce(final int size, final long count, final Algorithm algorithm, final DataType type,
        final ReduceOp op, final boolean inPlace)
    {
        final byte[] expected = Cases.allReduce(type, op, size, count);
        final int slotBytes = count > 5000 ? 1024 : 64;
        FakeCluster.runOk(size, 2, slotBytes, (engine, rank, mesh) ->
        {
            final byte[] in = Cases.input(type, op, rank, count);
            final OpRequest r = new OpRequest();
            if (1 == rank % 2)
            {
                // direct buffers on odd ranks: read and written in place, sent through the staging path
                final ByteBuffer send = ByteBuffer.allocateDirect(in.length).put(in).flip();
                final ByteBuffer recv = inPlace ? send : ByteBuffer.allocateDirect(in.length);
                final CommBuffer s = CommBuffer.of(send);
                r.set(OpKind.ALL_REDUCE, s, inPlace ? s : CommBuffer.of(recv), count, type, op, 0);
                r.algorithm = algorithm;
                engine.execute(r);
                final byte[] out = new byte[in.length];
                recv.duplicate().get(out);
                assertArrayEquals(expected, out, "rank " + rank);
            }
            else
            {
                final byte[] out = inPlace ? in : new byte[in.length];
                final CommBuffer s = CommBuffer.of(in);
                r.set(OpKind.ALL_REDUCE, s, inPlace ? s : CommBuffer.of(out), count, type, op, 0);
                r.algorithm = algorithm;
                engine.execute(r);
                assertArrayEquals(expected, out, "rank " + rank);
            }
        });
    }
}
