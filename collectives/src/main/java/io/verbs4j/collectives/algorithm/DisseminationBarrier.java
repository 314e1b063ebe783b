// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.PeerLink;

/**
 * Dissemination barrier (Hensgen, Finkel and Manber): {@code ceil(log2 n)} rounds of zero-byte messages.
 * <pre>
 *   round k (distance d = 2^k &lt; n): send to (r + d) mod n, then receive from (r - d) mod n
 * </pre>
 * After the last round every rank has heard, directly or not, from every other, so none leaves before all arrived.
 */
public final class DisseminationBarrier
{
    private final Steps steps;
    private final int size;
    private final int rank;

    /**
     * @param steps primitives.
     */
    public DisseminationBarrier(final Steps steps)
    {
        this.steps = steps;
        this.size = steps.links().size();
        this.rank = steps.links().rank();
    }

    /** Runs the barrier. */
    public void run()
    {
        run(false);
    }

    /**
     * Runs the barrier.
     *
     * @param leaving true for the final barrier of {@code close()}: its messages are {@link PeerLink#LEAVE} messages
     *                (a peer in another call reports that this rank left), and it takes both kinds from peers (a
     *                peer in a plain barrier then reports this rank left; this rank is leaving anyway).
     */
    public void run(final boolean leaving)
    {
        final Links links = steps.links();
        for (int distance = 1; distance < size; distance <<= 1)
        {
            steps.send(links.link((rank + distance) % size), null, 0, leaving ? PeerLink.LEAVE : 0);
            final int from = (rank - distance + size) % size;
            if (leaving)
            {
                steps.awaitBarrierMessage(links.link(from));
            }
            else
            {
                steps.awaitMessage(links.link(from), 0);
            }
            links.link(from).release();
        }
    }
}
