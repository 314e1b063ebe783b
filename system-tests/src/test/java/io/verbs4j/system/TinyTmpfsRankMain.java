// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.verbs4j.MemoryRegion;
import io.verbs4j.VerbsException;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.shm.ShmConfiguration;

/**
 * A rank of {@link TinyTmpfsSystemTest}'s communicator on a tiny tmpfs (started by {@link LoopbackCluster}; the
 * tmpfs directory is the argument). It creates a communicator over shm, allocates 2 MiB regions until the tmpfs
 * refuses (the ranks race for the last pages), then runs two AllReduces (heap arrays, then its first region) with
 * exact checks. Each step either works or fails with a clean exception, printed as an {@code OUTCOME} line; an
 * uncaught error in any thread (the {@link InternalError} a fault in a memory access becomes) prints {@link #CRASH}
 * and exits 3. Ends with {@link #DONE} and exit 0.
 */
public final class TinyTmpfsRankMain
{
    /** Printed when a thread dies of an uncaught error. */
    public static final String CRASH = "CRASH";
    /** Printed last by a rank that stayed alive to the end. */
    public static final String DONE = "RANK-DONE";

    private static final long REGION_BYTES = 2L << 20;
    private static final int MAX_REGIONS = 16;
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private TinyTmpfsRankMain()
    {
    }

    /**
     * @param args the tmpfs directory.
     */
    public static void main(final String[] args)
    {
        Thread.setDefaultUncaughtExceptionHandler((thread, error) ->
        {
            OUT.println(CRASH + " in thread " + thread.getName() + ": " + error);
            error.printStackTrace(OUT);
            Runtime.getRuntime().halt(3);
        });
        final int rank = Integer.parseInt(System.getenv(LoopbackCluster.RANK_ENV));
        final int size = Integer.parseInt(System.getenv(LoopbackCluster.WORLD_SIZE_ENV));
        try (FileStore store = new FileStore(Path.of(System.getenv(LoopbackCluster.RENDEZVOUS_DIR_ENV))))
        {
            final CommunicatorContext context = new CommunicatorContext().rank(rank).size(size).store(store)
                .transport("shm").name("tiny-tmpfs").chunkBytes(64 * 1024).calibrate(false)
                .peerTimeout(Duration.ofSeconds(2)).opTimeout(Duration.ofSeconds(10))
                .bootstrapTimeout(Duration.ofSeconds(20))
                .deviceProperty(ShmConfiguration.DIR_PROP_NAME, args[0]);
            run(context, rank, size);
        }
        catch (final CollectiveException | VerbsException ex)
        {
            outcome(rank, "store", ex);
        }
        catch (final Throwable t)
        {
            OUT.println(CRASH + " in main: " + t);
            t.printStackTrace(OUT);
            Runtime.getRuntime().halt(3);
        }
        OUT.println(DONE + " rank " + rank);
        System.exit(0);
    }

    private static void run(final CommunicatorContext context, final int rank, final int size)
    {
        final Communicator comm;
        try
        {
            comm = Communicator.create(context);
        }
        catch (final CollectiveException | VerbsException ex)
        {
            outcome(rank, "create", ex);
            return;
        }
        final List<MemoryRegion> regions = new ArrayList<>();
        try
        {
            try
            {
                while (regions.size() < MAX_REGIONS)
                {
                    regions.add(comm.allocate(REGION_BYTES));
                }
                OUT.println("OUTCOME rank " + rank + " allocate: all " + MAX_REGIONS + " regions fit");
            }
            catch (final VerbsException ex)
            {
                outcome(rank, "allocate after " + regions.size() + " regions", ex);
            }
            final float expected = size * (size + 1) / 2.0f;
            final float[] heap = new float[256 * 1024];
            java.util.Arrays.fill(heap, rank + 1);
            allReduce(comm, rank, "heap AllReduce", CommBuffer.of(heap), heap.length, () -> heap[heap.length - 1],
                expected);
            // The same call on every rank (a rank without a region uses the heap again), so that none waits alone.
            if (regions.isEmpty())
            {
                java.util.Arrays.fill(heap, rank + 1);
                allReduce(comm, rank, "second heap AllReduce", CommBuffer.of(heap), heap.length,
                    () -> heap[heap.length - 1], expected);
            }
            else
            {
                final MemoryRegion region = regions.get(0);
                final int count = (int)(REGION_BYTES / 4);
                for (int i = 0; i < count; i++)
                {
                    region.putInt(4L * i, Float.floatToRawIntBits(rank + 1));
                }
                allReduce(comm, rank, "region AllReduce", CommBuffer.of(region, 0, REGION_BYTES), count,
                    () -> Float.intBitsToFloat(region.getInt(REGION_BYTES - 4)), expected);
            }
        }
        finally
        {
            for (final MemoryRegion region : regions)
            {
                region.close();
            }
            try
            {
                comm.close();
            }
            catch (final RuntimeException ex)
            {
                outcome(rank, "close", ex);
            }
        }
    }

    private static void allReduce(final Communicator comm, final int rank, final String step, final CommBuffer buffer,
        final int count, final FloatSupplier last, final float expected)
    {
        try
        {
            comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM);
            final float got = last.get();
            OUT.println("OUTCOME rank " + rank + " " + step + ": " + (got == expected ? "exact" :
                "WRONG " + got + " expected " + expected));
        }
        catch (final CollectiveException | VerbsException ex)
        {
            outcome(rank, step, ex);
        }
    }

    private static void outcome(final int rank, final String step, final Throwable ex)
    {
        final StringBuilder chain = new StringBuilder();
        for (Throwable t = ex; null != t; t = t.getCause())
        {
            chain.append(chain.length() > 0 ? " <- " : "").append(t.getClass().getSimpleName()).append(": ")
                .append(t.getMessage());
            if (t.getCause() == t)
            {
                break;
            }
        }
        OUT.println("OUTCOME rank " + rank + " " + step + " failed cleanly: " + chain);
    }

    /** Reads the last element after a call. */
    @FunctionalInterface
    private interface FloatSupplier
    {
        float get();
    }
}
