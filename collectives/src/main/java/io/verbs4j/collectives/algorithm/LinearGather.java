// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.types.DataType;

/**
 * Gather and Scatter through the root, one link per peer (the root's links work in parallel up to the credit window):
 * <pre>
 *   gather  : root copies its block, then receives block q from each rank q in rank order; others send theirs
 *   scatter : root copies its block, then sends block q to each rank q in rank order; others receive theirs
 * </pre>
 */
public final class LinearGather
{
    private final Steps steps;
    private final int size;
    private final int rank;

    /**
     * @param steps primitives.
     */
    public LinearGather(final Steps steps)
    {
        this.steps = steps;
        this.size = steps.links().size();
        this.rank = steps.links().rank();
    }

    /**
     * @param send         own block.
     * @param recv         {@code size} blocks at the root (ignored elsewhere).
     * @param countPerRank elements per block.
     * @param type         element type.
     * @param root         the root.
     */
    public void gather(final MemView send, final MemView recv, final long countPerRank, final DataType type,
        final int root)
    {
        final Links links = steps.links();
        final long block = countPerRank * type.sizeBytes();
        if (rank != root)
        {
            steps.sendAll(links.link(root), send, 0, block, type);
            return;
        }
        DataMover.copy(recv, rank * block, send, 0, block);
        for (int q = 0; q < size; q++)
        {
            if (q != root)
            {
                steps.recvAll(links.link(q), recv, q * block, block, type);
            }
        }
    }

    /**
     * @param send         {@code size} blocks at the root (ignored elsewhere).
     * @param recv         own block.
     * @param countPerRank elements per block.
     * @param type         element type.
     * @param root         the root.
     */
    public void scatter(final MemView send, final MemView recv, final long countPerRank, final DataType type,
        final int root)
    {
        final Links links = steps.links();
        final long block = countPerRank * type.sizeBytes();
        if (rank != root)
        {
            steps.recvAll(links.link(root), recv, 0, block, type);
            return;
        }
        DataMover.copy(recv, 0, send, rank * block, block);
        for (int q = 0; q < size; q++)
        {
            if (q != root)
            {
                steps.sendAll(links.link(q), send, q * block, block, type);
            }
        }
    }
}
