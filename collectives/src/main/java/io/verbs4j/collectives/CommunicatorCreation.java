// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.verbs4j.collectives.algorithm.CostModel;
import io.verbs4j.collectives.observe.CreationReport;
import io.verbs4j.collectives.rendezvous.PrefixStore;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import io.verbs4j.collectives.types.DataType;

/**
 * The ways a {@link Communicator} is made: from a context ({@link Communicator#create}), from the launcher's
 * environment ({@link Communicator#fromEnvironment}), from a parent's colour group ({@link Communicator#split}) and
 * from a failed one's survivors ({@link Communicator#shrink}). Each decides who the members are and with which
 * settings, has {@link CommunicatorAssembly} build the communicator, and reports how it was connected
 * ({@link CreationReport}). Stateless; runs on the creating thread. The contracts are on the public methods.
 */
final class CommunicatorCreation
{
    private CommunicatorCreation()
    {
    }

    /**
     * @param context settings (concluded here).
     * @return the communicator.
     * @see Communicator#create(CommunicatorContext)
     */
    static Communicator create(final CommunicatorContext context)
    {
        final long start = System.nanoTime();
        Objects.requireNonNull(context, "context");
        context.conclude();
        final Communicator communicator = CommunicatorAssembly.connect(context, context.newExchange());
        report(communicator, start);
        return communicator;
    }

    /**
     * @param env     the launcher's variables.
     * @param context settings; rank, size, store and possibly the host address are set here, then concluded.
     * @return the communicator, owning the store it opened.
     * @see Communicator#fromEnvironment(Map, CommunicatorContext)
     */
    static Communicator fromEnvironment(final Map<String, String> env, final CommunicatorContext context)
    {
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(context, "context");
        final EnvironmentInit.Plan plan = EnvironmentInit.plan(env);
        EnvironmentInit.apply(plan, context);
        final RendezvousStore store = plan.open();
        try
        {
            final Communicator communicator = create(context.store(store));
            communicator.resources().ownStore(store);
            return communicator;
        }
        catch (final RuntimeException ex)
        {
            try
            {
                store.close();
            }
            catch (final RuntimeException suppressed)
            {
                ex.addSuppressed(suppressed);
            }
            throw ex;
        }
    }

    /**
     * @param parent the communicator split (collective over it).
     * @param colour group; negative means "in none".
     * @param key    order within the group.
     * @return the sub-communicator, or null for a negative colour.
     * @see Communicator#split(int, int)
     */
    static Communicator split(final Communicator parent, final int colour, final int key)
    {
        final int size = parent.size();
        final int rank = parent.rank();
        final CommunicatorContext context = parent.context();
        final long[] mine = {colour, key};
        final long[] all = new long[2 * size];
        parent.allGather(CommBuffer.of(mine), CommBuffer.of(all), 2, DataType.INT64);
        final List<Integer> members = new ArrayList<>();
        if (colour >= 0)
        {
            for (int q = 0; q < size; q++)
            {
                if (all[2 * q] == colour)
                {
                    members.add(q);
                }
            }
            members.sort((a, b) -> all[2 * a + 1] != all[2 * b + 1] ? Long.compare(all[2 * a + 1], all[2 * b + 1]) :
                Integer.compare(a, b));
        }
        final int[] group = members.stream().mapToInt(Integer::intValue).toArray();
        final ParentExchange exchange = new ParentExchange(parent, group);
        final String name = context.name() + "/split" + parent.nextSplit() + "/" + colour;
        if (group.length < 2)
        {
            // not in a group that bootstraps: still take part in the two exchanges the others run over us
            exchange.allGather(0, 1, new byte[0], Duration.ofNanos(context.bootstrapTimeoutNs()));
            exchange.allGather(0, 1, new byte[0], Duration.ofNanos(context.bootstrapTimeoutNs()));
            if (colour < 0)
            {
                return null;
            }
        }
        int newRank = 0;
        while (group[newRank] != rank)
        {
            newRank++;
        }
        final CommunicatorContext sub = context.derive(newRank, group.length, exchange, name);
        final long start = System.nanoTime();
        sub.conclude();
        final Communicator communicator = CommunicatorAssembly.connect(sub, exchange);
        report(communicator, start);
        return communicator;
    }

    /**
     * @param parent the communicator whose survivors regroup (it is not changed).
     * @return the survivors' communicator.
     * @see Communicator#shrink()
     */
    static Communicator shrink(final Communicator parent)
    {
        final int size = parent.size();
        final int rank = parent.rank();
        final CommunicatorContext context = parent.context();
        final RendezvousStore store = context.store();
        if (null == store)
        {
            throw new IllegalStateException("shrink needs a communicator created from a rendezvous store (this one " +
                "was bootstrapped through an address exchange); create a new communicator instead");
        }
        final boolean[] knownFailed = new boolean[size];
        final CollectiveException failure = parent.engine().failure();
        if (null != failure && failure.peer() >= 0 && failure.peer() != rank)
        {
            knownFailed[failure.peer()] = true;
        }
        final String name = context.name() + "/shrink" + parent.nextShrink();
        final int[] members = ShrinkAgreement.agree(new PrefixStore("verbs4j-shrink/" + name, store), rank, size,
            knownFailed, 2 * context.peerTimeoutNs(), Duration.ofNanos(context.bootstrapTimeoutNs()));
        int newRank = 0;
        while (members[newRank] != rank)
        {
            newRank++;
        }
        final CommunicatorContext survivors = context.deriveOnStore(newRank, members.length, name);
        // The survivors are some of the same ranks over the same links, so the cost model they all agreed on at
        // creation still holds (a subset's slowest link is no slower): it is kept, not measured again, because
        // calibrating is most of the time a shrink takes, and the job is waiting.
        survivors.calibrate(false);
        survivors.conclude();
        final Communicator shrunk = create(survivors);
        shrunk.engine().useModel(parent.engine().selector().model());
        return shrunk;
    }

    /** Prints how the ranks were connected (when asked to) and warns of busy-polling more ranks than cores. */
    private static void report(final Communicator communicator, final long startTicks)
    {
        final CommunicatorContext context = communicator.context();
        final int rank = communicator.rank();
        final CostModel model = communicator.engine().selector().model();
        CreationReport.created(startTicks, context.debugInfo(), communicator.name(), rank, communicator.size(),
            context.hostAddress(), communicator.transports(), communicator.engine().flagLinkMaxBytes(),
            communicator.engine().flagLinkPeers(), null == model ? "none" : model.describe(),
            bytes -> communicator.engine().allReduceAlgorithm(Algorithm.AUTO, bytes).name());
        CreationReport.warnIfOversubscribedBusyPoll(rank, CommunicatorAssembly.busyPolls(context),
            communicator.engine().flagLinkPeers() + 1, Runtime.getRuntime().availableProcessors());
    }
}
