// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CoreBindingTest
{
    @Test
    void readsKernelCpuLists()
    {
        assertEquals(List.of(0, 1, 2, 3, 8, 10, 11), CoreBinding.parseList("0-3,8,10-11"));
        assertEquals(List.of(5), CoreBinding.parseList("5"));
        assertThrows(NumberFormatException.class, () -> CoreBinding.parseList("zero"));
    }

    @Test
    void givesEachRankACpuOnlyWhenThereAreEnough()
    {
        assertArrayEquals(new int[]{4, 6}, CoreBinding.plan(2, List.of(4, 6, 7)));
        assertNull(CoreBinding.plan(4, List.of(0, 1)), "more ranks than cores: unbound, as mpirun would not bind");
        assertNull(CoreBinding.plan(0, List.of(0, 1)));
    }
}
