// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ByteSizesTest
{
    @Test
    void shouldParseBinarySuffixes()
    {
        assertEquals(8, ByteSizes.parse("8"));
        assertEquals(65536, ByteSizes.parse("64K"));
        assertEquals(4096, ByteSizes.parse("4kib"));
        assertEquals(1 << 20, ByteSizes.parse("1M"));
        assertEquals(1 << 30, ByteSizes.parse("1G"));
    }

    @Test
    void shouldParseLists()
    {
        assertEquals(List.of(8, 4096, 1 << 20), ByteSizes.parseList("8, 4K,1M"));
    }

    @Test
    void shouldRejectBadSizes()
    {
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("0"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("2G"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("3X"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("K"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parseList(","));
    }

    @Test
    void shouldSweepLikePerftestAll()
    {
        final List<Integer> all = ByteSizes.all();
        assertEquals(23, all.size());
        assertEquals(2, all.get(0));
        assertEquals(8 << 20, all.get(all.size() - 1));
    }
}
