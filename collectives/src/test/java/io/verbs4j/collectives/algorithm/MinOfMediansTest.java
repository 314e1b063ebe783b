// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MinOfMediansTest
{
    @Test
    void shouldIgnoreASingleOutlierInARound()
    {
        final long[] samples = {1_000, 1_010, 990, 1_400_000, 1_005};
        assertEquals(1_005, MinOfMedians.estimate(samples, 5));
    }

    @Test
    void shouldIgnoreARoundThatRanUnderLoad()
    {
        final long[] samples = {
            50_000, 60_000, 1_400_000, 55_000, 70_000,     // preempted round
            1_000, 1_010, 990, 1_020, 1_005,
            1_100, 1_050, 1_080, 2_000_000, 1_090 };
        assertEquals(1_005, MinOfMedians.estimate(samples, 5));
    }

    @Test
    void shouldNotBeMovedByOutliersInEveryRound()
    {
        final long[] quiet = {1_000, 1_010, 990, 1_020, 1_005, 1_000, 1_010, 990, 1_020, 1_005};
        final long[] noisy = {1_000, 1_010, 9_000_000, 1_020, 1_005, 1_000, 7_000_000, 990, 1_020, 1_005};
        assertEquals(MinOfMedians.estimate(quiet, 5), MinOfMedians.estimate(noisy, 5));
    }

    @Test
    void shouldIgnoreATrailingPartialRoundAndNeedOneCompleteRound()
    {
        assertEquals(2_000, MinOfMedians.estimate(new long[] {2_000, 2_000, 2_000, 5}, 3));
        assertTrue(Double.isNaN(MinOfMedians.estimate(new long[] {1, 2}, 3)));
        assertThrows(IllegalArgumentException.class, () -> MinOfMedians.estimate(new long[1], 0));
    }
}
