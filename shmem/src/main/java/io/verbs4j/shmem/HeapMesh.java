// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.time.Duration;
import java.util.List;

import io.verbs4j.Capabilities;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.bootstrap.Bootstrap;
import io.verbs4j.collectives.link.VerbsLinks;

/**
 * The heap's own full mesh of RC queue pairs, one per peer, built by the communicators' {@link Bootstrap} (same
 * provider choice per peer: shm on one host, tcp across; same handshake and timeouts) with its exchanges run over
 * the world communicator. The bootstrap links' message protocol is not used: the heap posts its own one-sided
 * requests on their queue pairs and polls their completion queues itself, so the links are kept at the smallest
 * geometry (two 64-byte inbox slots). Per peer it records which device (protection domain, completion queue) the
 * queue pair is on and whether it offers {@link Capabilities#DIRECT_PEER_ACCESS}. Setup-path object.
 */
final class HeapMesh implements AutoCloseable
{
    private static final int LINK_SLOTS = 2;
    private static final int LINK_SLOT_BYTES = 64;

    private final int me;
    private final int size;
    private final VerbsLinks links;
    private final List<VerbsLinks.DeviceSlot> devices;
    private final int[] deviceOf;
    private final boolean[] direct;
    private final String[] transports;
    private final int primaryDevice;

    private HeapMesh(final int me, final int size, final VerbsLinks links, final String[] transports,
        final boolean directAccess)
    {
        this.me = me;
        this.size = size;
        this.links = links;
        this.transports = transports;
        this.devices = links.devices();
        this.deviceOf = new int[size];
        this.direct = new boolean[size];
        int primary = 0;
        for (int d = 0; d < devices.size(); d++)
        {
            if (devices.get(d).device().capabilities().has(Capabilities.DIRECT_PEER_ACCESS))
            {
                // memory allocated on a direct-access device is shareable, so same-host peers can map it
                primary = d;
                break;
            }
        }
        this.primaryDevice = primary;
        deviceOf[me] = primary;
        for (int q = 0; q < size; q++)
        {
            if (q == me)
            {
                continue;
            }
            final ProtectionDomain pd = links.verbsLink(q).queuePair().protectionDomain();
            for (int d = 0; d < devices.size(); d++)
            {
                if (devices.get(d).pd() == pd)
                {
                    deviceOf[q] = d;
                }
            }
            direct[q] = directAccess && pd.device().capabilities().has(Capabilities.DIRECT_PEER_ACCESS);
        }
    }

    /**
     * Connects the mesh. Collective over {@code world}.
     *
     * @param world   the world communicator (size at least 2).
     * @param options heap settings.
     * @return the mesh.
     */
    static HeapMesh connect(final Communicator world, final ShmemOptions options)
    {
        final Bootstrap.Settings settings = new Bootstrap.Settings();
        settings.rank = world.rank();
        settings.size = world.size();
        settings.slots = LINK_SLOTS;
        settings.slotBytes = LINK_SLOT_BYTES;
        settings.transport = options.transport().isEmpty() ? sameTransport(world) : options.transport();
        settings.hostAddress = options.hostAddress();
        settings.timeout = Duration.ofNanos(options.bootstrapTimeoutNs());
        settings.peerTimeoutNs = options.peerTimeoutNs();
        settings.progressThread = options.deviceProgressThread();
        settings.deviceProperties = options.deviceProperties();
        final Bootstrap.Result result = Bootstrap.run(settings, new CommExchange(world));
        return new HeapMesh(world.rank(), world.size(), result.links, result.transports, options.directAccess());
    }

    /** When the world reaches every peer through one provider, the heap uses it too (it may have been forced). */
    private static String sameTransport(final Communicator world)
    {
        String common = null;
        for (int q = 0; q < world.size(); q++)
        {
            if (q == world.rank())
            {
                continue;
            }
            final String t = world.transport(q);
            if (null == common)
            {
                common = t;
            }
            else if (!common.equals(t))
            {
                return "";
            }
        }
        return null == common ? "" : common;
    }

    int size()
    {
        return size;
    }

    int me()
    {
        return me;
    }

    /** @return the opened devices' slots (device, protection domain, completion queue). */
    List<VerbsLinks.DeviceSlot> devices()
    {
        return devices;
    }

    /** @return index of the device whose protection domain holds the heap's own memory. */
    int primaryDevice()
    {
        return primaryDevice;
    }

    /**
     * @param pe a PE (this one: the primary device).
     * @return index of the device its queue pair is on.
     */
    int deviceOf(final int pe)
    {
        return deviceOf[pe];
    }

    /**
     * @param pe a peer.
     * @return its queue pair.
     */
    QueuePair queuePair(final int pe)
    {
        return links.verbsLink(pe).queuePair();
    }

    /**
     * @param pe a peer.
     * @return true when its queue pair offers direct peer memory access (same host, shm).
     */
    boolean isDirect(final int pe)
    {
        return direct[pe];
    }

    /**
     * @param pe a peer.
     * @return the provider reaching it.
     */
    String transport(final int pe)
    {
        return transports[pe];
    }

    /**
     * @param device a device index.
     * @return its completion queue.
     */
    CompletionQueue cq(final int device)
    {
        return devices.get(device).cq();
    }

    /** Closes the queue pairs, the links' memory and the devices. */
    public void close()
    {
        links.close();
    }
}
