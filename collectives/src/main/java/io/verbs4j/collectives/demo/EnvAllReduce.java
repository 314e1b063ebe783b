// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.demo;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeSet;

import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.rendezvous.EnvRendezvous;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * One rank of an AllReduce job bootstrapped the torchrun way, for ranks started by any launcher (a shell loop,
 * mpirun, Slurm, Kubernetes): {@code MASTER_ADDR}, {@code MASTER_PORT}, {@code RANK} (or
 * {@code OMPI_COMM_WORLD_RANK}) and {@code WORLD_SIZE} (or {@code OMPI_COMM_WORLD_SIZE}) through
 * {@link Communicator#fromEnvironment(Map, CommunicatorContext)}; rank 0 hosts the TCP store. Every rank sums
 * {@code count} float32 values equal to {@code rank + 1}, checks that it got {@code n(n+1)/2} everywhere, prints
 * one line, then times a few more calls.
 * <pre>
 *   for r in 0 1 2 3; do RANK=$r WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 \
 *     java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp verbs4j-benchmarks.jar \
 *     io.verbs4j.collectives.demo.EnvAllReduce &amp; done; wait
 * </pre>
 * Arguments: optional element count (default 1048576) and timed iterations (default 20). Across hosts, tcp listens
 * on {@code -Dverbs4j.collectives.host.address}, else on the local address of the route to {@code MASTER_ADDR}
 * ({@link EnvRendezvous#localAddress()}).
 * Exit code 0 when the sums are right, 1 otherwise.
 */
public final class EnvAllReduce
{
    private EnvAllReduce()
    {
    }

    /**
     * @param args optional: count, iterations.
     */
    public static void main(final String[] args)
    {
        final int count = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 20;
        final int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        System.exit(run(System.getenv(), count, iterations));
    }

    /**
     * Runs one rank.
     *
     * @param env        the environment (torchrun or Open MPI variables).
     * @param count      float32 elements per AllReduce.
     * @param iterations timed AllReduce calls after the checked one.
     * @return 0 when every element had the expected sum, 1 otherwise.
     */
    public static int run(final Map<String, String> env, final int count, final int iterations)
    {
        final CommunicatorContext context = new CommunicatorContext().name("env-allreduce");
        try (Communicator comm = Communicator.fromEnvironment(env, context))
        {
            final int rank = comm.rank();
            final int size = comm.size();
            final float[] values = new float[count];
            Arrays.fill(values, rank + 1);
            final CommBuffer buffer = CommBuffer.of(values);
            comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM);
            final float expected = size * (size + 1) / 2.0f;
            long wrong = 0;
            for (final float value : values)
            {
                wrong += value == expected ? 0 : 1;
            }
            final TreeSet<String> transports = new TreeSet<>();
            for (int q = 0; q < size; q++)
            {
                if (q != rank)
                {
                    transports.add(comm.transport(q));
                }
            }

            final long start = System.nanoTime();
            for (int i = 0; i < iterations; i++)
            {
                comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM);
            }
            final double seconds = Math.max(1e-9, (System.nanoTime() - start) / 1e9);
            final double avgUs = iterations > 0 ? seconds * 1e6 / iterations : 0;
            final double busbw = iterations > 0 ? 4.0 * count * 2 * (size - 1) / size / (seconds / iterations) / 1e9 :
                0;
            // one write per line, so the lines of ranks sharing a terminal do not interleave
            final String line = String.format("rank %d/%d (pid %d): allreduce of %d float32 %s " +
                "(every element %.1f), links %s, " +
                "%d more calls avg %.1f us, busbw %.3f GB/s%n", rank, size, ProcessHandle.current().pid(), count,
                0 == wrong ? "OK" : "WRONG in " + wrong + " elements", expected, transports.isEmpty() ? "none" :
                String.join(",", transports), iterations, avgUs, busbw);
            System.out.print(line);
            System.out.flush();
            return 0 == wrong ? 0 : 1;
        }
        catch (final RuntimeException ex)
        {
            // before the environment was read (a variable missing) there is no rank yet
            System.err.println((context.rank() < 0 ? "env-allreduce" : "rank " + context.rank() + "/" +
                context.size()) + ": " + ex);
            return 1;
        }
    }
}
