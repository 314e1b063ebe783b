// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.Algorithm;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ChoiceTableTest
{
    @Test
    void shouldFindTheExactBytesWhereTheChoiceChanges()
    {
        final ChoiceTable t = ChoiceTable.of(b -> b < 1_500 ? Algorithm.RECURSIVE_DOUBLING :
            (b <= 3 * 262_144 ? Algorithm.HALVING_DOUBLING : Algorithm.RING), 1L << 30);
        assertEquals(List.of(
            new ChoiceTable.Range(1, 1_499, Algorithm.RECURSIVE_DOUBLING),
            new ChoiceTable.Range(1_500, 786_432, Algorithm.HALVING_DOUBLING),
            new ChoiceTable.Range(786_433, 1L << 30, Algorithm.RING)), t.ranges());
        assertEquals("1 B-1499 B RECURSIVE_DOUBLING, 1500 B-768 KiB HALVING_DOUBLING, 786433 B-1 GiB RING",
            t.toString());
        assertEquals(Algorithm.HALVING_DOUBLING, t.algorithmFor(4096));
    }

    @Test
    void shouldFindSeveralChangesInsideOnePowerOfTwo()
    {
        final ChoiceTable t = ChoiceTable.of(b -> b <= 1_100 ? Algorithm.TREE :
            (b <= 1_200 ? Algorithm.RING : Algorithm.HALVING_DOUBLING), 4096);
        assertEquals(List.of(
            new ChoiceTable.Range(1, 1_100, Algorithm.TREE),
            new ChoiceTable.Range(1_101, 1_200, Algorithm.RING),
            new ChoiceTable.Range(1_201, 4096, Algorithm.HALVING_DOUBLING)), t.ranges());
    }

    @Test
    void shouldAgreeWithTheSelectorOfACostModelEverywhere()
    {
        final AlgorithmSelector selector = new AlgorithmSelector(CostModel.defaults("shm"), 4, 256 * 1024);
        final ChoiceTable t = ChoiceTable.of(b -> selector.allReduce(Algorithm.AUTO, b), 64L << 20);
        long expectedFrom = 1;
        for (final ChoiceTable.Range r : t.ranges())
        {
            assertEquals(expectedFrom, r.fromBytes(), t::toString);
            expectedFrom = r.toBytes() + 1;
        }
        assertEquals((64L << 20) + 1, expectedFrom);
        for (long b = 1; b <= 64L << 20; b = b * 3 / 2 + 1)
        {
            assertEquals(selector.allReduce(Algorithm.AUTO, b), t.algorithmFor(b), "at " + b + ": " + t);
        }
        assertThrows(IllegalArgumentException.class, () -> ChoiceTable.of(b -> Algorithm.RING, 0));
    }
}
