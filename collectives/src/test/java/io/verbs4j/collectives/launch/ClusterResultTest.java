// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ClusterResultTest
{
    @Test
    void shouldDescribeSuccessAsEveryRankExitingWithZero()
    {
        assertEquals("every rank exited with 0",
            new ClusterResult(new int[] { 0, 0 }, new boolean[] { false, false }, false).describe());
    }

    @Test
    void shouldNameEachRankThatFailedOrWasKilled()
    {
        final ClusterResult result =
            new ClusterResult(new int[] { 0, 1, 137 }, new boolean[] { false, false, true }, true);

        assertEquals("rank 1 exited with 1, rank 2 was killed (the run timed out)", result.describe());
    }
}
