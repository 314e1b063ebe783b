// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.topology.RingTopology;
import io.verbs4j.collectives.types.DataType;

/**
 * Pipelined ring AllGather: rank {@code r}'s block lands at {@code recv[r * block]} everywhere. Blocks are cut into
 * slot-sized pieces; for each piece index the ring runs its {@code n-1} steps, so pieces pipeline around the ring.
 * <pre>
 *   setup          : copy own block send → recv (a no-op in place)
 *   per piece k    :
 *     step 0       : send   own block's piece k to the right
 *     steps 1..n-2 : recvCopySend block of rankAt(p-j), piece k
 *     step n-1     : recv   block of rankAt(p+1), piece k
 * </pre>
 */
public final class RingAllGather
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
    public RingAllGather(final Steps steps, final RingTopology ring)
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
     * @param send          this rank's block.
     * @param recv          {@code size} blocks.
     * @param countPerRank  elements per block.
     * @param type          element type.
     */
    public void run(final MemView send, final MemView recv, final long countPerRank, final DataType type)
    {
        final int es = type.sizeBytes();
        final long blockBytes = countPerRank * es;
        final long own = rank * blockBytes;
        DataMover.copy(recv, own, send, 0, blockBytes);     // a no-op in place (same address)
        final int piece = steps.pieceBytes(type);
        for (long off = 0; off < blockBytes; off += piece)
        {
            final int len = (int)Math.min(piece, blockBytes - off);
            // step 0
            steps.send(right, recv, own + off, len);
            // steps 1 .. n-2
            for (int j = 1; j < size - 1; j++)
            {
                final long at = ring.rankAt(mod(position - j)) * blockBytes + off;
                steps.recvCopy(left, recv, at, len);
                steps.send(right, recv, at, len);
            }
            // step n-1
            steps.recvCopy(left, recv, ring.rankAt(mod(position + 1)) * blockBytes + off, len);
        }
    }

    private int mod(final int value)
    {
        return ((value % size) + size) % size;
    }
}
