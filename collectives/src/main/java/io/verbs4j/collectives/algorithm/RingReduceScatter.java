// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.topology.RingTopology;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * Pipelined ring ReduceScatter (NCCL {@code reduce_scatter.h} {@code runRing}): rank {@code r} ends with block
 * {@code r} reduced over all ranks. Partial sums travel in a work buffer of {@code n} blocks (the send buffer is
 * never written).
 * <pre>
 *   per piece k:
 *     step 0        : send       block rankAt(p-1), piece k, from send
 *     steps 1..n-2  : recvReduceSend block rankAt(p-j): work = in op send, send work
 *     step n-1      : recvReduce own block: recv = in op send   (final)
 * </pre>
 */
public final class RingReduceScatter
{
    private final Steps steps;
    private final RingTopology ring;
    private final int size;
    private final int rank;
    private final int position;
    private final PeerLink left;
    private final PeerLink right;

    /**
     * @param steps primitives.
     * @param ring  the ring.
     */
    public RingReduceScatter(final Steps steps, final RingTopology ring)
    {
        this.steps = steps;
        this.ring = ring;
        this.size = ring.size();
        this.rank = steps.links().rank();
        this.position = ring.positionOf(rank);
        this.left = size > 1 ? steps.links().link(ring.left(rank)) : null;
        this.right = size > 1 ? steps.links().link(ring.right(rank)) : null;
    }

    /**
     * @param send         {@code size} blocks.
     * @param recv         this rank's block.
     * @param work         work space of {@code size} blocks.
     * @param countPerRank elements per block.
     * @param type         element type.
     * @param op           operator (AVG sums; the caller divides).
     */
    public void run(final MemView send, final MemView recv, final MemView work, final long countPerRank,
        final DataType type, final ReduceOp op)
    {
        final int es = type.sizeBytes();
        final long blockBytes = countPerRank * es;
        final long piece = steps.pieceElements(type);
        for (long first = 0; first < countPerRank; first += piece)
        {
            final int len = (int)Math.min(piece, countPerRank - first);
            final long off = first * es;
            // step 0
            steps.send(right, send, ring.rankAt(mod(position - 1)) * blockBytes + off, len * es);
            // steps 1 .. n-2
            for (int j = 2; j < size; j++)
            {
                final long at = ring.rankAt(mod(position - j)) * blockBytes + off;
                steps.recvReduce(left, type, op, work, at, send, at, len, true);
                steps.send(right, work, at, len * es);
            }
            // step n-1: own block, final
            steps.recvReduce(left, type, op, recv, off, send, rank * blockBytes + off, len, true);
        }
    }

    private int mod(final int value)
    {
        return ((value % size) + size) % size;
    }
}
