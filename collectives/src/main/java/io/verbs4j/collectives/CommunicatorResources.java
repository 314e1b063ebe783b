// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.util.ArrayList;
import java.util.List;

import io.verbs4j.Device;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.Verbs;
import io.verbs4j.collectives.engine.CollectiveEngine;
import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import io.verbs4j.spi.TransportProvider;
import io.verbs4j.stat.StatRegistry;

/**
 * What a {@link Communicator} owns and frees: its engine, its links, the protection domain that
 * {@link Communicator#allocate} registers with (the bootstrap's, or for one rank a device opened on first use), the
 * statistics registration and the store {@link Communicator#fromEnvironment} opened. The communicator decides when
 * to free (close, abort; {@link CommunicatorAssembly} on a failed set-up); this class knows what and in which order.
 */
final class CommunicatorResources
{
    private final CommunicatorContext context;
    private final Links links;
    private final ProtectionDomain primaryPd;
    private final CollectiveEngine engine;
    private final StatRegistry.Registration stat;
    private final List<Device> extraDevices = new ArrayList<>();
    private ProtectionDomain soloPd;
    /** The store {@link Communicator#fromEnvironment} opened for this communicator, closed with it; else null. */
    private RendezvousStore ownedStore;

    /**
     * @param context   the communicator's settings (the transport a one-rank communicator opens for allocations).
     * @param links     the links (closed here).
     * @param primaryPd the bootstrap's protection domain, or null for one rank.
     * @param engine    the engine (closed here).
     * @param stat      the statistics registration (closed here).
     */
    CommunicatorResources(final CommunicatorContext context, final Links links, final ProtectionDomain primaryPd,
        final CollectiveEngine engine, final StatRegistry.Registration stat)
    {
        this.context = context;
        this.links = links;
        this.primaryPd = primaryPd;
        this.engine = engine;
        this.stat = stat;
    }

    /** @return the protection domain allocations register with; for one rank, opened on first use (any thread). */
    synchronized ProtectionDomain pd()
    {
        if (null != primaryPd)
        {
            return primaryPd;
        }
        if (extraDevices.isEmpty())
        {
            String name = context.transport();
            if (name.isEmpty())
            {
                for (final TransportProvider provider : Verbs.providers())
                {
                    if (null == provider.unavailableReason())
                    {
                        name = provider.name();
                        break;
                    }
                }
            }
            extraDevices.add(Verbs.open(name));
        }
        if (null == soloPd)
        {
            soloPd = extraDevices.get(0).allocateProtectionDomain();
        }
        return soloPd;
    }

    /**
     * Breaks every link, so that peers fail at once instead of at their timeouts (abort).
     *
     * @param peer the rank blamed for the failure.
     */
    void breakLinks(final int peer)
    {
        links.breakAll(peer);
    }

    /** @param store the store {@link Communicator#fromEnvironment} opened, closed by {@link #closeOwnedStore()}. */
    void ownStore(final RendezvousStore store)
    {
        ownedStore = store;
    }

    /** Ends the statistics registration (idempotent). */
    void closeStat()
    {
        stat.close();
    }

    /** Closes the store {@link Communicator#fromEnvironment} opened, if any, once. */
    void closeOwnedStore()
    {
        final RendezvousStore store = ownedStore;
        ownedStore = null;
        if (null != store)
        {
            store.close();
        }
    }

    /** Frees the engine, the links and the extra devices; on a failed set-up too. */
    void close()
    {
        stat.close();
        try
        {
            engine.close();
        }
        finally
        {
            try
            {
                links.close();
            }
            finally
            {
                for (final Device device : extraDevices)
                {
                    device.close();
                }
            }
        }
    }
}
