// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.system.support.SystemTests;

/**
 * One rank of a collective kill point: joins a communicator through a {@link FileStore}, then runs AllReduce
 * (INT64 SUM) or AllGather (INT64) calls of seeded random counts and algorithms for ever, checking every result
 * exactly (a wrong value is reported as {@code WRONG}: corruption), until a call throws. The same class runs as a
 * child process ({@link #main}) and as a thread of the test JVM (rank 0, the survivor whose resources are checked).
 */
public final class RankLoop
{
    /** Operation timeout configured on the communicators. */
    public static final long OP_TIMEOUT_MS = 3_000;
    /** Bound asserted for every survivor to fail: op timeout + peer timeout + 4 s slack for a loaded machine. */
    public static final long FAILURE_BOUND_MS = OP_TIMEOUT_MS + SystemTests.PEER_TIMEOUT_MS + 4_000;
    /** Largest count per call (elements per rank for AllGather). */
    public static final int MAX_COUNT = 64 * 1024;

    private RankLoop()
    {
    }

    /**
     * The outcome of a rank.
     *
     * @param calls       calls that completed and checked out.
     * @param reason      the exception's reason, or null if none was thrown.
     * @param failedAtMs  wall clock of the exception.
     * @param peer        the rank the exception names ({@link CollectiveException#peer()}), or -1.
     * @param message     its message, or what was wrong.
     * @param wrong       true if a result was not exact.
     */
    public record Result(long calls, CollectiveException.Reason reason, long failedAtMs, int peer, String message,
        boolean wrong)
    {
        /** @return one line for the parent. */
        String line()
        {
            return (wrong ? "WRONG " : "FAILED ") + reason + " " + failedAtMs + " " + calls + " " + peer + " " +
                String.valueOf(message).replace('\n', ' ');
        }

        static Result parse(final String line)
        {
            final String[] w = line.split(" ", 6);
            return new Result(Long.parseLong(w[3]), "null".equals(w[1]) ? null :
                CollectiveException.Reason.valueOf(w[1]), Long.parseLong(w[2]), Integer.parseInt(w[4]),
                w.length > 5 ? w[5] : "", "WRONG".equals(w[0]));
        }
    }

    /**
     * @param rank      this rank.
     * @param size      ranks.
     * @param storeDir  the FileStore directory.
     * @param transport shm or tcp.
     * @param shmDir    shm directory for the devices.
     * @param name      communicator name.
     * @param ops       allreduce, allgather or mixed.
     * @param seed      same on every rank: counts and algorithms.
     * @param created   called once the communicator exists (may be null).
     * @return how the loop ended.
     */
    public static Result run(final int rank, final int size, final Path storeDir, final String transport,
        final Path shmDir, final String name, final String ops, final long seed, final Runnable created)
    {
        final CommunicatorContext context = new CommunicatorContext().rank(rank).size(size).name(name)
            .transport(transport).chunkBytes(64 * 1024).peerTimeout(Duration.ofMillis(SystemTests.PEER_TIMEOUT_MS))
            .opTimeout(Duration.ofMillis(OP_TIMEOUT_MS)).bootstrapTimeout(Duration.ofSeconds(60)).calibrate(false)
            .deviceProperty(SystemTests.SHM_DIR_PROP, shmDir.toString());
        long calls = 0;
        try (FileStore store = new FileStore(storeDir);
            Communicator comm = Communicator.create(context.store(store)))
        {
            if (null != created)
            {
                created.run();
            }
            final SplittableRandom random = new SplittableRandom(seed);
            final Algorithm[] algorithms = Algorithm.values();
            final MemoryRegion send = comm.allocate(8L * MAX_COUNT);
            final MemoryRegion recv = comm.allocate(8L * MAX_COUNT * size);
            try
            {
                while (true)
                {
                    final boolean allReduce = "allreduce".equals(ops) || "mixed".equals(ops) && random.nextBoolean();
                    final int count = 1 + random.nextInt(random.nextBoolean() ? 64 : MAX_COUNT);
                    final Algorithm algorithm = algorithms[random.nextInt(algorithms.length)];
                    final long base = calls * 1_000_003L;
                    for (int j = 0; j < count; j++)
                    {
                        send.putLong(8L * j, (base + j) * (rank + 1));
                    }
                    final String wrong;
                    if (allReduce)
                    {
                        comm.allReduce(CommBuffer.of(send, 0, 8L * count), CommBuffer.of(recv, 0, 8L * count), count,
                            DataType.INT64, ReduceOp.SUM, algorithm);
                        wrong = checkAllReduce(recv, count, base, size);
                    }
                    else
                    {
                        comm.allGather(CommBuffer.of(send, 0, 8L * count), CommBuffer.of(recv, 0, 8L * count * size),
                            count, DataType.INT64);
                        wrong = checkAllGather(recv, count, base, size);
                    }
                    if (null != wrong)
                    {
                        return new Result(calls, null, System.currentTimeMillis(), -1, "call " + calls + " (" +
                            (allReduce ? "allReduce " + algorithm : "allGather") + ", count " + count + "): " + wrong,
                            true);
                    }
                    calls++;
                }
            }
            catch (final CollectiveException ex)
            {
                return new Result(calls, ex.reason(), System.currentTimeMillis(), ex.peer(), ex.getMessage(), false);
            }
        }
        catch (final CollectiveException ex)
        {
            return new Result(calls, ex.reason(), System.currentTimeMillis(), ex.peer(),
                "at create/close: " + ex.getMessage(), false);
        }
    }

    private static String checkAllReduce(final MemoryRegion recv, final int count, final long base, final int size)
    {
        final long factor = (long)size * (size + 1) / 2;
        for (int j = 0; j < count; j++)
        {
            final long expected = (base + j) * factor;
            final long got = recv.getLong(8L * j);
            if (got != expected)
            {
                return "element " + j + " = " + got + ", expected " + expected;
            }
        }
        return null;
    }

    private static String checkAllGather(final MemoryRegion recv, final int count, final long base, final int size)
    {
        for (int r = 0; r < size; r++)
        {
            for (int j = 0; j < count; j++)
            {
                final long expected = (base + j) * (r + 1);
                final long got = recv.getLong(8L * ((long)r * count + j));
                if (got != expected)
                {
                    return "block " + r + " element " + j + " = " + got + ", expected " + expected;
                }
            }
        }
        return null;
    }

    /**
     * Child process entry: prints {@code READY pid}, {@code CREATED}, then one {@code FAILED ...} or
     * {@code WRONG ...} line, then {@code CLOSED} after closing, and exits 0.
     *
     * @param args rank, size, storeDir, transport, shmDir, name, ops, seed.
     */
    public static void main(final String[] args)
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println("READY " + ProcessHandle.current().pid());
        Result result;
        try
        {
            result = run(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Path.of(args[2]), args[3],
                Path.of(args[4]), args[5], args[6], Long.parseLong(args[7]), () -> out.println("CREATED"));
        }
        catch (final Throwable t)
        {
            result = new Result(0, CollectiveException.Reason.INTERNAL, System.currentTimeMillis(), -1, t.toString(),
                false);
        }
        out.println(result.line());
        out.println("CLOSED");
        System.exit(0);
    }
}
