// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.topology;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Random;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RingTopologyTest
{
    static IntStream sizes()
    {
        return IntStream.rangeClosed(1, 64);
    }

    @ParameterizedTest(name = "size {0}")
    @MethodSource("sizes")
    void shouldFormOneCycleThroughEveryRank(final int size)
    {
        assertRing(RingTopology.identity(size));
        assertRing(RingTopology.of(shuffled(size, new Random(size))));
    }

    @ParameterizedTest(name = "size {0}")
    @MethodSource("sizes")
    void shouldSplitAnyCountIntoChunksDifferingByAtMostOne(final int size)
    {
        final RingTopology ring = RingTopology.identity(size);
        final long[] counts = {0, 1, 2, 3, 7, 31, 97, size - 1L, size, size + 1L, 3L * size + 2, (1L << 33) + 5};
        for (final long count : counts)
        {
            if (count < 0)
            {
                continue;
            }
            long next = 0;
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int chunk = 0; chunk < size; chunk++)
            {
                assertEquals(next, ring.chunkOffset(count, chunk), "chunks are contiguous");
                final long length = ring.chunkLength(count, chunk);
                next += length;
                min = Math.min(min, length);
                max = Math.max(max, length);
            }
            assertEquals(count, next, "chunks cover the count exactly");
            assertTrue(max - min <= 1, "count " + count + " size " + size + ": lengths " + min + ".." + max);
        }
    }

    @Test
    void shouldRejectBadOrders()
    {
        assertThrows(IllegalArgumentException.class, () -> RingTopology.of(new int[]{0, 0, 1}));
        assertThrows(IllegalArgumentException.class, () -> RingTopology.of(new int[]{0, 3}));
        assertThrows(IllegalArgumentException.class, () -> RingTopology.of(new int[0]));
        assertThrows(IllegalArgumentException.class, () -> RingTopology.identity(0));
        assertThrows(IllegalArgumentException.class, () -> Partition.length(-1, 2, 0));
        assertThrows(IllegalArgumentException.class, () -> Partition.offset(5, 2, 2));
    }

    @Test
    void shouldFollowTheGivenOrder()
    {
        final RingTopology ring = RingTopology.of(new int[]{2, 0, 3, 1});
        assertEquals(0, ring.right(2));
        assertEquals(1, ring.left(2));
        assertEquals(2, ring.right(1));
        assertEquals(3, ring.positionOf(1));
    }

    private static void assertRing(final RingTopology ring)
    {
        final int size = ring.size();
        final boolean[] visited = new boolean[size];
        int rank = ring.rankAt(0);
        for (int step = 0; step < size; step++)
        {
            assertTrue(!visited[rank] || 1 == size, "rank " + rank + " visited twice");
            visited[rank] = true;
            assertEquals(rank, ring.left(ring.right(rank)));
            assertEquals(ring.rankAt(ring.positionOf(rank)), rank);
            rank = ring.right(rank);
        }
        assertEquals(ring.rankAt(0), rank, "after size steps the ring closes");
        for (final boolean v : visited)
        {
            assertTrue(v);
        }
    }

    private static int[] shuffled(final int size, final Random random)
    {
        final int[] order = IntStream.range(0, size).toArray();
        for (int i = size - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }
}
