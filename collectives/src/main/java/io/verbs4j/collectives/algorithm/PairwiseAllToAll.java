// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.types.DataType;

/**
 * Pairwise-exchange AllToAll: block {@code j} of rank {@code i}'s send buffer lands in block {@code i} of rank
 * {@code j}'s receive buffer.
 * <pre>
 *   step 0      : copy own block send[r] → recv[r]
 *   step s=1..n-1 : send block (r+s) to rank r+s while receiving block (r-s) from rank r-s (one exchange, pieces)
 * </pre>
 * Each link carries the messages of exactly one step, so the order on every link is fixed.
 */
public final class PairwiseAllToAll
{
    private final Steps steps;
    private final int size;
    private final int rank;

    /**
     * @param steps primitives.
     */
    public PairwiseAllToAll(final Steps steps)
    {
        this.steps = steps;
        this.size = steps.links().size();
        this.rank = steps.links().rank();
    }

    /**
     * @param send         {@code size} blocks (not the same memory as recv).
     * @param recv         {@code size} blocks.
     * @param countPerRank elements per block.
     * @param type         element type.
     */
    public void run(final MemView send, final MemView recv, final long countPerRank, final DataType type)
    {
        final Links links = steps.links();
        final long block = countPerRank * type.sizeBytes();
        DataMover.copy(recv, rank * block, send, rank * block, block);
        for (int s = 1; s < size; s++)
        {
            final int to = (rank + s) % size;
            final int from = (rank - s + size) % size;
            steps.exchange(links.link(to), send, to * block, block, links.link(from), recv, from * block, block,
                Steps.COPY, type, null, null, 0, false);
        }
    }
}
