// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.topology.Partition;
import io.verbs4j.collectives.topology.RecursiveDoubling;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * Rabenseifner's AllReduce: recursive halving (reduce-scatter), then recursive doubling (all-gather), with the fold
 * of {@link RecursiveDoubling} for sizes that are not a power of two. Moves {@code 2·S·(p-1)/p} bytes per rank in
 * {@code 2·log2(p)} steps: good for medium messages.
 * <pre>
 *   fold            : as in {@link RecursiveDoublingAllReduce}
 *   halving step s  : split the current block [lo, hi) in two (lower half gets the extra element); send the half
 *                     we give up to halvingPeer(s), receive the peer's copy of the half we keep,
 *                     keep = (lower virtual rank's) op (higher's); the block becomes the kept half
 *   doubling step s : (s = log2(p)-1 .. 0) send our block to the same peer, receive its block into the other half
 *   unfold          : PROXY sends the result to FOLDED
 * </pre>
 * Each element's final value is computed on one rank and copied to the others: identical bits everywhere.
 */
public final class HalvingDoublingAllReduce
{
    private final Steps steps;
    private final RecursiveDoubling.Role role;
    private final PeerLink foldPartner;
    private final PeerLink[] peers;
    private final boolean[] incomingFirst;
    private final boolean[] keepLower;
    private final long[] blockLo;
    private final long[] blockHi;

    /**
     * @param steps primitives.
     */
    public HalvingDoublingAllReduce(final Steps steps)
    {
        this.steps = steps;
        final int rank = steps.links().rank();
        final RecursiveDoubling schedule = new RecursiveDoubling(steps.links().size());
        this.role = schedule.role(rank);
        final int partner = schedule.foldPartner(rank);
        this.foldPartner = RecursiveDoubling.NONE == partner ? null : steps.links().link(partner);
        final int stepCount = RecursiveDoubling.Role.FOLDED == role ? 0 : schedule.steps();
        this.peers = new PeerLink[stepCount];
        this.incomingFirst = new boolean[stepCount];
        this.keepLower = new boolean[stepCount];
        this.blockLo = new long[stepCount];
        this.blockHi = new long[stepCount];
        for (int s = 0; s < stepCount; s++)
        {
            final int peer = schedule.halvingPeer(rank, s);
            peers[s] = steps.links().link(peer);
            incomingFirst[s] = schedule.virtualRank(peer) < schedule.virtualRank(rank);
            keepLower[s] = schedule.keepsLowerHalf(rank, s);
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
        final int es = type.sizeBytes();
        final long bytes = count * es;
        if (RecursiveDoubling.Role.FOLDED == role)
        {
            steps.sendAll(foldPartner, send, 0, bytes, type);
            steps.recvAll(foldPartner, recv, 0, bytes, type);
            return;
        }
        if (RecursiveDoubling.Role.PROXY == role)
        {
            steps.exchange(null, null, 0, 0, foldPartner, recv, 0, bytes, Steps.REDUCE_INCOMING_FIRST, type, op,
                send, 0, false);
        }
        // Out of place, the first halving step reads the contributions where they are and writes the kept half
        // into recv: the half given away is never copied (the doubling fills it in).
        final MemView first = RecursiveDoubling.Role.PROXY == role || send.sameStart(recv) ? recv : send;
        if (0 == peers.length && first != recv)
        {
            DataMover.copy(recv, 0, send, 0, bytes);
        }

        // halving: reduce-scatter
        long lo = 0;
        long hi = count;
        for (int s = 0; s < peers.length; s++)
        {
            blockLo[s] = lo;
            blockHi[s] = hi;
            final long mid = lo + Partition.length(hi - lo, 2, 0);
            final long keepLo = keepLower[s] ? lo : mid;
            final long keepHi = keepLower[s] ? mid : hi;
            final long giveLo = keepLower[s] ? mid : lo;
            final long giveHi = keepLower[s] ? hi : mid;
            final MemView src = 0 == s ? first : recv;
            steps.exchange(peers[s], src, giveLo * es, (giveHi - giveLo) * es,
                peers[s], recv, keepLo * es, (keepHi - keepLo) * es,
                incomingFirst[s] ? Steps.REDUCE_INCOMING_FIRST : Steps.REDUCE_INCOMING_SECOND, type, op,
                src, keepLo * es, false);
            lo = keepLo;
            hi = keepHi;
        }

        // doubling: all-gather, same peers in reverse
        for (int s = peers.length - 1; s >= 0; s--)
        {
            final long otherLo = keepLower[s] ? hi : blockLo[s];
            final long otherHi = keepLower[s] ? blockHi[s] : lo;
            steps.exchange(peers[s], recv, lo * es, (hi - lo) * es,
                peers[s], recv, otherLo * es, (otherHi - otherLo) * es, Steps.COPY, type, op, null, 0, false);
            lo = blockLo[s];
            hi = blockHi[s];
        }

        if (RecursiveDoubling.Role.PROXY == role)
        {
            steps.sendAll(foldPartner, recv, 0, bytes, type);
        }
    }
}
