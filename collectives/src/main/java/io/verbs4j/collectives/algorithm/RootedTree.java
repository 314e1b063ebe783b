// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.topology.DoubleBinaryTree;

/**
 * The shape of a rooted operation (Broadcast, Reduce) in virtual ranks {@code v = (rank - root) mod n}, so one
 * shape serves every root: a {@link #chain} (ring order, bandwidth-optimal for large messages) or a
 * {@link #binary} tree (tree 0 of {@link DoubleBinaryTree}, {@code log2 n} depth for small ones). Immutable.
 */
public final class RootedTree
{
    /** No such rank. */
    public static final int NONE = -1;

    private final int size;
    private final int[] parent;
    private final int[][] children;

    private RootedTree(final int size, final int[] parent, final int[][] children)
    {
        this.size = size;
        this.parent = parent;
        this.children = children;
    }

    /**
     * @param size ranks.
     * @return the chain 0 → 1 → … → n-1.
     */
    public static RootedTree chain(final int size)
    {
        final int[] parent = new int[size];
        final int[][] children = new int[size][];
        for (int v = 0; v < size; v++)
        {
            parent[v] = 0 == v ? NONE : v - 1;
            children[v] = v + 1 < size ? new int[]{v + 1} : new int[0];
        }
        return new RootedTree(size, parent, children);
    }

    /**
     * @param size ranks.
     * @return a binary tree rooted at 0.
     */
    public static RootedTree binary(final int size)
    {
        final DoubleBinaryTree tree = new DoubleBinaryTree(size);
        final int[] parent = new int[size];
        final int[][] children = new int[size][];
        for (int v = 0; v < size; v++)
        {
            parent[v] = tree.parent(0, v);
            children[v] = new int[tree.childCount(0, v)];
            for (int i = 0; i < children[v].length; i++)
            {
                children[v][i] = tree.child(0, v, i);
            }
        }
        return new RootedTree(size, parent, children);
    }

    /**
     * @param rank a rank.
     * @param root the root.
     * @return the rank's parent, or {@link #NONE} for the root.
     */
    public int parent(final int rank, final int root)
    {
        final int p = parent[virtual(rank, root)];
        return NONE == p ? NONE : real(p, root);
    }

    /**
     * @param rank a rank.
     * @param root the root.
     * @return how many children it has.
     */
    public int childCount(final int rank, final int root)
    {
        return children[virtual(rank, root)].length;
    }

    /**
     * @param rank  a rank.
     * @param root  the root.
     * @param index child index.
     * @return the child's rank.
     */
    public int child(final int rank, final int root, final int index)
    {
        return real(children[virtual(rank, root)][index], root);
    }

    private int virtual(final int rank, final int root)
    {
        return (rank - root + size) % size;
    }

    private int real(final int virtual, final int root)
    {
        return (virtual + root) % size;
    }
}
