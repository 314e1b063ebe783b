// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.topology;

/**
 * NCCL's double binary tree: two binary trees over the same ranks, each meant to carry half of the data, built so
 * that ranks which are interior (forward data) in one tree are leaves in the other, balancing the load.
 *
 * <p>Tree 0 is NCCL's {@code ncclGetBtree}: in-order numbering, where rank {@code r}'s lowest set bit {@code b}
 * gives its height; its parent is {@code (r ^ b) | (b << 1)} (or {@code r ^ b} if that is out of range) and its
 * children are {@code r - b/2} and the largest {@code r + b/2^k} in range. Rank 0 is the root with the single
 * child {@code 2^floor(log2(size-1))}. Odd ranks are the leaves. Tree 1 ({@code ncclGetDtree}) is the mirror
 * image {@code r -> size-1-r} when size is even, and tree 0 shifted by one ({@code r -> r+1 mod size}) when size is
 * odd.
 *
 * <p>Interior-node property, checked for every size 1..64 by the tests: with an even size every rank is interior
 * in at most one tree; with an odd size at least 3 exactly one rank is interior in both (rank 0 in tree 1 is the
 * shifted image of the last rank), which is NCCL's behaviour too and is unavoidable with a one-child root.
 *
 * <p>Immutable and thread-safe; the per-rank queries are allocation-free array reads.
 */
public final class DoubleBinaryTree
{
    /** Number of trees. */
    public static final int TREE_COUNT = 2;
    /** Returned for "no such rank" (the root's parent, missing children). */
    public static final int NONE = -1;

    private final int size;
    private final int[][] parent = new int[TREE_COUNT][];
    private final int[][] firstChild = new int[TREE_COUNT][];
    private final int[][] secondChild = new int[TREE_COUNT][];

    /**
     * Builds both trees.
     *
     * @param size number of ranks, at least 1.
     * @throws IllegalArgumentException if size is below 1.
     */
    public DoubleBinaryTree(final int size)
    {
        if (size < 1)
        {
            throw new IllegalArgumentException("tree size must be >= 1 but was " + size);
        }
        this.size = size;
        final int[] links = new int[3];
        for (int tree = 0; tree < TREE_COUNT; tree++)
        {
            parent[tree] = new int[size];
            firstChild[tree] = new int[size];
            secondChild[tree] = new int[size];
            for (int rank = 0; rank < size; rank++)
            {
                if (0 == tree)
                {
                    btree(size, rank, links);
                }
                else
                {
                    secondTree(size, rank, links);
                }
                parent[tree][rank] = links[0];
                // Store children compactly: the first child slot is used first.
                final int c0 = links[1];
                final int c1 = links[2];
                firstChild[tree][rank] = NONE != c0 ? c0 : c1;
                secondChild[tree][rank] = NONE != c0 ? c1 : NONE;
            }
        }
    }

    /**
     * Number of ranks.
     *
     * @return the size both trees span.
     */
    public int size()
    {
        return size;
    }

    /**
     * Root of a tree.
     *
     * @param tree 0 or 1.
     * @return the only rank whose parent is {@link #NONE}.
     */
    public int root(final int tree)
    {
        if (0 == tree)
        {
            return 0;
        }
        return 0 == size % 2 ? size - 1 : 1 % size;
    }

    /**
     * Parent of a rank.
     *
     * @param tree 0 or 1.
     * @param rank a rank in {@code [0, size)}.
     * @return the parent, or {@link #NONE} for the root.
     */
    public int parent(final int tree, final int rank)
    {
        return parent[tree][rank];
    }

    /**
     * Number of children of a rank.
     *
     * @param tree 0 or 1.
     * @param rank a rank in {@code [0, size)}.
     * @return 0, 1 or 2.
     */
    public int childCount(final int tree, final int rank)
    {
        return (NONE == firstChild[tree][rank] ? 0 : 1) + (NONE == secondChild[tree][rank] ? 0 : 1);
    }

    /**
     * A child of a rank.
     *
     * @param tree  0 or 1.
     * @param rank  a rank in {@code [0, size)}.
     * @param index 0 or 1, below {@link #childCount(int, int)}.
     * @return the child's rank, or {@link #NONE} if there is no such child.
     */
    public int child(final int tree, final int rank, final int index)
    {
        return 0 == index ? firstChild[tree][rank] : secondChild[tree][rank];
    }

    /**
     * Whether a rank has children in a tree (forwards data rather than only sending/receiving it).
     *
     * @param tree 0 or 1.
     * @param rank a rank in {@code [0, size)}.
     * @return true if it has at least one child.
     */
    public boolean isInterior(final int tree, final int rank)
    {
        return NONE != firstChild[tree][rank];
    }

    /** NCCL's ncclGetBtree: links = {parent, child0, child1}. */
    private static void btree(final int size, final int rank, final int[] links)
    {
        int bit = 1;
        while (bit < size && 0 == (bit & rank))
        {
            bit <<= 1;
        }
        if (0 == rank)
        {
            links[0] = NONE;
            links[1] = NONE;
            links[2] = size > 1 ? bit >> 1 : NONE; // the root's only child is the top of the in-order tree
            return;
        }
        int up = (rank ^ bit) | (bit << 1);
        if (up >= size)
        {
            up = rank ^ bit;
        }
        links[0] = up;

        int lowBit = bit >> 1;
        links[1] = 0 == lowBit ? NONE : rank - lowBit; // always in range
        // The right subtree may be cut short by the size: take the largest in-range step.
        int down1 = NONE;
        while (lowBit > 0)
        {
            if (rank + lowBit < size)
            {
                down1 = rank + lowBit;
                break;
            }
            lowBit >>= 1;
        }
        links[2] = down1;
    }

    /** NCCL's ncclGetDtree second tree: mirror for even sizes, shift by one for odd sizes. */
    private static void secondTree(final int size, final int rank, final int[] links)
    {
        if (0 == size % 2)
        {
            btree(size, size - 1 - rank, links);
            for (int i = 0; i < 3; i++)
            {
                links[i] = NONE == links[i] ? NONE : size - 1 - links[i];
            }
        }
        else
        {
            btree(size, (rank - 1 + size) % size, links);
            for (int i = 0; i < 3; i++)
            {
                links[i] = NONE == links[i] ? NONE : (links[i] + 1) % size;
            }
        }
    }
}
