// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;

import io.verbs4j.collectives.algorithm.AdaptiveIdleStrategy;
import io.verbs4j.collectives.algorithm.CostModel;
import io.verbs4j.collectives.bootstrap.Bootstrap;
import io.verbs4j.collectives.link.FlagLinkOffer;
import io.verbs4j.collectives.link.SoloLinks;
import io.verbs4j.collectives.rendezvous.AddressExchange;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * How a {@link Communicator} comes to be: the bootstrap of its links, the flag links, calibration, and the
 * defaults it starts from. {@link Communicator#create}, {@link Communicator#split} and {@link Communicator#shrink}
 * decide who the members are and with which settings; this class builds the communicator from that. Stateless;
 * runs on the creating thread.
 */
final class CommunicatorAssembly
{
    private CommunicatorAssembly()
    {
    }

    /**
     * Connects the ranks of a concluded context (through {@code exchange}), sets up the flag links and calibrates the
     * cost model unless the context says not to. Collective. On failure everything made so far is closed.
     *
     * @param context  concluded settings.
     * @param exchange the address exchange of the bootstrap (a store's, or the parent communicator's).
     * @return the communicator.
     */
    static Communicator connect(final CommunicatorContext context, final AddressExchange exchange)
    {
        if (1 == context.size())
        {
            return new Communicator(context, new SoloLinks(), new String[1], null);
        }
        final Bootstrap.Settings settings = new Bootstrap.Settings();
        settings.rank = context.rank();
        settings.size = context.size();
        settings.slots = context.slots();
        settings.slotBytes = context.chunkBytes();
        settings.transport = context.transport();
        settings.hostAddress = context.hostAddress();
        settings.timeout = Duration.ofNanos(context.bootstrapTimeoutNs());
        settings.peerTimeoutNs = context.peerTimeoutNs();
        settings.deviceProperties = context.deviceProperties();
        settings.progressThread = context.deviceProgressThread();
        final Bootstrap.Result result = Bootstrap.run(settings, exchange);
        final Communicator communicator = new Communicator(context, result.links, result.transports, result.primaryPd);
        try
        {
            communicator.engine().enableFlagLinks(new FlagLinkOffer(context.flagLinks(), context.flagSlots(),
                context.flagSlotBytes(), context.flagMaxBytes()), newIdle(context));
            communicator.engine().enablePeerMemory(context.peerMemoryMinBytes());
        }
        catch (final RuntimeException ex)
        {
            communicator.closeResources();
            throw ex;
        }
        if (context.calibrate())
        {
            try
            {
                communicator.engine().calibrate();
            }
            catch (final RuntimeException ex)
            {
                communicator.closeResources();
                throw ex;
            }
        }
        return communicator;
    }

    /**
     * @param context settings.
     * @return true if the waiting threads busy-poll (spin and never yield).
     */
    static boolean busyPolls(final CommunicatorContext context)
    {
        return CollectivesConfiguration.busyPolls(context.idleSpins());
    }

    /**
     * @param context settings.
     * @return the waiting strategy the settings describe: busy-poll, or the adaptive spin, yield, park.
     */
    static IdleStrategy newIdle(final CommunicatorContext context)
    {
        if (busyPolls(context))
        {
            // busy-poll: nothing to learn
            return new BackoffIdleStrategy(context.idleSpins(), context.idleYields(), context.idleMinParkNs(),
                context.idleMaxParkNs());
        }
        return new AdaptiveIdleStrategy(context.idleSpins(), context.idleYields(), context.idleMinParkNs(),
            context.idleMaxParkNs());
    }

    /**
     * @param transports the provider of each peer's link (null for this rank).
     * @return the default cost model of the slowest provider, until calibration measures one.
     */
    static CostModel defaultModel(final String[] transports)
    {
        String slowest = "shm";
        for (final String transport : transports)
        {
            if (null != transport && !"shm".equals(transport))
            {
                slowest = transport;
            }
        }
        return CostModel.defaults(slowest);
    }
}
