// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.topology;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayDeque;
import java.util.stream.IntStream;

import static io.verbs4j.collectives.topology.DoubleBinaryTree.NONE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DoubleBinaryTreeTest
{
    static IntStream sizes()
    {
        return IntStream.rangeClosed(1, 64);
    }

    @ParameterizedTest(name = "size {0}")
    @MethodSource("sizes")
    void shouldBuildTwoConsistentSpanningTrees(final int size)
    {
        final DoubleBinaryTree trees = new DoubleBinaryTree(size);
        for (int tree = 0; tree < DoubleBinaryTree.TREE_COUNT; tree++)
        {
            int roots = 0;
            for (int rank = 0; rank < size; rank++)
            {
                final int parent = trees.parent(tree, rank);
                if (NONE == parent)
                {
                    roots++;
                    assertEquals(trees.root(tree), rank, "root()");
                }
                else
                {
                    assertTrue(isChildOf(trees, tree, rank, parent), "tree " + tree + ": " + rank +
                        " names parent " + parent + " which does not list it as a child");
                }
                for (int i = 0; i < trees.childCount(tree, rank); i++)
                {
                    final int child = trees.child(tree, rank, i);
                    assertTrue(child >= 0 && child < size && child != rank);
                    assertEquals(rank, trees.parent(tree, child), "child's parent");
                }
                if (trees.childCount(tree, rank) < 2)
                {
                    assertEquals(NONE, trees.child(tree, rank, 1), "no child beyond childCount");
                }
                assertEquals(trees.childCount(tree, rank) > 0, trees.isInterior(tree, rank));
            }
            assertEquals(1, roots, "exactly one root in tree " + tree);
            assertEquals(size, reachableFromRoot(trees, tree), "tree " + tree + " spans all ranks");
            assertTrue(depth(trees, tree) <= 32 - Integer.numberOfLeadingZeros(size) + 1, "depth is logarithmic");
        }
    }

    @ParameterizedTest(name = "size {0}")
    @MethodSource("sizes")
    void shouldMakeRanksInteriorInAtMostOneTreeExceptOneRankForOddSizes(final int size)
    {
        final DoubleBinaryTree trees = new DoubleBinaryTree(size);
        int both = 0;
        for (int rank = 0; rank < size; rank++)
        {
            if (trees.isInterior(0, rank) && trees.isInterior(1, rank))
            {
                both++;
                assertEquals(0, rank, "only rank 0 may be interior in both trees");
            }
        }
        assertEquals(size % 2 == 1 && size >= 3 ? 1 : 0, both, "ranks interior in both trees");
    }

    @Test
    void shouldMatchNcclDiagramForFourteenRanks()
    {
        // From NCCL's trees.cc comment: tree 0 is 0->8, 8->{4,12}, 12->{10,13}; tree 1 mirrors it, root 13.
        final DoubleBinaryTree trees = new DoubleBinaryTree(14);
        assertEquals(8, trees.child(0, 0, 0));
        assertEquals(1, trees.childCount(0, 0));
        assertEquals(4, trees.child(0, 8, 0));
        assertEquals(12, trees.child(0, 8, 1));
        assertEquals(10, trees.child(0, 12, 0));
        assertEquals(13, trees.child(0, 12, 1));
        assertEquals(13, trees.root(1));
        assertEquals(5, trees.child(1, 13, 0));
        assertEquals(9, trees.parent(1, 11), "mirror of 2 -> 4");
        assertFalse(trees.isInterior(0, 13));
    }

    @Test
    void shouldRejectEmptyWorld()
    {
        assertThrows(IllegalArgumentException.class, () -> new DoubleBinaryTree(0));
    }

    private static boolean isChildOf(final DoubleBinaryTree trees, final int tree, final int rank, final int parent)
    {
        return trees.child(tree, parent, 0) == rank || trees.child(tree, parent, 1) == rank;
    }

    private static int reachableFromRoot(final DoubleBinaryTree trees, final int tree)
    {
        final boolean[] seen = new boolean[trees.size()];
        final ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.add(trees.root(tree));
        int count = 0;
        while (!queue.isEmpty())
        {
            final int rank = queue.poll();
            assertFalse(seen[rank], "cycle through " + rank);
            seen[rank] = true;
            count++;
            for (int i = 0; i < trees.childCount(tree, rank); i++)
            {
                queue.add(trees.child(tree, rank, i));
            }
        }
        return count;
    }

    private static int depth(final DoubleBinaryTree trees, final int tree)
    {
        int max = 0;
        for (int rank = 0; rank < trees.size(); rank++)
        {
            int d = 0;
            for (int r = rank; NONE != trees.parent(tree, r); r = trees.parent(tree, r))
            {
                d++;
            }
            max = Math.max(max, d);
        }
        return max;
    }
}
