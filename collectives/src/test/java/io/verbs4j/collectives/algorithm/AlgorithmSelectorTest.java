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
}
