// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * Pipelined Reduce up a {@link RootedTree} (chain or binary tree), slot-sized pieces:
 * <pre>
 *   for each piece k:
 *     leaf      : send piece k of send to parent
 *     otherwise : acc = in(child 0) op send; acc = acc op in(child 1); send acc to parent (root: acc is recv)
 * </pre>
 * Non-root ranks accumulate in a work buffer the caller provides. The order of combination is fixed by the shape.
 */
public final class PipelinedReduce
{
    private final Steps steps;
    private final RootedTree tree;
    private final int rank;

    /**
     * @param steps primitives.
     * @param tree  the shape.
     */
    public PipelinedReduce(final Steps steps, final RootedTree tree)
    {
        this.steps = steps;
        this.tree = tree;
        this.rank = steps.links().rank();
    }

    /**
     * @param send  contributions.
     * @param acc   result at the root; work space of {@code count} elements elsewhere.
     * @param count elements.
     * @param type  element type.
     * @param op    operator.
     * @param root  the root.
     */
    public void run(final MemView send, final MemView acc, final long count, final DataType type, final ReduceOp op,
        final int root)
    {
        final Links links = steps.links();
        final int parentRank = tree.parent(rank, root);
        final PeerLink parent = RootedTree.NONE == parentRank ? null : links.link(parentRank);
        final int childCount = tree.childCount(rank, root);
        final PeerLink child0 = childCount > 0 ? links.link(tree.child(rank, root, 0)) : null;
        final PeerLink child1 = childCount > 1 ? links.link(tree.child(rank, root, 1)) : null;
        final int es = type.sizeBytes();
        final long piece = steps.pieceElements(type);
        for (long first = 0; first < count; first += piece)
        {
            final int len = (int)Math.min(piece, count - first);
            final long off = first * es;
            if (null == child0)
            {
                steps.send(parent, send, off, len * es);
                continue;
            }
            steps.recvReduce(child0, type, op, acc, off, send, off, len, true);
            if (null != child1)
            {
                steps.recvReduce(child1, type, op, acc, off, acc, off, len, false);
            }
            if (null != parent)
            {
                steps.send(parent, acc, off, len * es);
            }
        }
    }
}
