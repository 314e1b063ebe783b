// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.topology.Partition;
import io.verbs4j.collectives.topology.RingTopology;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * Pipelined ring AllReduce (NCCL {@code runRing}; Gloo {@code allreduce_ring_chunked}): reduce-scatter then
 * all-gather around the ring, in rounds of {@code n} segments of at most one slot each, so that every link moves one
 * slot per step and consecutive rounds overlap through the slot credits.
 * <p>
 * Per round, at ring position {@code p} (segment {@code c} is reduced in ring order starting at position
 * {@code c+1} and ends, final, at position {@code c}):
 * <pre>
 *   step 0            : send       seg[p-1]                      from the send buffer
 *   steps 1 .. n-2    : recvReduceSend seg[p-j]  recv = in op send, then send recv
 *   step n-1          : recvReduceCopySend seg[p] recv = in op send (final), send it on
 *   steps n .. 2n-3   : recvCopySend   seg[p-j]  final value copied into recv, sent on
 *   step 2n-2         : recv           seg[p+1]  final value copied into recv
 * </pre>
 * Every element is reduced once per rank in a fixed order and its final value is computed on exactly one rank and
 * then copied, so all ranks get the same bits, run after run. Works in place (send == recv).
 */
public final class RingAllReduce
{
    private final Steps steps;
    private final int size;
    private final int position;
    private final PeerLink left;
    private final PeerLink right;

    /**
     * @param steps primitives.
     * @param ring  the ring.
     */
    public RingAllReduce(final Steps steps, final RingTopology ring)
    {
        this.steps = steps;
        final int rank = steps.links().rank();
        this.size = ring.size();
        this.position = ring.positionOf(rank);
        this.left = size > 1 ? steps.links().link(ring.left(rank)) : null;
        this.right = size > 1 ? steps.links().link(ring.right(rank)) : null;
    }

    /**
     * @param send  contributions.
     * @param recv  results (may be send).
     * @param count elements.
     * @param type  element type.
     * @param op    operator (AVG: sums; the caller divides).
     */
    public void run(final MemView send, final MemView recv, final long count, final DataType type, final ReduceOp op)
    {
        final int es = type.sizeBytes();
        final long roundElements = (long)size * steps.pieceElements(type);
        for (long base = 0; base < count; base += roundElements)
        {
            final long roundCount = Math.min(roundElements, count - base);

            // step 0: push segment p-1 to the next rank
            int c = mod(position - 1);
            long off = (base + Partition.offset(roundCount, size, c)) * es;
            int len = (int)Partition.length(roundCount, size, c);
            if (len > 0)
            {
                steps.send(right, send, off, len * es);
            }

            // steps 1 .. n-2: reduce the incoming partial with our contribution and pass it on
            for (int j = 2; j < size; j++)
            {
                c = mod(position - j);
                off = (base + Partition.offset(roundCount, size, c)) * es;
                len = (int)Partition.length(roundCount, size, c);
                if (len > 0)
                {
                    steps.recvReduce(left, type, op, recv, off, send, off, len, true);
                    steps.send(right, recv, off, len * es);
                }
            }

            // step n-1: our own segment becomes final; start its all-gather
            c = position;
            off = (base + Partition.offset(roundCount, size, c)) * es;
            len = (int)Partition.length(roundCount, size, c);
            if (len > 0)
            {
                steps.recvReduce(left, type, op, recv, off, send, off, len, true);
                steps.send(right, recv, off, len * es);
            }

            // steps n .. 2n-3: copy final segments and pass them on
            for (int j = 1; j < size - 1; j++)
            {
                c = mod(position - j);
                off = (base + Partition.offset(roundCount, size, c)) * es;
                len = (int)Partition.length(roundCount, size, c);
                if (len > 0)
                {
                    steps.recvCopy(left, recv, off, len * es);
                    steps.send(right, recv, off, len * es);
                }
            }

            // step 2n-2: the last final segment
            c = mod(position + 1);
            off = (base + Partition.offset(roundCount, size, c)) * es;
            len = (int)Partition.length(roundCount, size, c);
            if (len > 0)
            {
                steps.recvCopy(left, recv, off, len * es);
            }
        }
    }

    private int mod(final int value)
    {
        return ((value % size) + size) % size;
    }
}
