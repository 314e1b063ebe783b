// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import java.util.Arrays;

/**
 * {@link PeerLiveness} over the flag links: each tick raises this rank's heartbeat in its area of every flag peer's
 * region ({@link FlagSlotLayout#HEARTBEAT_OFFSET}) and samples each peer's heartbeat in this rank's region, noting
 * when it last changed. A rank inside an operation ticks about every millisecond of waiting, so a peer whose counter
 * stood still for much longer is stopped, hung, or not inside the operation at all: the rank to blame. Peers without
 * a flag link (another host) are not watched. Allocation-free; single-threaded (the thread running operations).
 */
public final class FlagHeartbeats implements PeerLiveness
{
    private final FlagPeerLink[] links;
    private final long[] lastSeen;
    private final long[] lastChangeNs;
    private long beat;

    /**
     * @param links  the flag link of each rank (null where none, and for this rank).
     * @param nowNs  when watching starts (counts as a sign of life from every peer).
     */
    FlagHeartbeats(final FlagPeerLink[] links, final long nowNs)
    {
        this.links = links;
        this.lastSeen = new long[links.length];
        this.lastChangeNs = new long[links.length];
        Arrays.fill(lastChangeNs, nowNs);
    }

    /** {@inheritDoc} */
    public void tick(final long nowNs)
    {
        beat++;
        for (int p = 0; p < links.length; p++)
        {
            final FlagPeerLink link = links[p];
            if (null != link)
            {
                link.beat(beat);
                final long seen = link.peerHeartbeat();
                if (seen != lastSeen[p])
                {
                    lastSeen[p] = seen;
                    lastChangeNs[p] = nowNs;
                }
            }
        }
    }

    /** {@inheritDoc} */
    public int silentPeer(final long nowNs, final long minSilenceNs)
    {
        int silent = -1;
        long longest = minSilenceNs - 1;
        for (int p = 0; p < links.length; p++)
        {
            if (null != links[p] && nowNs - lastChangeNs[p] > longest)
            {
                longest = nowNs - lastChangeNs[p];
                silent = p;
            }
        }
        return silent;
    }

    /** {@inheritDoc} */
    public long silenceNs(final int peer, final long nowNs)
    {
        return peer < 0 || peer >= links.length || null == links[peer] ? -1 : nowNs - lastChangeNs[peer];
    }
}
