// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.topology;

import java.util.Arrays;

/**
 * A ring over the ranks: each rank sends to its right neighbour and receives from its left one. The order is a
 * permutation of the ranks (identity by default; a topology-aware order puts ranks of one host next to each other
 * as NCCL's ring search does). Chunking for ring algorithms splits a buffer into {@code size} parts with
 * {@link Partition}.
 *
 * <p>Immutable and thread-safe; queries are allocation-free.
 */
public final class RingTopology
{
    private final int[] order;
    private final int[] positionOfRank;

    private RingTopology(final int[] order)
    {
        this.order = order;
        this.positionOfRank = new int[order.length];
        for (int position = 0; position < order.length; position++)
        {
            positionOfRank[order[position]] = position;
        }
    }

    /**
     * The ring 0 → 1 → … → size-1 → 0.
     *
     * @param size number of ranks, at least 1.
     * @return the ring.
     */
    public static RingTopology identity(final int size)
    {
        if (size < 1)
        {
            throw new IllegalArgumentException("ring size must be >= 1 but was " + size);
        }
        final int[] order = new int[size];
        for (int i = 0; i < size; i++)
        {
            order[i] = i;
        }
        return new RingTopology(order);
    }

    /**
     * A ring visiting ranks in the given order.
     *
     * @param order a permutation of {@code 0..order.length-1}; copied.
     * @return the ring.
     * @throws IllegalArgumentException if the array is empty or not a permutation.
     */
    public static RingTopology of(final int[] order)
    {
        if (null == order || 0 == order.length)
        {
            throw new IllegalArgumentException("ring order must list at least one rank");
        }
        final boolean[] seen = new boolean[order.length];
        for (final int rank : order)
        {
            if (rank < 0 || rank >= order.length || seen[rank])
            {
                throw new IllegalArgumentException("ring order " + Arrays.toString(order) +
                    " is not a permutation of 0.." + (order.length - 1) + " (bad or repeated rank " + rank + ")");
            }
            seen[rank] = true;
        }
        return new RingTopology(order.clone());
    }

    /**
     * Number of ranks.
     *
     * @return the ring size.
     */
    public int size()
    {
        return order.length;
    }

    /**
     * The rank at a ring position.
     *
     * @param position position in {@code [0, size)}.
     * @return the rank there.
     */
    public int rankAt(final int position)
    {
        return order[position];
    }

    /**
     * The ring position of a rank.
     *
     * @param rank a rank in {@code [0, size)}.
     * @return its position.
     */
    public int positionOf(final int rank)
    {
        return positionOfRank[rank];
    }

    /**
     * The rank this rank receives from.
     *
     * @param rank a rank in {@code [0, size)}.
     * @return the previous rank in the ring (itself when size is 1).
     */
    public int left(final int rank)
    {
        final int position = positionOfRank[rank];
        return order[0 == position ? order.length - 1 : position - 1];
    }

    /**
     * The rank this rank sends to.
     *
     * @param rank a rank in {@code [0, size)}.
     * @return the next rank in the ring (itself when size is 1).
     */
    public int right(final int rank)
    {
        final int position = positionOfRank[rank];
        return order[position == order.length - 1 ? 0 : position + 1];
    }

    /**
     * First element of ring chunk {@code chunk} when {@code count} elements are split into {@link #size()} parts.
     *
     * @param count total elements.
     * @param chunk chunk index in {@code [0, size)}.
     * @return the chunk's first element.
     */
    public long chunkOffset(final long count, final int chunk)
    {
        return Partition.offset(count, order.length, chunk);
    }

    /**
     * Length of ring chunk {@code chunk}; chunk lengths differ by at most one.
     *
     * @param count total elements.
     * @param chunk chunk index in {@code [0, size)}.
     * @return the chunk's element count.
     */
    public long chunkLength(final long count, final int chunk)
    {
        return Partition.length(count, order.length, chunk);
    }

    /**
     * The ring order.
     *
     * @return a copy of the order, position → rank.
     */
    public int[] order()
    {
        return order.clone();
    }
}
