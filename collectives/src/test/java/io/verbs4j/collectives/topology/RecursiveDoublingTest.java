// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.topology;

import io.verbs4j.collectives.topology.RecursiveDoubling.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.stream.IntStream;

import static io.verbs4j.collectives.topology.RecursiveDoubling.NONE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecursiveDoublingTest
{
    static IntStream sizes()
    {
        return IntStream.rangeClosed(1, 64);
    }

    @ParameterizedTest(name = "size {0}")
    @MethodSource("sizes")
    void shouldPairRanksSymmetricallyAndFoldEveryExtraRank(final int size)
    {
        final RecursiveDoubling schedule = new RecursiveDoubling(size);
        assertEquals(Integer.highestOneBit(size), schedule.participants());
        int participants = 0;
        for (int rank = 0; rank < size; rank++)
        {
            final Role role = schedule.role(rank);
            final int partner = schedule.foldPartner(rank);
            if (Role.CORE == role)
            {
                assertEquals(NONE, partner);
            }
            else
            {
                assertEquals(rank, schedule.foldPartner(partner), "fold partners are mutual");
                assertNotEquals(role, schedule.role(partner), "one folds, the other is its proxy");
            }
            if (Role.FOLDED != role)
            {
                participants++;
                assertEquals(rank, schedule.realRank(schedule.virtualRank(rank)));
                for (int step = 0; step < schedule.steps(); step++)
                {
                    final int peer = schedule.doublingPeer(rank, step);
                    assertNotEquals(Role.FOLDED, schedule.role(peer));
                    assertEquals(rank, schedule.doublingPeer(peer, step), "doubling peers are mutual");
                    final int halving = schedule.halvingPeer(rank, step);
                    assertEquals(rank, schedule.halvingPeer(halving, step), "halving peers are mutual");
                    assertNotEquals(schedule.keepsLowerHalf(rank, step), schedule.keepsLowerHalf(halving, step),
                        "partners keep opposite halves");
                }
            }
            else
            {
                assertEquals(NONE, schedule.virtualRank(rank));
            }
        }
        assertEquals(schedule.participants(), participants);
    }

    @ParameterizedTest(name = "size {0}")
    @MethodSource("sizes")
    void shouldComputeAllReduceWhenSimulatedWithRecursiveDoubling(final int size)
    {
        final RecursiveDoubling schedule = new RecursiveDoubling(size);
        // Each rank's data is the set of contributions it holds, as a bit mask (size <= 64).
        final long[] held = new long[size];
        for (int rank = 0; rank < size; rank++)
        {
            held[rank] = 1L << rank;
        }
        fold(schedule, held);
        for (int step = 0; step < schedule.steps(); step++)
        {
            final long[] before = held.clone();
            for (int rank = 0; rank < size; rank++)
            {
                final int peer = schedule.doublingPeer(rank, step);
                if (NONE != peer)
                {
                    assertEquals(0, before[rank] & before[peer], "no contribution is counted twice");
                    held[rank] = before[rank] | before[peer];
                }
            }
        }
        unfold(schedule, held);
        final long all = size == 64 ? -1L : (1L << size) - 1;
        for (int rank = 0; rank < size; rank++)
        {
            assertEquals(all, held[rank], "rank " + rank + " holds every contribution");
        }
    }

    @ParameterizedTest(name = "size {0}")
    @MethodSource("sizes")
    void shouldComputeAllReduceWhenSimulatedWithHalvingDoubling(final int size)
    {
        final RecursiveDoubling schedule = new RecursiveDoubling(size);
        final int p = schedule.participants();
        // blocks[rank][b]: contributions reduced into block b on that rank; p blocks per buffer.
        final long[][] blocks = new long[size][p];
        for (int rank = 0; rank < size; rank++)
        {
            Arrays.fill(blocks[rank], 1L << rank);
        }
        // Fold: the proxy reduces the folded rank's whole buffer.
        for (int rank = 0; rank < size; rank++)
        {
            if (Role.PROXY == schedule.role(rank))
            {
                for (int b = 0; b < p; b++)
                {
                    blocks[rank][b] |= blocks[schedule.foldPartner(rank)][b];
                }
            }
        }
        // Reduce-scatter by halving: each rank's current range [lo, lo+len) shrinks by half per step.
        final int[] lo = new int[size];
        final int[] len = new int[size];
        Arrays.fill(len, p);
        for (int step = 0; step < schedule.steps(); step++)
        {
            final long[][] before = deepCopy(blocks);
            for (int rank = 0; rank < size; rank++)
            {
                final int peer = schedule.halvingPeer(rank, step);
                if (NONE == peer)
                {
                    continue;
                }
                len[rank] /= 2;
                if (!schedule.keepsLowerHalf(rank, step))
                {
                    lo[rank] += len[rank];
                }
                for (int b = lo[rank]; b < lo[rank] + len[rank]; b++)
                {
                    blocks[rank][b] = before[rank][b] | before[peer][b];
                }
            }
        }
        final long all = size == 64 ? -1L : (1L << size) - 1;
        for (int rank = 0; rank < size; rank++)
        {
            if (Role.FOLDED != schedule.role(rank))
            {
                assertEquals(1, len[rank]);
                assertEquals(schedule.virtualRank(rank), lo[rank], "participant owns block = virtual rank");
                assertEquals(all, blocks[rank][lo[rank]], "owned block is fully reduced");
            }
        }
        // All-gather by doubling with the same peers in reverse: every participant ends with every block.
        for (int step = schedule.steps() - 1; step >= 0; step--)
        {
            final long[][] before = deepCopy(blocks);
            final int[] loBefore = lo.clone();
            final int[] lenBefore = len.clone();
            for (int rank = 0; rank < size; rank++)
            {
                final int peer = schedule.halvingPeer(rank, step);
                if (NONE == peer)
                {
                    continue;
                }
                for (int b = loBefore[peer]; b < loBefore[peer] + lenBefore[peer]; b++)
                {
                    blocks[rank][b] = before[peer][b];
                }
                lo[rank] = Math.min(loBefore[rank], loBefore[peer]);
                len[rank] = 2 * lenBefore[rank];
            }
        }
        final long[] expected = new long[p];
        Arrays.fill(expected, all);
        for (int rank = 0; rank < size; rank++)
        {
            if (Role.PROXY == schedule.role(rank))
            {
                blocks[schedule.foldPartner(rank)] = blocks[rank].clone(); // unfold
            }
        }
        for (int rank = 0; rank < size; rank++)
        {
            assertArrayEquals(expected, blocks[rank], "rank " + rank);
        }
    }

    @Test
    void shouldRejectOutOfRangeArguments()
    {
        final RecursiveDoubling schedule = new RecursiveDoubling(6);
        assertThrows(IllegalArgumentException.class, () -> new RecursiveDoubling(0));
        assertThrows(IllegalArgumentException.class, () -> schedule.role(6));
        assertThrows(IllegalArgumentException.class, () -> schedule.doublingPeer(1, 2));
        assertThrows(IllegalArgumentException.class, () -> schedule.realRank(4));
        final IllegalArgumentException folded =
            assertThrows(IllegalArgumentException.class, () -> schedule.keepsLowerHalf(0, 0));
        assertTrue(folded.getMessage().contains("folded"));
        assertEquals(0, new RecursiveDoubling(1).steps());
    }

    private static void fold(final RecursiveDoubling schedule, final long[] held)
    {
        for (int rank = 0; rank < schedule.size(); rank++)
        {
            if (Role.PROXY == schedule.role(rank))
            {
                held[rank] |= held[schedule.foldPartner(rank)];
            }
        }
    }

    private static void unfold(final RecursiveDoubling schedule, final long[] held)
    {
        for (int rank = 0; rank < schedule.size(); rank++)
        {
            if (Role.PROXY == schedule.role(rank))
            {
                held[schedule.foldPartner(rank)] = held[rank];
            }
        }
    }

    private static long[][] deepCopy(final long[][] blocks)
    {
        final long[][] copy = new long[blocks.length][];
        for (int i = 0; i < blocks.length; i++)
        {
            copy[i] = blocks[i].clone();
        }
        return copy;
    }
}
