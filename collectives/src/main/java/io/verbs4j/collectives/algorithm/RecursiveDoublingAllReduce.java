// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.topology.RecursiveDoubling;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * Recursive-doubling AllReduce for small messages: {@code log2(p)} exchanges of the whole buffer, with the fold of
 * {@link RecursiveDoubling} for sizes that are not a power of two.
 * <pre>
 *   fold      : FOLDED sends its buffer to its PROXY and waits; PROXY: recv = in(folded) op send;
 *               CORE: recv = send
 *   step s    : exchange recv with doublingPeer(s) (distance 2^s);
 *               recv = (lower virtual rank's buffer) op (higher virtual rank's buffer)
 *   unfold    : PROXY sends recv to FOLDED, which receives it into recv
 * </pre>
 * Both partners of a step combine the same two operands in the same order, so every rank ends with the same bits.
 * Small payloads go inline; otherwise a received piece is reduced in only after this side's send of it completed.
 */
public final class RecursiveDoublingAllReduce
{
    private final Steps steps;
    private final RecursiveDoubling schedule;
    private final int rank;
    private final RecursiveDoubling.Role role;
    private final PeerLink foldPartner;
    private final PeerLink[] peers;
    private final boolean[] incomingFirst;

    /**
     * @param steps primitives.
     */
    public RecursiveDoublingAllReduce(final Steps steps)
    {
        this.steps = steps;
        this.rank = steps.links().rank();
        this.schedule = new RecursiveDoubling(steps.links().size());
        this.role = schedule.role(rank);
        final int partner = schedule.foldPartner(rank);
        this.foldPartner = RecursiveDoubling.NONE == partner ? null : steps.links().link(partner);
        final int stepCount = RecursiveDoubling.Role.FOLDED == role ? 0 : schedule.steps();
        this.peers = new PeerLink[stepCount];
        this.incomingFirst = new boolean[stepCount];
        for (int s = 0; s < stepCount; s++)
        {
            final int peer = schedule.doublingPeer(rank, s);
            peers[s] = steps.links().link(peer);
            incomingFirst[s] = schedule.virtualRank(peer) < schedule.virtualRank(rank);
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
        if (RecursiveDoubling.Role.FOLDED == role)
        {
            // fold: hand our data to the proxy; unfold: get the result back
            steps.sendAll(foldPartner, send, 0, bytes, type);
            steps.recvAll(foldPartner, recv, 0, bytes, type);
            return;
        }
        if (RecursiveDoubling.Role.PROXY == role)
        {
            // fold: the folded rank is the lower one
            steps.exchange(null, null, 0, 0, foldPartner, recv, 0, bytes, Steps.REDUCE_INCOMING_FIRST, type, op,
                send, 0, false);
        }
        // Out of place, the first step reads the contributions where they are and writes the result into recv:
        // no copy of send into recv first.
        final MemView first = RecursiveDoubling.Role.PROXY == role || send.sameStart(recv) ? recv : send;
        if (0 == peers.length && first != recv)
        {
            DataMover.copy(recv, 0, send, 0, bytes);
        }

        // steps: exchange with the partner at distance 2^s, lower virtual rank first
        for (int s = 0; s < peers.length; s++)
        {
            final PeerLink peer = peers[s];
            final MemView src = 0 == s ? first : recv;
            steps.exchange(peer, src, 0, bytes, peer, recv, 0, bytes,
                incomingFirst[s] ? Steps.REDUCE_INCOMING_FIRST : Steps.REDUCE_INCOMING_SECOND, type, op, src, 0,
                src == recv);
        }

        // unfold
        if (RecursiveDoubling.Role.PROXY == role)
        {
            steps.sendAll(foldPartner, recv, 0, bytes, type);
        }
    }
}
