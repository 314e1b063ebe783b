// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import java.util.ArrayList;
import java.util.List;

import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.ProtectionDomain;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * {@link Links} over verbs: the devices a communicator opened (one per provider it uses), one completion queue per
 * device shared by that device's links, and the per-peer {@link VerbsPeerLink}s. {@link #poll()} drains every
 * completion queue into the links (the queue pair number says which link; the wrId says receive, credit or data)
 * and retries credit returns that found the send queue full. Allocation-free after setup.
 */
public final class VerbsLinks implements Links, CompletionHandler
{
    private static final int POLL_LIMIT = 64;
    private static final long NOTICE_GRACE_NS = 20_000_000L;

    /** One opened device with what the links on it share. */
    public static final class DeviceSlot
    {
        final Device device;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final Int2ObjectHashMap<VerbsPeerLink> byQpNumber = new Int2ObjectHashMap<>();

        /**
         * @param device the device.
         * @param pd     its protection domain for this communicator.
         * @param cq     the completion queue of all its links.
         */
        public DeviceSlot(final Device device, final ProtectionDomain pd, final CompletionQueue cq)
        {
            this.device = device;
            this.pd = pd;
            this.cq = cq;
        }

        /** @return the device. */
        public Device device()
        {
            return device;
        }

        /** @return the protection domain. */
        public ProtectionDomain pd()
        {
            return pd;
        }

        /** @return the completion queue. */
        public CompletionQueue cq()
        {
            return cq;
        }
    }

    private final int rank;
    private final int size;
    private final VerbsPeerLink[] links;
    private final VerbsPeerLink[] linkList;
    private final DeviceSlot[] devices;
    private DeviceSlot current;
    private int failedPeer = -1;
    private String failureReason;
    private boolean closed;

    /**
     * @param rank    this rank.
     * @param size    number of ranks.
     * @param devices the opened devices.
     */
    public VerbsLinks(final int rank, final int size, final List<DeviceSlot> devices)
    {
        this.rank = rank;
        this.size = size;
        this.links = new VerbsPeerLink[size];
        this.linkList = new VerbsPeerLink[Math.max(0, size - 1)];
        this.devices = devices.toArray(new DeviceSlot[0]);
    }

    /**
     * Registers a link (setup).
     *
     * @param slot the device it is on.
     * @param link the link.
     */
    public void add(final DeviceSlot slot, final VerbsPeerLink link)
    {
        links[link.peer()] = link;
        int i = 0;
        while (null != linkList[i])
        {
            i++;
        }
        linkList[i] = link;
        slot.byQpNumber.put(link.queuePair().qpNumber(), link);
    }

    /** @return the devices. */
    public List<DeviceSlot> devices()
    {
        return List.of(devices);
    }

    /** {@inheritDoc} */
    public int rank()
    {
        return rank;
    }

    /** {@inheritDoc} */
    public int size()
    {
        return size;
    }

    /** {@inheritDoc} */
    public PeerLink link(final int peer)
    {
        return links[peer];
    }

    /**
     * @param peer a peer.
     * @return its link as a verbs link.
     */
    public VerbsPeerLink verbsLink(final int peer)
    {
        return links[peer];
    }

    /** {@inheritDoc} */
    public int poll()
    {
        int work = 0;
        for (final DeviceSlot slot : devices)
        {
            current = slot;
            work += slot.cq.poll(this, POLL_LIMIT);
        }
        for (final VerbsPeerLink link : linkList)
        {
            work += link.doWork();
        }
        return work;
    }

    /** {@inheritDoc} */
    public void onCompletion(final long wrId, final int status, final int opcode, final int byteLength,
        final int immediateData, final int flags, final int qpNumber)
    {
        final VerbsPeerLink link = current.byQpNumber.get(qpNumber);
        if (null == link)
        {
            return;
        }
        if (VerbsPeerLink.RECV_WR_ID == wrId)
        {
            link.onRecvCompletion(status, immediateData);
        }
        else
        {
            link.onSendCompletion(wrId, status);
        }
    }

    /** {@inheritDoc} */
    public void scan()
    {
        for (final VerbsPeerLink link : linkList)
        {
            link.scan();
        }
    }

    /** {@inheritDoc} */
    public int failedPeer()
    {
        return failedPeer;
    }

    /** {@inheritDoc} */
    public String failureReason()
    {
        return failureReason;
    }

    void onLinkFailure(final int peer, final String reason)
    {
        if (failedPeer < 0)
        {
            failedPeer = peer;
            failureReason = reason;
        }
    }

    /** {@inheritDoc} */
    public void breakAll(final int culprit)
    {
        int notices = 0;
        for (final VerbsPeerLink link : linkList)
        {
            if (null != link && link.postAbortNotice(culprit))
            {
                notices++;
            }
        }
        if (notices > 0)
        {
            // Give the notices a moment to leave before the connections close: until each completed (delivered
            // or failed), at most the grace period. The failing call returns only after this, so it is not a
            // fixed wait.
            final long deadline = System.nanoTime() + NOTICE_GRACE_NS;
            while (anyNoticePending() && System.nanoTime() - deadline < 0)
            {
                if (0 == poll())
                {
                    Thread.yield();
                }
            }
        }
        for (final VerbsPeerLink link : linkList)
        {
            // A peer that took the notice fails at once, and a failed link's queue pair is in ERROR already: only
            // the others are closed here (closing costs up to tens of ms, and the failing call waits for this);
            // close() releases every one.
            if (null != link && !link.noticeDelivered() && !link.isFailed())
            {
                link.closeQueuePair();
            }
        }
    }

    private boolean anyNoticePending()
    {
        for (final VerbsPeerLink link : linkList)
        {
            if (null != link && link.noticePending())
            {
                return true;
            }
        }
        return false;
    }

    /** {@inheritDoc} */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final List<RuntimeException> errors = new ArrayList<>();
        for (final VerbsPeerLink link : linkList)
        {
            if (null != link)
            {
                try
                {
                    link.close();
                }
                catch (final RuntimeException ex)
                {
                    errors.add(ex);
                }
            }
        }
        for (final DeviceSlot slot : devices)
        {
            try
            {
                slot.device.close();
            }
            catch (final RuntimeException ex)
            {
                errors.add(ex);
            }
        }
        if (!errors.isEmpty())
        {
            final RuntimeException first = errors.get(0);
            for (int i = 1; i < errors.size(); i++)
            {
                first.addSuppressed(errors.get(i));
            }
            throw first;
        }
    }
}
