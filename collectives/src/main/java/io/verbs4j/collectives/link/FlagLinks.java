// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.verbs4j.Access;
import io.verbs4j.Capabilities;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.RemoteMemory;
import io.verbs4j.collectives.algorithm.Steps;
import org.agrona.BufferUtil;

/**
 * The small-message link set: a {@link FlagPeerLink} to every peer whose queue pair offers
 * {@link Capabilities#DIRECT_PEER_ACCESS} (same host), and the {@link VerbsLinks}' own link to the others. Waiting on
 * a flag link is its acquire-load alone: {@link #poll()} drives the verbs completion queues only when some peer has
 * no flag link; {@link #scan()} (every millisecond of waiting) drives them anyway, for liveness, and checks the
 * peer-memory views.
 * <p>
 * Set up collectively by {@link #establish}: every rank allocates one flag region (REMOTE_WRITE) in the protection
 * domain of its direct-access queue pairs and sends each such peer a {@link FlagLinkOffer} over the verbs link;
 * a pair of ranks uses a flag link when both offered one with the same geometry, and each maps its area of the
 * other's region. Does not own the verbs links.
 */
public final class FlagLinks implements Links
{
    private final VerbsLinks verbs;
    private final PeerLink[] byRank;
    private final FlagPeerLink[] flagLinks;
    private final boolean anyVerbsPeer;
    private final MemoryRegion region;
    private final FlagHeartbeats heartbeats;
    private int failedPeer = -1;
    private String failureReason;
    private boolean closed;

    private FlagLinks(final VerbsLinks verbs, final FlagPeerLink[] flagLinks, final MemoryRegion region)
    {
        this.verbs = verbs;
        this.flagLinks = flagLinks;
        this.region = region;
        this.heartbeats = new FlagHeartbeats(flagLinks, System.nanoTime());
        this.byRank = new PeerLink[verbs.size()];
        boolean verbsPeer = false;
        for (int p = 0; p < byRank.length; p++)
        {
            if (p == verbs.rank())
            {
                continue;
            }
            byRank[p] = null != flagLinks[p] ? flagLinks[p] : verbs.link(p);
            verbsPeer |= null == flagLinks[p];
        }
        this.anyVerbsPeer = verbsPeer;
    }

    /**
     * Offers, exchanges and maps flag links with every direct-access peer. Collective: every rank calls it right
     * after the verbs links are connected, before any operation.
     *
     * @param verbs  the connected verbs links.
     * @param steps  primitives over {@code verbs} (for the exchange).
     * @param offer  this rank's settings.
     * @return the link set, or null when no peer has a flag link.
     * @throws IllegalStateException if a peer offered another geometry (the ranks' settings differ).
     */
    public static FlagLinks establish(final VerbsLinks verbs, final Steps steps, final FlagLinkOffer offer)
    {
        final int rank = verbs.rank();
        final int size = verbs.size();
        ProtectionDomain pd = null;
        final boolean[] capable = new boolean[size];
        for (int p = 0; p < size; p++)
        {
            if (p == rank)
            {
                continue;
            }
            final QueuePair qp = verbs.verbsLink(p).queuePair();
            final ProtectionDomain qpPd = qp.protectionDomain();
            if (qpPd.device().capabilities().has(Capabilities.DIRECT_PEER_ACCESS) && (null == pd || pd == qpPd))
            {
                capable[p] = true;
                pd = qpPd;
            }
        }
        if (null == pd)
        {
            return null;
        }
        final FlagSlotLayout layout = offer.layout();
        final MemoryRegion region = offer.enabled() ?
            pd.allocate(layout.regionBytes(size), Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ) :
            null;
        final FlagPeerLink[] links = new FlagPeerLink[size];
        try
        {
            final FlagLinkOffer[] offers = exchange(verbs, steps, offer, region, capable);
            if (null == region)
            {
                return null;
            }
            if (region.contiguousLength(0) < region.length())
            {
                throw new IllegalStateException("flag region of " + region.length() + " bytes is not contiguous");
            }
            final MemView inbox = new MemView().wrapRegion(region, 0, region.length());
            int count = 0;
            for (int p = 0; p < size; p++)
            {
                final FlagLinkOffer theirs = offers[p];
                if (null == theirs || !theirs.enabled())
                {
                    continue;
                }
                if (!theirs.sameGeometry(offer))
                {
                    throw new IllegalStateException("rank " + p + " offers flag links of " + theirs.describe() +
                        " and rank " + rank + " of " + offer.describe() + ": set " +
                        "verbs4j.collectives.flag.* the same on every rank");
                }
                final RemoteMemory remote = verbs.verbsLink(p).queuePair().mapRemote(
                    theirs.address() + layout.areaOffset(rank), theirs.rkey(), layout.areaBytes(),
                    Access.REMOTE_READ | Access.REMOTE_WRITE);
                links[p] = new FlagPeerLink(p, layout, verbs.link(p), remote, inbox, region.address());
                count++;
            }
            if (0 == count)
            {
                region.close();
                return null;
            }
            return new FlagLinks(verbs, links, region);
        }
        catch (final RuntimeException ex)
        {
            for (final FlagPeerLink link : links)
            {
                if (null != link)
                {
                    link.close();
                }
            }
            if (null != region)
            {
                region.close();
            }
            throw ex;
        }
    }

