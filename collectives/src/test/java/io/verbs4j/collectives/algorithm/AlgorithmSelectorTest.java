// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.verbs4j.collectives.Algorithm;
import org.junit.jupiter.api.Test;

class AlgorithmSelectorTest
{
    private static final int CHUNK = 256 * 1024;

    @Test
    void shouldGiveTwoRanksTheRingWhereHalvingDoublingCostsTheSame()
    {
        for (final CostModel model : new CostModel[] {CostModel.defaults("tcp"), CostModel.defaults("shm"),
            new CostModel(4_000, 0.2, 0.1, true)})
        {
            final AlgorithmSelector selector = new AlgorithmSelector(model, 2, CHUNK);
            for (final long bytes : new long[] {1L << 20, 4L << 20, 64L << 20})
            {
                assertEquals(model.allReduceNs(Algorithm.RING, bytes, 2, CHUNK),
                    model.allReduceNs(Algorithm.HALVING_DOUBLING, bytes, 2, CHUNK), "the model ties them at 2 ranks");
                assertEquals(Algorithm.RING, selector.allReduce(Algorithm.AUTO, bytes), model.note() + " " + bytes);
            }
            assertEquals(Algorithm.RECURSIVE_DOUBLING, selector.allReduce(Algorithm.AUTO, 8), "small: one exchange");
        }
    }

    @Test
    void shouldKeepTheCheapestAtMoreRanksAndHonourOverrides()
    {
        final CostModel model = CostModel.defaults("shm");
        final AlgorithmSelector four = new AlgorithmSelector(model, 4, CHUNK);
        assertEquals(Algorithm.HALVING_DOUBLING, four.allReduce(Algorithm.AUTO, 1L << 20),
            "4 ranks: fewer hops than the ring for the same bytes");
        assertEquals(Algorithm.TREE, four.allReduce(Algorithm.TREE, 1L << 20));
        assertEquals(Algorithm.HALVING_DOUBLING,
            new AlgorithmSelector(model, 2, CHUNK).allReduce(Algorithm.HALVING_DOUBLING, 1L << 20));
    }

    @Test
    void shouldPickOneShotForSmallMessagesAtMoreThanTwoRanksAndNeverPastItsRankLimit()
    {
        final CostModel model = new CostModel(10_000, 0.15, 1.0, true);
        for (final int size : new int[] {3, 4, 8})
        {
            assertEquals(Algorithm.ONE_SHOT, new AlgorithmSelector(model, size, CHUNK).allReduce(Algorithm.AUTO, 8),
                size + " ranks, 8 B: one round instead of log2(n) or a fold");
        }
        assertEquals(Algorithm.RECURSIVE_DOUBLING, new AlgorithmSelector(model, 2, CHUNK).allReduce(Algorithm.AUTO, 8),
            "2 ranks: the same single exchange, and recursive doubling wins the tie");
        assertEquals(Algorithm.RECURSIVE_DOUBLING,
            new AlgorithmSelector(model, AlgorithmSelector.ONE_SHOT_MAX_RANKS * 2, CHUNK).allReduce(Algorithm.AUTO, 8));
        assertEquals(Algorithm.ONE_SHOT, new AlgorithmSelector(model, 64, CHUNK).allReduce(Algorithm.ONE_SHOT, 8),
            "pinned, it runs at any size");
        final AlgorithmSelector four = new AlgorithmSelector(model, 4, CHUNK);
        assertEquals(Algorithm.HALVING_DOUBLING, four.allReduce(Algorithm.AUTO, 1L << 20),
            "large messages: 3x the bytes costs more than a round");
    }
}
