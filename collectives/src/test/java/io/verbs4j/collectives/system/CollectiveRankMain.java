// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.system;

import java.nio.file.Path;
import java.time.Duration;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.Cases;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.spi.HostIdentity;

import static java.lang.System.out;

/**
 * A rank in its own JVM (started by {@link LoopbackCluster}), FileStore rendezvous. Modes (first argument):
 * <ul>
 *   <li>{@code check}: every AllReduce algorithm over a few sizes, exact values; exit 0 when all match.</li>
 *   <li>{@code mixed}: pretends ranks {0,1} and {2,3} are two hosts ({@code verbs4j.host.id}), so links inside a
 *       pair use shm and across use tcp; checks the transports and an AllReduce.</li>
 *   <li>{@code kill}: the last rank halts without cleanup after one AllReduce; the others must get a
 *       PEER_FAILED {@link CollectiveException} naming it within the bound, and exit 0 then.</li>
 *   <li>{@code hang}: the last rank stops calling (sleeps); the others must get a TIMEOUT within the bound.</li>
 *   <li>{@code shrink}: rank 1 halts in a loop of small AllReduces; the others must fail, {@link Communicator#shrink()}
 *       to the survivors renumbered in order, and get exact AllReduce results there; times are printed.</li>
 * </ul>
 */
public final class CollectiveRankMain
{
    /** Bound on noticing a dead or silent rank, asserted by the failure modes. */
    public static final long FAILURE_BOUND_MS = 8_000;

    private CollectiveRankMain()
    {
    }

    /**
     * @param args mode, then transport ("" for per-peer choice).
     */
    public static void main(final String[] args)
    {
        final String mode = args[0];
        final String transport = args.length > 1 ? args[1] : "";
        final int rank = Integer.parseInt(System.getenv(LoopbackCluster.RANK_ENV));
        final int size = Integer.parseInt(System.getenv(LoopbackCluster.WORLD_SIZE_ENV));
        if ("mixed".equals(mode))
        {
            System.setProperty(HostIdentity.HOST_ID_PROP_NAME, "fake-host-" + (rank / 2));
        }
        int exit = 1;
        try (FileStore store = new FileStore(Path.of(System.getenv(LoopbackCluster.RENDEZVOUS_DIR_ENV))))
        {
            final CommunicatorContext context = new CommunicatorContext().rank(rank).size(size).store(store)
                .transport(transport).name("system-" + mode).chunkBytes(64 * 1024)
                // Short bounds only where failure detection is under test; a loaded machine can starve a healthy
                // peer for a second.
                .peerTimeout(Duration.ofMillis("check".equals(mode) || "mixed".equals(mode) ? 10_000 : 1_000))
                .opTimeout(Duration.ofMillis(3_000))
                // Calibration is not under test here, and under the short op timeout a loaded machine can fail it.
                .calibrate(false);
            switch (mode)
            {
                case "check":
                    exit = check(context, rank, size);
                    break;
                case "mixed":
                    exit = mixed(context, rank, size);
                    break;
                case "shrink":
                    exit = shrink(context, store, rank, size);
                    break;
                default:
                    exit = failure(context, rank, size, "kill".equals(mode));
                    break;
            }
        }
        catch (final Throwable t)
        {
            t.printStackTrace(out);
        }
        out.flush();
        System.exit(exit);
    }

