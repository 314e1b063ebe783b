// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;

import io.verbs4j.ProtectionDomain;
import io.verbs4j.collectives.algorithm.AdaptiveIdleStrategy;
import io.verbs4j.collectives.algorithm.CostModel;
import io.verbs4j.collectives.bootstrap.Bootstrap;
import io.verbs4j.collectives.engine.CollectiveEngine;
import io.verbs4j.collectives.link.FlagLinkOffer;
import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.SoloLinks;
import io.verbs4j.collectives.observe.OpObserver;
import io.verbs4j.collectives.rendezvous.AddressExchange;
import io.verbs4j.stat.StatRegistry;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * How a {@link Communicator} comes to be: the bootstrap of its links, the wiring of its parts, the flag links,
 * calibration, and the defaults it starts from. {@link CommunicatorCreation} (behind {@link Communicator#create},
 * {@link Communicator#split} and {@link Communicator#shrink}) decides who the members are and with which settings;
 * this class builds the communicator from that. Stateless; runs on the creating thread.
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
            return newCommunicator(context, new SoloLinks(), new String[1], null);
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
        final Communicator communicator = newCommunicator(context, result.links, result.transports, result.primaryPd);
        try
        {
            communicator.engine().enableFlagLinks(new FlagLinkOffer(context.flagLinks(), context.flagSlots(),
                context.flagSlotBytes(), context.flagMaxBytes()), newIdle(context));
            communicator.engine().enablePeerMemory(context.peerMemoryMinBytes());
        }
        catch (final RuntimeException ex)
        {
            communicator.resources().close();
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
                communicator.resources().close();
                throw ex;
            }
        }
        return communicator;
    }

    /**
     * Wires a communicator's parts over its links: the engine with its observer (history, statistics) and stall
     * warning, and the runner of the non-blocking calls.
     *
     * @param context    concluded settings.
     * @param links      the links (for one rank: a link set with no peers).
     * @param transports the provider of each peer's link (null for this rank).
     * @param primaryPd  the bootstrap's protection domain, or null for one rank.
     * @return the communicator, owning the links.
     */
    private static Communicator newCommunicator(final CommunicatorContext context, final Links links,
        final String[] transports, final ProtectionDomain primaryPd)
    {
        final CollectiveEngine engine = new CollectiveEngine(links, context.chunkBytes(), newIdle(context),
            context.opTimeoutNs(), primaryPd, defaultModel(transports), context.algorithm());
        final OpObserver observer = new OpObserver(context.name(), links.rank(), links.size(), context.history());
        engine.observer(observer);
        final StatRegistry.Registration stat = StatRegistry.register("communicator '" + context.name() + "' rank " +
            links.rank() + " of " + links.size(), observer::sample);
        engine.stallWarning(context.stallWarningNs());
        final AsyncRunner runner = new AsyncRunner(engine, context, newIdle(context));
        return new Communicator(context, transports, engine, runner,
            new CommunicatorResources(context, links, primaryPd, engine, stat));
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
