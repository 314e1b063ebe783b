// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.types.DataType;

/**
 * Pipelined Broadcast down a {@link RootedTree} (chain or binary tree), slot-sized pieces:
 * <pre>
 *   for each piece k:
 *     non-root : recv piece k from parent into buf
 *     all      : send piece k of buf to each child
 * </pre>
 * Receivers copy once from their inbox into the buffer and forward from the buffer without another copy.
 */
public final class PipelinedBroadcast
{
    private final Steps steps;
    private final RootedTree tree;
    private final int rank;

    /**
     * @param steps primitives.
     * @param tree  the shape.
     */
    public PipelinedBroadcast(final Steps steps, final RootedTree tree)
    {
        this.steps = steps;
        this.tree = tree;
        this.rank = steps.links().rank();
    }

    /**
     * @param buffer data at the root, result elsewhere.
     * @param count  elements.
     * @param type   element type.
     * @param root   the root.
     */
    public void run(final MemView buffer, final long count, final DataType type, final int root)
    {
        final Links links = steps.links();
        final int parent = tree.parent(rank, root);
        final int childCount = tree.childCount(rank, root);
        final long bytes = count * type.sizeBytes();
        final int piece = steps.pieceBytes(type);
        for (long off = 0; off < bytes; off += piece)
        {
            final int len = (int)Math.min(piece, bytes - off);
            if (RootedTree.NONE != parent)
            {
                steps.recvCopy(links.link(parent), buffer, off, len);
            }
            for (int i = 0; i < childCount; i++)
            {
                steps.send(links.link(tree.child(rank, root, i)), buffer, off, len);
            }
        }
    }
}
