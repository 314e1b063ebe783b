// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import java.nio.ByteBuffer;

import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.agrona.BufferUtil;

/**
 * One-shot AllReduce for small messages: every rank sends its whole buffer to every other rank in one round and
 * folds the {@code p} contributions itself, in rank order.
 * <pre>
 *   for each piece (at most one link slot):
 *     send      : the piece to every peer (peers in the order rank+1, rank+2, ... so that no rank is everyone's first)
 *     wait      : one message from every peer
 *     fold      : recv = ((c0 op c1) op c2) ... op c(p-1), c(rank) read from this rank's buffer
 * </pre>
 * One round of latency where recursive doubling takes {@code log2(p)} (plus two for a fold at sizes that are not a
 * power of two), for {@code p - 1} times the bytes sent and folded: the trade pays where a round costs more than the
 * bytes — small messages, and above all more ranks than cores, where every round waits for the scheduler to run the
 * partner. Every rank folds the same operands in the same order with the same kernel, so every rank ends with the
 * same bits.
 * <p>
 * In place, a rank's own contribution would be overwritten by the fold before its turn (ranks 2 and up): the piece is
 * first copied to a work buffer of one slot, allocated at the first such call and kept. Received pieces are read in
 * the links' inboxes and released after the fold. Single-threaded (the operation's thread).
 */
public final class OneShotAllReduce
{
    private final Steps steps;
    private final int rank;
    private final int size;
    private final PeerLink[] sendOrder;
    private final PeerLink[] byRank;
    private final MemView own = new MemView();
    private ByteBuffer ownCopy;

    /**
     * @param steps primitives.
     */
    public OneShotAllReduce(final Steps steps)
    {
        this.steps = steps;
        this.rank = steps.links().rank();
        this.size = steps.links().size();
        this.sendOrder = new PeerLink[size - 1];
        this.byRank = new PeerLink[size];
        for (int i = 1; i < size; i++)
        {
            sendOrder[i - 1] = steps.links().link((rank + i) % size);
        }
        for (int r = 0; r < size; r++)
        {
            byRank[r] = r == rank ? null : steps.links().link(r);
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
        final long bytes = count * type.sizeBytes();
        final int piece = steps.pieceBytes(type);
        final boolean inPlace = send.sameStart(recv);
        for (long off = 0; off < bytes; off += piece)
        {
            final int length = (int)Math.min(piece, bytes - off);
            for (final PeerLink peer : sendOrder)
            {
                steps.send(peer, send, off, length);
            }
            for (final PeerLink peer : sendOrder)
            {
                steps.awaitMessage(peer, length);
            }
            if (inPlace)
            {
                // the sends may still read this piece (zero-copy links), and the fold writes it
                steps.awaitSendsComplete();
            }
            // in place, the fold overwrites this rank's piece before its turn from rank 2 on
            final boolean copyOwn = inPlace && rank >= 2;
            final MemView mine = copyOwn ? ownCopy(send, off, length) : send;
            final long mineOff = copyOwn ? 0 : off;
            fold(recv, off, mine, mineOff, length / type.sizeBytes(), type, op);
            for (final PeerLink peer : sendOrder)
            {
                peer.release();
            }
        }
    }

    private void fold(final MemView recv, final long off, final MemView mine, final long mineOff, final int count,
        final DataType type, final ReduceOp op)
    {
        DataMover.reduce(type, op, recv, off, operand(0, mine), operandOffset(0, mineOff),
            operand(1, mine), operandOffset(1, mineOff), count);
        for (int r = 2; r < size; r++)
        {
            DataMover.reduce(type, op, recv, off, recv, off, operand(r, mine), operandOffset(r, mineOff), count);
        }
    }

    private MemView operand(final int r, final MemView mine)
    {
        return r == rank ? mine : byRank[r].inbox();
    }

    private long operandOffset(final int r, final long mineOff)
    {
        return r == rank ? mineOff : byRank[r].messageOffset();
    }

    private MemView ownCopy(final MemView send, final long off, final int length)
    {
        if (null == ownCopy)
        {
            ownCopy = BufferUtil.allocateDirectAligned(Math.max(64, steps.pieceBytes(DataType.INT8)), 64);
        }
        own.wrapNative(BufferUtil.address(ownCopy), length);
        DataMover.copy(own, 0, send, off, length);
        return own;
    }
}
