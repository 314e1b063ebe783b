// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system.netns;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Locale;
import java.util.zip.CRC32C;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.rendezvous.EnvRendezvous;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * One rank of the multi-host tests, started in a test host by {@link NetnsCluster#exec} and bootstrapped the
 * torchrun way ({@code MASTER_ADDR}/{@code MASTER_PORT}/{@code RANK}/{@code WORLD_SIZE} through
 * {@link EnvRendezvous}; tcp listens on the address of the route to the master). Arguments:
 * {@code mode counts iterations peerTimeoutMs opTimeoutMs}.
 *
 * <p>Every call is an in-place INT32 SUM AllReduce of {@code count} elements where rank {@code r} contributes
 * {@code (r + 1) * x(i, call)} at index {@code i}, {@code x} a per-index, per-call hash; the exact result is
 * {@code x(i, call) * n(n+1)/2} in 32-bit arithmetic whatever the order of the additions, so every element of every
 * call is checked bit for bit.
 * <ul>
 *   <li>{@code check}: for each count of the comma list, {@code iterations} checked calls; prints
 *       {@code ROW count= iters= avgUs= busbw= crc=} (CRC32C of the last result, which must be the same on every
 *       rank), then {@code DONE}; exit 0.</li>
 *   <li>{@code loop}: checked calls of the first count until one throws; prints {@code LOOPING} after the first,
 *       then {@code FAILED <reason> <wall clock ms> <calls> <message>}; exit 0 for a {@link CollectiveException}.</li>
 * </ul>
 * Either mode first prints {@code LINKS rank=<r> <peer>:<provider> ...}; a wrong element prints {@code WRONG ...}
 * and exits 1. A rank whose standard input ends (the test JVM died) halts with exit code 3.
 */
public final class NetnsRankMain
{
    private NetnsRankMain()
    {
    }

    /**
     * @param args mode, counts, iterations, peer timeout ms, op timeout ms.
     */
    public static void main(final String[] args)
    {
        exitWithParent();
        final String mode = args[0];
        final String[] counts = args[1].split(",");
        final int iterations = Integer.parseInt(args[2]);
        final long peerTimeoutMs = Long.parseLong(args[3]);
        final long opTimeoutMs = Long.parseLong(args[4]);
        final EnvRendezvous env = EnvRendezvous.from(System.getenv());
        final int rank = env.rank();
        final int size = env.worldSize();
        final CommunicatorContext context = new CommunicatorContext().rank(rank).size(size).name("netns-" + mode)
            .hostAddress(env.localAddress())
            .peerTimeout(Duration.ofMillis(peerTimeoutMs))
            .opTimeout(Duration.ofMillis(opTimeoutMs))
            .bootstrapTimeout(Duration.ofSeconds(120))
            // calibration is not under test, and on a loaded machine its timings would only add noise
            .calibrate(false);
        int exit = 1;
        try (RendezvousStore store = env.connect(Duration.ofSeconds(120));
             Communicator comm = Communicator.create(context.store(store)))
        {
            final StringBuilder links = new StringBuilder("LINKS rank=" + rank);
            for (int q = 0; q < size; q++)
            {
                if (q != rank)
                {
                    links.append(' ').append(q).append(':').append(comm.transport(q));
                }
            }
            System.out.println(links);
            exit = "loop".equals(mode) ? loop(comm, rank, size, Integer.parseInt(counts[0])) :
                check(comm, rank, size, counts, iterations);
        }
        catch (final Throwable t)
        {
            System.out.println("ERROR " + t);
            t.printStackTrace();
        }
        System.out.flush();
        System.exit(exit);
    }

    /** The test JVM holds our stdin: when it dies (even by SIGKILL) the pipe closes and this rank goes too. */
    private static void exitWithParent()
    {
        final Thread lifeline = new Thread(() ->
        {
            try
            {
                while (System.in.read() >= 0)
                {
                    // nothing is sent; wait for end of file
                }
            }
            catch (final java.io.IOException ignore)
            {
                // same as end of file
            }
            Runtime.getRuntime().halt(3);
        }, "netns-rank-lifeline");
        lifeline.setDaemon(true);
        lifeline.start();
    }

    private static int check(final Communicator comm, final int rank, final int size, final String[] counts,
        final int iterations)
    {
        int call = 0;
        for (final String text : counts)
        {
            final int count = Integer.parseInt(text.trim());
            final int[] data = new int[count];
            long ns = 0;
            for (int it = 0; it < iterations; it++, call++)
            {
                fill(data, rank, call);
                final long start = System.nanoTime();
                comm.allReduce(CommBuffer.of(data), CommBuffer.of(data), count, DataType.INT32, ReduceOp.SUM);
                ns += System.nanoTime() - start;
                final String wrong = verify(data, size, call);
                if (null != wrong)
                {
                    System.out.println("WRONG rank=" + rank + " count=" + count + " call=" + call + " " + wrong);
                    return 1;
                }
            }
            final double avgSeconds = ns / 1e9 / iterations;
            final double busbw = 4.0 * count * 2 * (size - 1) / size / avgSeconds / 1e9;
            System.out.println(String.format(Locale.ROOT, "ROW count=%d iters=%d avgUs=%.1f busbw=%.4f crc=%08x",
                count, iterations, avgSeconds * 1e6, busbw, crc(data)));
        }
        System.out.println("DONE");
        return 0;
    }

    private static int loop(final Communicator comm, final int rank, final int size, final int count)
    {
        final int[] data = new int[count];
        long calls = 0;
        try
        {
            while (true)
            {
                fill(data, rank, (int)calls);
                comm.allReduce(CommBuffer.of(data), CommBuffer.of(data), count, DataType.INT32, ReduceOp.SUM);
                final String wrong = verify(data, size, (int)calls);
                if (null != wrong)
                {
                    System.out.println("WRONG rank=" + rank + " call=" + calls + " " + wrong);
                    return 1;
                }
                if (0 == calls++)
                {
                    System.out.println("LOOPING");
                }
            }
        }
        catch (final CollectiveException ex)
        {
            System.out.println("FAILED " + ex.reason() + " " + System.currentTimeMillis() + " " + calls + " " +
                String.valueOf(ex.getMessage()).replace('\n', ' '));
            return 0;
        }
    }

    private static int x(final int i, final int call)
    {
        int h = i * 0x9E3779B1 + call * 0x85EBCA77;
        h ^= h >>> 15;
        h *= 0x2C1B3C6D;
        return h ^ (h >>> 13);
    }

    private static void fill(final int[] data, final int rank, final int call)
    {
        for (int i = 0; i < data.length; i++)
        {
            data[i] = (rank + 1) * x(i, call);
        }
    }

    private static String verify(final int[] data, final int size, final int call)
    {
        final int factor = size * (size + 1) / 2;
        for (int i = 0; i < data.length; i++)
        {
            final int want = x(i, call) * factor;
            if (data[i] != want)
            {
                return "index=" + i + " got=" + data[i] + " want=" + want;
            }
        }
        return null;
    }

    private static int crc(final int[] data)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(data.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asIntBuffer().put(data);
        final CRC32C crc = new CRC32C();
        crc.update(bytes);
        return (int)crc.getValue();
    }
}
