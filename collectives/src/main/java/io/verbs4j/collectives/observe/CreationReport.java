// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import java.util.function.LongFunction;

import io.verbs4j.collectives.algorithm.ChoiceTable;

/**
 * What a rank says about a communicator it just created: a {@link CommunicatorCreatedEvent} for Flight Recorder,
 * and with {@code VERBS4J_DEBUG=INFO} lines on standard error in the manner of {@code NCCL_DEBUG=INFO}: the
 * rendezvous name, each peer's transport, the flag links, the cost model and the AllReduce algorithm by size.
 */
public final class CreationReport
{
    private static final long LARGEST_SIZE = 1L << 30;

    private CreationReport()
    {
    }

    /**
     * Emits the event and, when asked, the INFO lines.
     *
     * @param startTicks     {@link System#nanoTime()} when creation began.
     * @param debugInfo      whether to print the INFO lines (standard error).
     * @param name           communicator name.
     * @param rank           this rank.
     * @param size           ranks.
     * @param hostAddress    the address this rank advertised.
     * @param transports     transport to each peer (null for this rank).
     * @param flagMaxBytes   the largest operation run over flag links, or -1 when there are none.
     * @param flagPeers      peers reached through flag links.
     * @param costModel      the cost model in use, as text.
     * @param allReduceAlgo  the AllReduce algorithm for a size in bytes, as text.
     */
    public static void created(final long startTicks, final boolean debugInfo, final String name, final int rank,
        final int size, final String hostAddress, final String[] transports, final long flagMaxBytes,
        final int flagPeers, final String costModel, final LongFunction<String> allReduceAlgo)
    {
        final CommunicatorCreatedEvent event = new CommunicatorCreatedEvent();
        if (event.isEnabled())
        {
            event.communicator = name;
            event.rank = rank;
            event.size = size;
            event.transports = String.join(",", transportNames(transports, rank));
            event.flagLinkPeers = flagPeers;
            event.commit();
        }
        if (debugInfo)
        {
            final String text = describe(name, rank, size, hostAddress, transports, flagMaxBytes, flagPeers,
                costModel, allReduceAlgo) + String.format(" (created in %.1f ms)",
                (System.nanoTime() - startTicks) / 1e6);
            // Asked for explicitly, as NCCL_DEBUG is: printed whatever the logging configuration filters.
            System.err.println(text);
        }
    }

    /**
     * Warns (once per communicator and rank, at creation) when busy-polling ranks on one host outnumber the
     * cores: each then spins through its time slice while the rank it waits for is descheduled, and a call takes
     * milliseconds instead of microseconds (measured: 4 busy-polling ranks on 2 cores did not finish 2·10⁵ 8-byte
     * AllReduces in 10 minutes).
     *
     * @param rank          this rank.
     * @param busyPoll      whether waiting never yields.
     * @param hostRanks     ranks of this communicator on this host that this rank knows of.
     * @param cores         processors available to this JVM.
     * @return whether it warned.
     */
    public static boolean warnIfOversubscribedBusyPoll(final int rank, final boolean busyPoll, final int hostRanks,
        final int cores)
    {
        if (!busyPoll || hostRanks <= cores)
        {
            return false;
        }
        System.getLogger("io.verbs4j.collectives").log(System.Logger.Level.WARNING, "verbs4j: rank " + rank +
            ": busy-poll with " + hostRanks + " ranks on this host and " + cores + " cores: spinning ranks take the " +
            "cores from the ranks they wait for; use the default idle strategy (spin, then yield, then park)");
        return true;
    }

    /**
     * The INFO text.
     *
     * @param name          communicator name.
     * @param rank          this rank.
     * @param size          ranks.
     * @param hostAddress   the address this rank advertised.
     * @param transports    transport to each peer.
     * @param flagMaxBytes  the largest operation run over flag links, or -1.
     * @param flagPeers     peers reached through flag links.
     * @param costModel     the cost model, as text.
     * @param allReduceAlgo the AllReduce algorithm for a size in bytes.
     * @return the text, one line per topic.
     */
    public static String describe(final String name, final int rank, final int size, final String hostAddress,
        final String[] transports, final long flagMaxBytes, final int flagPeers, final String costModel,
        final LongFunction<String> allReduceAlgo)
    {
        final StringBuilder text = new StringBuilder();
        text.append("verbs4j INFO communicator '").append(name).append("' rank ").append(rank).append(" of ")
            .append(size).append(", host address ").append(hostAddress);
        text.append("\nverbs4j INFO   peers:");
        final String[] names = transportNames(transports, rank);
        for (int peer = 0; peer < names.length; peer++)
        {
            text.append(' ').append(peer).append('=').append(names[peer]);
        }
        text.append("\nverbs4j INFO   flag links: ");
        if (flagMaxBytes < 0)
        {
            text.append("none (one rank, no peer on this host, or turned off)");
        }
        else
        {
            text.append(flagPeers).append(" peer(s) on this host, operations up to ").append(flagMaxBytes)
                .append(" B");
        }
        text.append("\nverbs4j INFO   cost model: ").append(costModel);
        text.append("\nverbs4j INFO   allReduce by size:");
        String previous = null;
        long from = 1;
        for (long bytes = 1; bytes <= LARGEST_SIZE; bytes <<= 1)
        {
            final String algorithm = allReduceAlgo.apply(bytes);
            if (null != previous && !previous.equals(algorithm))
            {
                text.append(' ').append(range(from, bytes >> 1)).append(' ').append(previous).append(';');
                from = bytes;
            }
            previous = algorithm;
        }
        text.append(' ').append(range(from, LARGEST_SIZE)).append(' ').append(previous);
        return text.toString();
    }

    private static String[] transportNames(final String[] transports, final int rank)
    {
        final String[] names = new String[transports.length];
        for (int peer = 0; peer < transports.length; peer++)
        {
            names[peer] = peer == rank ? "self" : null == transports[peer] ? "?" : transports[peer];
        }
        return names;
    }

    private static String range(final long from, final long to)
    {
        return ChoiceTable.size(from) + ".." + ChoiceTable.size(to);
    }
}