    private static FlagLinkOffer[] exchange(final VerbsLinks verbs, final Steps steps, final FlagLinkOffer offer,
        final MemoryRegion region, final boolean[] capable)
    {
        final int size = verbs.size();
        final ByteBuffer out = ByteBuffer.allocateDirect(FlagLinkOffer.LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        offer.encode(out, null == region ? 0 : region.address(), null == region ? 0 : region.rkey());
        final MemView outView = new MemView().wrapNative(BufferUtil.address(out), FlagLinkOffer.LENGTH);
        final ByteBuffer in = ByteBuffer.allocateDirect(FlagLinkOffer.LENGTH * size).order(ByteOrder.LITTLE_ENDIAN);
        final MemView inView = new MemView().wrapNative(BufferUtil.address(in), (long)FlagLinkOffer.LENGTH * size);
        for (int p = 0; p < size; p++)
        {
            if (capable[p])
            {
                steps.send(verbs.link(p), outView, 0, FlagLinkOffer.LENGTH);
            }
        }
        final FlagLinkOffer[] offers = new FlagLinkOffer[size];
        for (int p = 0; p < size; p++)
        {
            if (capable[p])
            {
                steps.recvCopy(verbs.link(p), inView, (long)p * FlagLinkOffer.LENGTH, FlagLinkOffer.LENGTH);
                offers[p] = FlagLinkOffer.decode(in, p * FlagLinkOffer.LENGTH);
            }
        }
        steps.awaitSendsComplete();
        return offers;
    }

    /** @return the heartbeats of the flag peers (for the waiters, whichever links an operation runs on). */
    public PeerLiveness heartbeats()
    {
        return heartbeats;
    }

    /**
     * @param peer a peer.
     * @return true when it is reached through a flag link.
     */
    public boolean isFlagPeer(final int peer)
    {
        return null != flagLinks[peer];
    }

    /** {@inheritDoc} */
    public int rank()
    {
        return verbs.rank();
    }

    /** {@inheritDoc} */
    public int size()
    {
        return verbs.size();
    }

    /** {@inheritDoc} */
    public PeerLink link(final int peer)
    {
        return byRank[peer];
    }

    /** @return the peers reached through a flag link. */
    public int flagPeerCount()
    {
        int count = 0;
        for (final FlagPeerLink link : flagLinks)
        {
            if (null != link)
            {
                count++;
            }
        }
        return count;
    }

    /** {@inheritDoc} */
    public int poll()
    {
        return anyVerbsPeer ? verbs.poll() : 0;
    }

    /** {@inheritDoc} */
    public void scan()
    {
        verbs.poll();
        verbs.scan();
        for (final FlagPeerLink link : flagLinks)
        {
            // A message the peer stored before it went is still delivered: only a link with none waiting fails.
            // Every such link is marked (the final barrier asks about the one it waits for); the first is reported.
            if (null != link && !link.isFailed() && !link.peerMemoryValid() && !link.hasMessage())
            {
                if (failedPeer < 0)
                {
                    failedPeer = link.peer();
                    failureReason = "its flag region went away (it closed, deregistered or died)";
                }
                link.fail();
            }
        }
    }

    /** {@inheritDoc} */
    public int failedPeer()
    {
        final int verbsFailed = verbs.failedPeer();
        return verbsFailed >= 0 ? verbsFailed : failedPeer;
    }

    /** {@inheritDoc} */
    public String failureReason()
    {
        return verbs.failedPeer() >= 0 ? verbs.failureReason() : failureReason;
    }

    /** {@inheritDoc} */
    public void breakAll(final int culprit)
    {
        for (final FlagPeerLink link : flagLinks)
        {
            if (null != link)
            {
                link.fail();
            }
        }
        verbs.breakAll(culprit);
    }

    /** Closes the flag views and frees the flag region (the verbs links stay with their owner). Idempotent. */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final FlagPeerLink link : flagLinks)
        {
            if (null != link)
            {
                link.close();
            }
        }
        region.close();
    }
}
