// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.topology.DoubleBinaryTree;
import io.verbs4j.collectives.topology.Partition;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * Pipelined double-binary-tree AllReduce (NCCL {@code runTreeUpDown} over {@link DoubleBinaryTree}): tree 0 carries
 * the first half of the data and tree 1 the second, so that every rank forwards data in at most one tree (even
 * sizes). Each half is cut into slot-sized pieces; piece {@code k} goes up while piece {@code k - LAG} comes down,
 * so both directions of the links work at once.
 * <pre>
 *   for k in 0 .. P + LAG - 1, for tree t in {0, 1}:
 *     up(k)     : leaf      : send     piece to parent                    (from the send buffer)
 *                 interior  : recvReduce from child 0 (recv = in op send), recvReduce child 1 (recv = recv op in),
 *                             send recv to parent
 *                 root      : the same two recvReduce: recv is final
 *     down(k-LAG): non-root : recv piece from parent into recv; root: nothing
 *                 all       : send recv to each child
 * </pre>
 * Every rank runs the same (k, t, phase) sequence, and within one step a rank sends at most one message per link,
 * so the credit window cannot deadlock. The root computes each final value once and broadcasts it: identical bits
 * everywhere.
 */
public final class TreeAllReduce
{
    private static final int LAG = 2;

    private final Steps steps;
    private final PeerLink[] parent = new PeerLink[DoubleBinaryTree.TREE_COUNT];
    private final PeerLink[][] children = new PeerLink[DoubleBinaryTree.TREE_COUNT][];
    private final long[] halfBase = new long[DoubleBinaryTree.TREE_COUNT];
    private final long[] halfCount = new long[DoubleBinaryTree.TREE_COUNT];

    /**
     * @param steps primitives.
     * @param tree  the trees.
     */
    public TreeAllReduce(final Steps steps, final DoubleBinaryTree tree)
    {
        this.steps = steps;
        final int rank = steps.links().rank();
        for (int t = 0; t < DoubleBinaryTree.TREE_COUNT; t++)
        {
            final int p = tree.parent(t, rank);
            parent[t] = DoubleBinaryTree.NONE == p ? null : steps.links().link(p);
            children[t] = new PeerLink[tree.childCount(t, rank)];
            for (int i = 0; i < children[t].length; i++)
            {
                children[t][i] = steps.links().link(tree.child(t, rank, i));
            }
        }
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
        final long piece = steps.pieceElements(type);
        halfCount[0] = Partition.length(count, 2, 0);
        halfCount[1] = count - halfCount[0];
        halfBase[0] = 0;
        halfBase[1] = halfCount[0];
        final long pieces = (halfCount[0] + piece - 1) / piece;
        for (long k = 0; k < pieces + LAG; k++)
        {
            if (k < pieces)
            {
                up(0, k, piece, send, recv, type, op);
                up(1, k, piece, send, recv, type, op);
            }
            if (k >= LAG)
            {
                down(0, k - LAG, piece, recv, type);
                down(1, k - LAG, piece, recv, type);
            }
        }
    }

    private void up(final int t, final long k, final long piece, final MemView send, final MemView recv,
        final DataType type, final ReduceOp op)
    {
        final long first = k * piece;
        if (first >= halfCount[t])
        {
            return;
        }
        final int len = (int)Math.min(piece, halfCount[t] - first);
        final int es = type.sizeBytes();
        final long off = (halfBase[t] + first) * es;
        final PeerLink[] kids = children[t];
        if (0 == kids.length)
        {
            steps.send(parent[t], send, off, len * es);
            return;
        }
        steps.recvReduce(kids[0], type, op, recv, off, send, off, len, true);
        if (2 == kids.length)
        {
            steps.recvReduce(kids[1], type, op, recv, off, recv, off, len, false);
        }
        if (null != parent[t])
        {
            steps.send(parent[t], recv, off, len * es);
        }
    }

    private void down(final int t, final long k, final long piece, final MemView recv, final DataType type)
    {
        final long first = k * piece;
        if (first >= halfCount[t])
        {
            return;
        }
        final int len = (int)Math.min(piece, halfCount[t] - first);
        final int es = type.sizeBytes();
        final long off = (halfBase[t] + first) * es;
        if (null != parent[t])
        {
            steps.recvCopy(parent[t], recv, off, len * es);
        }
        for (final PeerLink child : children[t])
        {
            steps.send(child, recv, off, len * es);
        }
    }
}