    private static int check(final CommunicatorContext context, final int rank, final int size)
    {
        try (Communicator comm = Communicator.create(context.opTimeout(Duration.ofSeconds(30))))
        {
            final MemoryRegion region = comm.allocate(8 * 300_000L);
            for (final long count : new long[]{1, 7, 1009, 300_000})
            {
                for (final Algorithm algorithm : Algorithm.values())
                {
                    final byte[] in = Cases.input(DataType.FLOAT32, ReduceOp.SUM, rank, count);
                    region.putBytes(0, in, 0, in.length);
                    final CommBuffer buffer = CommBuffer.of(region, 0, in.length);
                    comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM, algorithm);
                    final byte[] got = new byte[in.length];
                    region.getBytes(0, got, 0, got.length);
                    if (!java.util.Arrays.equals(Cases.allReduce(DataType.FLOAT32, ReduceOp.SUM, size, count), got))
                    {
                        out.println("WRONG count=" + count + " " + algorithm);
                        return 1;
                    }
                }
            }
            out.println("rank " + rank + " ok over " + comm.transport((rank + 1) % size) + ", " + comm.costModel());
            return 0;
        }
    }

    private static int mixed(final CommunicatorContext context, final int rank, final int size)
    {
        try (Communicator comm = Communicator.create(context.opTimeout(Duration.ofSeconds(30))))
        {
            for (int peer = 0; peer < size; peer++)
            {
                if (peer != rank)
                {
                    final String expected = peer / 2 == rank / 2 ? "shm" : "tcp";
                    if (!expected.equals(comm.transport(peer)))
                    {
                        out.println("rank " + rank + " reaches " + peer + " over " + comm.transport(peer));
                        return 1;
                    }
                }
            }
            for (final Algorithm algorithm : Algorithm.values())
            {
                final double[] v = new double[100_003];
                java.util.Arrays.fill(v, rank + 1);
                comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), v.length, DataType.FLOAT64, ReduceOp.SUM,
                    algorithm);
                if (v[0] != size * (size + 1) / 2.0 || v[v.length - 1] != v[0])
                {
                    out.println("WRONG " + algorithm + " " + v[0]);
                    return 1;
                }
            }
            out.println("rank " + rank + " mixed ok");
            return 0;
        }
    }

    private static int shrink(final CommunicatorContext context, final FileStore store, final int rank,
        final int size) throws InterruptedException
    {
        final Communicator comm = Communicator.create(context);
        final int[] v = new int[2];
        long failedAt = 0;
        try
        {
            for (int i = 0; i < 1_000_000; i++)
            {
                if (1 == rank && 20_000 == i)
                {
                    store.set("halted-at", Long.toString(System.currentTimeMillis()).getBytes());
                    out.println("rank " + rank + " halts now at " + System.currentTimeMillis());
                    out.flush();
                    Runtime.getRuntime().halt(0);
                }
                v[0] = rank;
                v[1] = i;
                comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), 2, DataType.INT32, ReduceOp.SUM);
            }
            out.println("rank " + rank + ": no failure seen");
            return 1;
        }
        catch (final CollectiveException ex)
        {
            failedAt = System.currentTimeMillis();
            out.println("rank " + rank + " failed: " + ex.reason() + ": " + ex.getMessage());
        }
        finally
        {
            comm.close();
        }
        final long haltedAt = Long.parseLong(new String(store.get("halted-at", Duration.ofSeconds(10))));
        try (Communicator survivors = comm.shrink())
        {
            final int expectedRank = rank < 1 ? rank : rank - 1;
            if (survivors.size() != size - 1 || survivors.rank() != expectedRank)
            {
                out.println("rank " + rank + " shrank to rank " + survivors.rank() + " of " + survivors.size());
                return 1;
            }
            final long[] w = {rank + 1L, 1};
            survivors.allReduce(CommBuffer.of(w), CommBuffer.of(w), 2, DataType.INT64, ReduceOp.SUM);
            final long firstOk = System.currentTimeMillis();
            final long expectedSum = (long)size * (size + 1) / 2 - 2;
            if (w[0] != expectedSum || w[1] != size - 1)
            {
                out.println("WRONG on the shrunk communicator: " + w[0] + " " + w[1]);
                return 1;
            }
            for (int i = 0; i < 1000; i++)
            {
                final float[] f = new float[1 + i % 300];
                java.util.Arrays.fill(f, survivors.rank() + 1);
                survivors.allReduce(CommBuffer.of(f), CommBuffer.of(f), f.length, DataType.FLOAT32, ReduceOp.SUM);
                if (f[f.length - 1] != (size - 1) * size / 2.0f)
                {
                    out.println("WRONG on the shrunk communicator at call " + i + ": " + f[f.length - 1]);
                    return 1;
                }
            }
            out.println("rank " + rank + " shrink: error " + (failedAt - haltedAt) + " ms after the halt, first " +
                "AllReduce on the " + survivors.size() + " survivors " + (firstOk - failedAt) + " ms after the error");
            return 0;
        }
    }

    private static int failure(final CommunicatorContext context, final int rank, final int size,
        final boolean kill) throws InterruptedException
    {
        final Communicator comm = Communicator.create(context);
        final int[] v = {1};
        comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), 1, DataType.INT32, ReduceOp.SUM);
        if (rank == size - 1)
        {
            if (kill)
            {
                out.println("rank " + rank + " halts now");
                out.flush();
                Runtime.getRuntime().halt(0);
            }
            Thread.sleep(12_000);
            return 0;
        }
        final long start = System.nanoTime();
        try
        {
            for (int i = 0; i < 1_000_000; i++)
            {
                final float[] data = new float[50_000];
                comm.allReduce(CommBuffer.of(data), CommBuffer.of(data), data.length, DataType.FLOAT32,
                    ReduceOp.SUM);
            }
            out.println("rank " + rank + ": no failure seen");
            return 1;
        }
        catch (final CollectiveException ex)
        {
            final long ms = (System.nanoTime() - start) / 1_000_000;
            out.println("rank " + rank + " failed after " + ms + " ms: " + ex.reason() + ": " + ex.getMessage());
            final boolean reasonOk = kill ? CollectiveException.Reason.PEER_FAILED == ex.reason() :
                (CollectiveException.Reason.TIMEOUT == ex.reason() ||
                CollectiveException.Reason.PEER_FAILED == ex.reason());
            // A hung rank is named by every survivor (its heartbeat stood still), not the rank each one waited for.
            final boolean blameOk = kill || !"shm".equals(context.transport()) || size - 1 == ex.peer();
            if (!blameOk)
            {
                out.println("rank " + rank + " blamed rank " + ex.peer() + ", not the hung rank " + (size - 1));
            }
            return reasonOk && blameOk && ms < FAILURE_BOUND_MS ? 0 : 1;
        }
        finally
        {
            comm.close();
        }
    }
}
