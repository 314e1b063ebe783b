// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One shot's invariant: every rank folds every contribution in rank order, so every rank holds exactly the bits of
 * {@code ((c0 + c1) + c2) + ...} — checked with float32 values whose sum depends on the order, in place (where ranks 2
 * and up must keep their contribution before the fold overwrites it) and out of place, within one slot and across
 * many pieces.
 */
class OneShotAllReduceTest
{
    private static final int SLOT_BYTES = 64;

    @ParameterizedTest(name = "n={0} count={1} inPlace={2}")
    @CsvSource({"2,5,false", "3,1,false", "3,1,true", "4,7,true", "4,100,false", "4,100,true", "5,37,true",
        "8,16,true"})
    void shouldGiveEveryRankTheRankOrderFold(final int size, final int count, final boolean inPlace)
    {
        final float[] expected = new float[count];
        for (int i = 0; i < count; i++)
        {
            float acc = value(0, i) + value(1, i);
            for (int r = 2; r < size; r++)
            {
                acc += value(r, i);
            }
            expected[i] = acc;
        }
        FakeCluster.runOk(size, 2, SLOT_BYTES, (engine, rank, mesh) ->
        {
            final ByteBuffer send = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
            for (int i = 0; i < count; i++)
            {
                send.putFloat(i * 4, value(rank, i));
            }
            final ByteBuffer recv = inPlace ? send
                : ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
            final OpRequest r = new OpRequest();
            final CommBuffer s = CommBuffer.of(send);
            r.set(OpKind.ALL_REDUCE, s, inPlace ? s : CommBuffer.of(recv), count, DataType.FLOAT32, ReduceOp.SUM, 0);
            r.algorithm = Algorithm.ONE_SHOT;
            for (int call = 0; call < 3; call++)
            {
                if (inPlace)
                {
                    for (int i = 0; i < count; i++)
                    {
                        send.putFloat(i * 4, value(rank, i));
                    }
                }
                engine.execute(r);
                for (int i = 0; i < count; i++)
                {
                    assertEquals(Float.floatToRawIntBits(expected[i]), Float.floatToRawIntBits(recv.getFloat(i * 4)),
                        "rank " + rank + " call " + call + " element " + i);
                }
            }
        });
    }

    /** Magnitudes far apart and alternating signs: rounding depends on the order of the additions. */
    private static float value(final int rank, final int i)
    {
        final float magnitude = (float)Math.pow(10, (rank * 3 + i) % 9 - 1);
        return (0 == (rank + i) % 2 ? 1 : -1) * magnitude * (1.0f + i / 7.0f);
    }
}
