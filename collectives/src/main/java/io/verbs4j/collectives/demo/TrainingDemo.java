// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.demo;

import java.nio.file.Path;
import java.time.Duration;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.algorithm.ChoiceTable;
import io.verbs4j.collectives.launch.ClusterResult;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.collectives.measure.Warmup;
import io.verbs4j.collectives.measure.WarmupPolicy;
import io.verbs4j.collectives.measure.WarmupResult;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * Data-parallel training demo: logistic regression on a synthetic data set, sharded over 4 processes started by
 * {@link LoopbackCluster} on this machine (no external service: a FileStore in a temporary directory does the
 * rendezvous). Each step every rank computes the gradient of its shard and the ranks average it with one AllReduce
 * (the DDP pattern); the loss per epoch is an AllReduce too. At the end the ranks all-gather their weights and check
 * that they agree bit for bit (rank 0 reports it; another rank prints only if it disagrees), then rank 0 prints an
 * AllReduce timing table by size: each size warms up until its per-call time is stable
 * ({@link WarmupPolicy#untilStable()}) before it is timed, and the header shows the cost model and the algorithm it
 * picks per size range. Every line comes from rank 0 unless something is wrong.
 * <pre>
 *   java -cp collectives.jar:... io.verbs4j.collectives.demo.TrainingDemo [ranks] [transport] [exact warm-up calls]
 *       [table|no-table]
 * </pre>
 * With RANK set in the environment it runs as one rank (that is how the launcher starts its children).
 */
public final class TrainingDemo
{
    /** Features per sample (the model's size); {@link ElasticTrainingDemo} trains the same model. */
    static final int FEATURES = 32;
    /** Samples in each rank's shard. */
    static final int SAMPLES_PER_RANK = 4096;
    private static final int EPOCHS = 8;
    private static final int STEPS_PER_EPOCH = 25;
    /** Step size of the gradient descent. */
    static final double LEARNING_RATE = 0.5;

    private TrainingDemo()
    {
    }

    /**
     * @param args optional: number of ranks (default 4), transport (default: chosen per peer), an exact number of
     *             warm-up calls per size of the timing table (default or empty: until stable), {@code no-table} to
     *             train only (default {@code table}).
     */
    public static void main(final String[] args)
    {
        final String warmup = args.length > 2 ? args[2] : "";
        final String table = args.length > 3 ? args[3] : "table";
        if (!"table".equals(table) && !"no-table".equals(table))
        {
            throw new IllegalArgumentException("fourth argument: table or no-table, not '" + table + "'");
        }
        final WarmupPolicy policy = warmup.isEmpty() ? WarmupPolicy.untilStable() :
            WarmupPolicy.exactly(Long.parseLong(warmup));
        if (null != System.getenv(LoopbackCluster.RANK_ENV))
        {
            System.exit(rank(args.length > 1 ? args[1] : "", policy, "table".equals(table)));
        }
        final int ranks = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        final String transport = args.length > 1 ? args[1] : "";
        System.out.println("verbs4j collectives demo: logistic regression, " + ranks + " processes, " +
            FEATURES + " features, " + SAMPLES_PER_RANK + " samples per rank, gradient AllReduce every step");
        final ClusterResult result = new LoopbackCluster(ranks).timeout(Duration.ofMinutes(5))
            .run(TrainingDemo.class.getName(), String.valueOf(ranks), transport, warmup, table);
        System.out.println(result.succeeded() ? "demo finished" : "demo FAILED: " + result);
        System.exit(result.succeeded() ? 0 : 1);
    }

    private static int rank(final String transport, final WarmupPolicy policy, final boolean table)
    {
        final int rank = Integer.parseInt(System.getenv(LoopbackCluster.RANK_ENV));
        final int size = Integer.parseInt(System.getenv(LoopbackCluster.WORLD_SIZE_ENV));
        try (FileStore store = new FileStore(Path.of(System.getenv(LoopbackCluster.RENDEZVOUS_DIR_ENV)));
             Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size).store(store)
                 .transport(transport).name("training-demo")))
        {
            final boolean agree = train(comm, rank, size);
            if (table)
            {
                timingTable(comm, rank, size, policy);
            }
            return agree ? 0 : 1;
        }
        catch (final RuntimeException ex)
        {
            ex.printStackTrace(System.out);
            return 1;
        }
    }

    private static boolean train(final Communicator comm, final int rank, final int size)
    {
        final LogisticShard shard = new LogisticShard(FEATURES, SAMPLES_PER_RANK, 1000 + rank);

        // the model and its gradient live in registered memory: the AllReduce reads and writes it in place
        final float[] weights = new float[FEATURES];
        final MemoryRegion gradientRegion = comm.allocate(4L * FEATURES);
        final CommBuffer gradient = CommBuffer.of(gradientRegion);
        final double[] loss = new double[1];
        final CommBuffer lossBuffer = CommBuffer.of(loss);
        final float[] grad = new float[FEATURES];
        for (int epoch = 1; epoch <= EPOCHS; epoch++)
        {
            loss[0] = 0;
            for (int step = 0; step < STEPS_PER_EPOCH; step++)
            {
                final double localLoss = shard.gradient(weights, grad);
                for (int j = 0; j < FEATURES; j++)
                {
                    gradientRegion.putInt(4L * j, Float.floatToRawIntBits(grad[j]));
                }
                comm.allReduce(gradient, gradient, FEATURES, DataType.FLOAT32, ReduceOp.AVG);
                for (int j = 0; j < FEATURES; j++)
                {
                    weights[j] -= (float)(LEARNING_RATE * Float.intBitsToFloat(gradientRegion.getInt(4L * j)));
                }
                loss[0] += localLoss;
            }
            comm.allReduce(lossBuffer, lossBuffer, 1, DataType.FLOAT64, ReduceOp.SUM);
            if (0 == rank)
            {
                System.out.printf("epoch %d  mean log-loss %.5f%n", epoch,
                    loss[0] / ((double)STEPS_PER_EPOCH * SAMPLES_PER_RANK * size));
            }
        }

        final boolean agree = weightsAgree(comm, weights);
        if (0 == rank || !agree)
        {
            System.out.printf("rank %d: weights agree with every rank bit for bit: %s (cosine to the true model " +
                "%.4f)%n", rank, agree ? "yes" : "NO", shard.cosineToTruth(weights));
        }
        return agree;
    }

    /**
     * Collective: gathers every rank's weights and compares their bits with rank 0's.
     *
     * @param comm    the communicator.
     * @param weights this rank's weights.
     * @return whether every rank's weights are bit for bit rank 0's.
     */
    static boolean weightsAgree(final Communicator comm, final float[] weights)
    {
        final int n = weights.length;
        final float[] all = new float[n * comm.size()];
        comm.allGather(CommBuffer.of(weights), CommBuffer.of(all), n, DataType.FLOAT32);
        boolean agree = true;
        for (int r = 1; r < comm.size(); r++)
        {
            for (int j = 0; j < n; j++)
            {
                agree &= Float.floatToRawIntBits(all[j]) == Float.floatToRawIntBits(all[r * n + j]);
            }
        }
        return agree;
    }

    private static void timingTable(final Communicator comm, final int rank, final int size,
        final WarmupPolicy policy)
    {
        final long maxBytes = 4L << 20;
        final MemoryRegion region = comm.allocate(maxBytes);
        final CommBuffer buffer = CommBuffer.of(region);
        final double[] time = new double[1];
        final CommBuffer timeBuffer = CommBuffer.of(time);
        final Warmup warmup = Warmup.over(comm, policy);
        if (0 == rank)
        {
            System.out.println();
            System.out.println("AllReduce float32 sum, in place, " + size + " ranks over " +
                comm.transport(1 % size) + "; time = the slowest rank's mean per call");
            System.out.println("warm-up: " + policy.describe() + ", just before each size");
            System.out.println("cost model: " + comm.costModel().describe());
            System.out.println("choice: " + ChoiceTable.of(bytes -> comm.allReduceAlgorithm(bytes, Algorithm.AUTO),
                1L << 30));
            System.out.printf("%12s %10s %20s %12s %12s  %s%n", "size (B)", "iters", "algorithm", "time (us)",
                "busbw (GB/s)", "warm-up");
        }
        for (long bytes = 8; bytes <= maxBytes; bytes *= 8)
        {
            final long count = bytes / 4;
            final int iterations = bytes <= 65536 ? 2000 : 40;
            final WarmupResult warm = warmup.run(calls ->
            {
                for (long i = 0; i < calls; i++)
                {
                    comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM);
                }
            });
            comm.barrier();
            final long start = System.nanoTime();
            for (int i = 0; i < iterations; i++)
            {
                comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM);
            }
            time[0] = (System.nanoTime() - start) / 1000.0 / iterations;
            comm.allReduce(timeBuffer, timeBuffer, 1, DataType.FLOAT64, ReduceOp.MAX);
            if (0 == rank)
            {
                final double busbw = bytes / (time[0] * 1000.0) * 2.0 * (size - 1) / size;
                System.out.printf("%12d %10d %20s %12.2f %12.3f  %s%n", bytes, iterations,
                    comm.allReduceAlgorithm(bytes, Algorithm.AUTO), time[0], busbw, warm.describe());
            }
        }
    }
}
