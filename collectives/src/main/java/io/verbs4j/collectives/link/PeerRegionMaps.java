// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import io.verbs4j.Access;
import io.verbs4j.QueuePair;
import io.verbs4j.RemoteMemory;

/**
 * Peers' registered regions mapped into this process for reading ({@link QueuePair#mapRemote}), kept across calls:
 * a training loop passes the same buffers every step, and mapping is a setup cost (tens of microseconds), not a
 * per-call one. Each peer has a few entries, keyed by the region's rkey, address and length as the peer described
 * them. An entry whose view turned invalid (the peer deregistered the region, or died) is dropped at the next
 * lookup for that peer, so its pages go with it, and is mapped again if described again; the oldest entry makes room
 * for a new region.
 * <p>
 * Single-threaded (the thread running the operation); {@link #close()} unmaps everything.
 */
public final class PeerRegionMaps implements AutoCloseable
{
    /** Regions remembered per peer. */
    static final int ENTRIES_PER_PEER = 8;

    private final QueuePair[] queuePairs;
    private final int[][] rkeys;
    private final long[][] addresses;
    private final long[][] lengths;
    private final RemoteMemory[][] views;
    private final int[] nextVictim;

    /**
     * @param queuePairs connected queue pairs by peer rank, each with direct peer access (null for this rank and for
     *                   peers never mapped).
     */
    public PeerRegionMaps(final QueuePair[] queuePairs)
    {
        final int size = queuePairs.length;
        this.queuePairs = queuePairs.clone();
        this.rkeys = new int[size][ENTRIES_PER_PEER];
        this.addresses = new long[size][ENTRIES_PER_PEER];
        this.lengths = new long[size][ENTRIES_PER_PEER];
        this.views = new RemoteMemory[size][ENTRIES_PER_PEER];
        this.nextVictim = new int[size];
    }

    /**
     * The local address at which this process reads the peer's bytes {@code [remoteAddress, remoteAddress + bytes)}.
     *
     * @param peer          the peer's rank.
     * @param rkey          its region's rkey.
     * @param regionAddress its region's first byte, peer-side.
     * @param regionLength  its region's length (at most {@link Integer#MAX_VALUE}).
     * @param remoteAddress peer-side address of the first byte wanted.
     * @param bytes         bytes wanted.
     * @return the local native address of {@code remoteAddress}, readable for {@code bytes} bytes.
     * @throws IllegalStateException        if the range is not inside the region the peer described.
     * @throws io.verbs4j.RemoteAccessException if the peer refuses the mapping.
     */
    public long address(final int peer, final int rkey, final long regionAddress, final long regionLength,
        final long remoteAddress, final long bytes)
    {
        if (remoteAddress < regionAddress || bytes < 0 || remoteAddress - regionAddress > regionLength - bytes)
        {
            throw new IllegalStateException("rank " + peer + " described [0x" + Long.toHexString(remoteAddress) +
                ", +" + bytes + ") outside its region [0x" + Long.toHexString(regionAddress) + ", +" + regionLength +
                ")");
        }
        final RemoteMemory view = view(peer, rkey, regionAddress, regionLength);
        return view.buffer().addressOffset() + (remoteAddress - regionAddress);
    }

    private RemoteMemory view(final int peer, final int rkey, final long regionAddress, final long regionLength)
    {
        final RemoteMemory[] peerViews = views[peer];
        RemoteMemory found = null;
        for (int i = 0; i < ENTRIES_PER_PEER; i++)
        {
            final RemoteMemory view = peerViews[i];
            if (null == view)
            {
                continue;
            }
            if (!view.isValid())
            {
                // The peer freed that region: let go of its pages now rather than when the entry is evicted.
                view.close();
                peerViews[i] = null;
            }
            else if (rkeys[peer][i] == rkey && addresses[peer][i] == regionAddress && lengths[peer][i] == regionLength)
            {
                found = view;
            }
        }
        if (null != found)
        {
            return found;
        }
        if (regionLength < 1 || regionLength > Integer.MAX_VALUE)
        {
            throw new IllegalStateException("rank " + peer + " described a region of " + regionLength +
                " bytes: direct peer access maps 1 byte to 2 GiB - 1");
        }
        final RemoteMemory view = queuePairs[peer].mapRemote(regionAddress, rkey, regionLength, Access.REMOTE_READ);
        final int slot = freeSlot(peer);
        peerViews[slot] = view;
        rkeys[peer][slot] = rkey;
        addresses[peer][slot] = regionAddress;
        lengths[peer][slot] = regionLength;
        return view;
    }

    private int freeSlot(final int peer)
    {
        final RemoteMemory[] peerViews = views[peer];
        for (int i = 0; i < ENTRIES_PER_PEER; i++)
        {
            if (null == peerViews[i])
            {
                return i;
            }
        }
        final int victim = nextVictim[peer];
        nextVictim[peer] = (victim + 1) % ENTRIES_PER_PEER;
        peerViews[victim].close();
        peerViews[victim] = null;
        return victim;
    }

    /** Unmaps every remembered region. */
    public void close()
    {
        for (final RemoteMemory[] peerViews : views)
        {
            for (int i = 0; i < peerViews.length; i++)
            {
                if (null != peerViews[i])
                {
                    peerViews[i].close();
                    peerViews[i] = null;
                }
            }
        }
    }
}
