// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.Access;
import io.verbs4j.QpState;
import io.verbs4j.RemoteAccessException;
import io.verbs4j.RemoteMemory;
import io.verbs4j.WcStatus;
import io.verbs4j.spi.MappedRemoteMemory;
import io.verbs4j.spi.PeerRegionProbe;

/**
 * {@link io.verbs4j.QueuePair#mapRemote} on shm: the checks a one-sided verb makes on the peer's published region
 * table (rkey, protection domain, access bits, bounds), then a mapping of the window of the peer's region file that
 * belongs to the view alone. The view stays valid while the table entry is unchanged, the peer alive and the queue
 * pair out of ERROR.
 */
final class ShmPeerMemory implements PeerRegionProbe
{
    private final ShmQueuePair qp;
    private final ShmPeer peer;
    private final ShmPeer.Region region;

    private ShmPeerMemory(final ShmQueuePair qp, final ShmPeer peer, final ShmPeer.Region region)
    {
        this.qp = qp;
        this.peer = peer;
        this.region = region;
    }

    /**
     * @param qp            the connected queue pair.
     * @param connection    its connection.
     * @param remoteAddress peer-side address.
     * @param rkey          rkey.
     * @param length        bytes (validated).
     * @param access        REMOTE_* bits (validated).
     * @return the view.
     */
    static RemoteMemory map(final ShmQueuePair qp, final ShmConnection connection, final long remoteAddress,
        final int rkey, final long length, final int access)
    {
        final ShmPeer peer = connection.peer;
        if (peer.isDead())
        {
            throw new RemoteAccessException(WcStatus.RETRY_EXC_ERR, "the peer " + peer.deathReason());
        }
        final ShmPeer.Region region = peer.region(rkey);
        if (null == region || region.pdId != connection.peerPdId)
        {
            throw new RemoteAccessException(WcStatus.REM_ACCESS_ERR, "the peer has no region with rkey 0x" +
                Integer.toHexString(rkey) + " in the protection domain of its queue pair");
        }
        if (access != (region.access & access))
        {
            throw new RemoteAccessException(WcStatus.REM_ACCESS_ERR, "the peer registered the region with " +
                Access.toString(region.access) + ", not " + Access.toString(access));
        }
        final long offset = remoteAddress - region.address;
        if (offset < 0 || offset > region.length - length)
        {
            throw new RemoteAccessException(WcStatus.REM_ACCESS_ERR, "[0x" + Long.toHexString(remoteAddress) +
                ", +" + length + ") is outside the peer's region [0x" + Long.toHexString(region.address) + ", +" +
                region.length + ")");
        }
        if (!region.isShared())
        {
            throw new RemoteAccessException(WcStatus.REM_ACCESS_ERR, "the peer's region is a registered buffer, " +
                "which other processes cannot map; have the peer allocate it with ProtectionDomain.allocate");
        }
        return new MappedRemoteMemory(peer.mapWindow(region, offset, length), remoteAddress, access,
            new ShmPeerMemory(qp, peer, region));
    }

    /** {@inheritDoc} */
    public int status()
    {
        if (!region.isValid())
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        if (peer.isDead() || QpState.ERROR == qp.state())
        {
            return WcStatus.RETRY_EXC_ERR;
        }
        return WcStatus.SUCCESS;
    }

    /** {@inheritDoc} */
    public String describe(final int status)
    {
        if (WcStatus.REM_ACCESS_ERR == status)
        {
            return "the peer deregistered the region (rkey 0x" + Integer.toHexString(region.rkey) + ")";
        }
        return peer.isDead() ? "the peer " + peer.deathReason() :
            "queue pair " + qp.qpNumber() + " is in ERROR (disconnected)";
    }
}
