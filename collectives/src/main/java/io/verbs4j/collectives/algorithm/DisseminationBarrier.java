// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.Links;

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
        final Links links = steps.links();
        for (int distance = 1; distance < size; distance <<= 1)
        {
            steps.send(links.link((rank + distance) % size), null, 0, 0);
            final int from = (rank - distance + size) % size;
            steps.awaitMessage(links.link(from), 0);
            links.link(from).release();
        }
    }
}
