// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.demo;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.ClusterResult;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * The training demo with a crash in the middle (torchft's and NCCL {@code ncclCommShrink}'s use case): the same
 * logistic regression as {@link TrainingDemo}, one gradient AllReduce per step, but one rank dies at a chosen step
 * ({@code Runtime.halt}: no close, no goodbye, as {@code kill -9}; exit code 0 only so that the launcher lets the
 * others go on). Each survivor catches the {@link CollectiveException} of the step that failed, calls
 * {@link Communicator#shrink()}, and redoes that step on the survivors' communicator: the weights change only after
 * an AllReduce returned, so a failed step left them as they were, on every survivor. At the end the survivors check
 * that their weights agree bit for bit, and each prints how long after the crash its error came and how long after
 * that its first AllReduce among the survivors returned.
 * <pre>
 *   java -cp collectives.jar:... io.verbs4j.collectives.demo.ElasticTrainingDemo [ranks] [transport] [victim] [step]
 * </pre>
 * Defaults: 4 ranks, the transport chosen per peer, rank 1 dies at step 60 (of 200). With RANK set in the environment
 * it runs as one rank.
 */
public final class ElasticTrainingDemo
{
    private static final int FEATURES = TrainingDemo.FEATURES;
    private static final int SAMPLES_PER_RANK = TrainingDemo.SAMPLES_PER_RANK;
    private static final int STEPS = 200;
    private static final double LEARNING_RATE = TrainingDemo.LEARNING_RATE;
    private static final String CRASH_KEY = "elastic-demo-crashed-at";

    private final FileStore store;
    private final int worldRank;
    private Communicator comm;
    private long errorAtMs;
    private long firstAfterShrinkMs;

    private ElasticTrainingDemo(final FileStore store, final int worldRank, final Communicator comm)
    {
        this.store = store;
        this.worldRank = worldRank;
        this.comm = comm;
    }

    /**
     * @param args optional: ranks (default 4), transport (default: chosen per peer), the rank that dies (default 1),
     *             the step at which it dies (default 60).
     */
    public static void main(final String[] args)
    {
        final int ranks = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        final String transport = args.length > 1 ? args[1] : "";
        final int victim = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        final int crashStep = args.length > 3 ? Integer.parseInt(args[3]) : 60;
        if (ranks < 3 || victim < 0 || victim >= ranks || crashStep < 1 || crashStep >= STEPS)
        {
            throw new IllegalArgumentException("need at least 3 ranks, a victim in [0, ranks) and a step in [1, " +
                STEPS + "): " + Arrays.toString(args));
        }
        if (null != System.getenv(LoopbackCluster.RANK_ENV))
        {
            System.exit(rank(transport, victim, crashStep));
        }
        System.out.println("verbs4j elastic training demo: " + ranks + " processes, rank " + victim + " crashes at " +
            "step " + crashStep + " of " + STEPS + "; the survivors shrink the communicator and finish");
        final ClusterResult result = new LoopbackCluster(ranks).timeout(Duration.ofMinutes(5))
            .run(ElasticTrainingDemo.class.getName(), String.valueOf(ranks), transport, String.valueOf(victim),
                String.valueOf(crashStep));
        System.out.println(result.succeeded() ? "demo finished" : "demo FAILED: " + result);
        System.exit(result.succeeded() ? 0 : 1);
    }

    private static int rank(final String transport, final int victim, final int crashStep)
    {
        final int rank = Integer.parseInt(System.getenv(LoopbackCluster.RANK_ENV));
        final int size = Integer.parseInt(System.getenv(LoopbackCluster.WORLD_SIZE_ENV));
        try (FileStore store = new FileStore(Path.of(System.getenv(LoopbackCluster.RENDEZVOUS_DIR_ENV))))
        {
            final Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size)
                .store(store).transport(transport).name("elastic-demo"));
            final ElasticTrainingDemo demo = new ElasticTrainingDemo(store, rank, comm);
            try
            {
                return demo.train(rank == victim ? crashStep : -1) ? 0 : 1;
            }
            finally
            {
                demo.comm.close();
            }
        }
        catch (final RuntimeException ex)
        {
            ex.printStackTrace(System.out);
            return 1;
        }
    }

    /**
     * @param crashStep the step at which this rank dies, or -1.
     * @return whether the survivors' weights agree bit for bit.
     */
    private boolean train(final int crashStep)
    {
        final LogisticShard shard = new LogisticShard(FEATURES, SAMPLES_PER_RANK, 1000 + worldRank);
        final float[] weights = new float[FEATURES];
        final float[] local = new float[FEATURES];
        final float[] mean = new float[FEATURES];
        final double[] loss = new double[1];
        for (int step = 0; step < STEPS; step++)
        {
            if (step == crashStep)
            {
                store.set(CRASH_KEY, Long.toString(System.currentTimeMillis()).getBytes(StandardCharsets.US_ASCII));
                System.out.println("rank " + worldRank + ": crashing at step " + step + " (Runtime.halt)");
                System.out.flush();
                Runtime.getRuntime().halt(0);
            }
            loss[0] = shard.gradient(weights, local);
            // Out of place: a step that fails leaves the local gradient intact for the retry.
            allReduce(step, CommBuffer.of(local), CommBuffer.of(mean), FEATURES, DataType.FLOAT32, ReduceOp.AVG);
            for (int j = 0; j < FEATURES; j++)
            {
                weights[j] -= (float)(LEARNING_RATE * mean[j]);
            }
            if (0 == (step + 1) % 25)
            {
                final double[] total = new double[1];
                allReduce(step, CommBuffer.of(loss), CommBuffer.of(total), 1, DataType.FLOAT64, ReduceOp.SUM);
                if (0 == comm.rank())
                {
                    System.out.printf("step %3d  %d ranks  mean log-loss %.5f%n", step + 1, comm.size(),
                        total[0] / ((double)SAMPLES_PER_RANK * comm.size()));
                }
            }
        }
        return agree(shard, weights);
    }

    /** One AllReduce; after a failure, shrinks to the survivors and runs it again among them. */
    private void allReduce(final int step, final CommBuffer send, final CommBuffer receive, final int count,
        final DataType type, final ReduceOp op)
    {
        while (true)
        {
            try
            {
                comm.allReduce(send, receive, count, type, op);
                if (errorAtMs > 0 && 0 == firstAfterShrinkMs)
                {
                    firstAfterShrinkMs = System.currentTimeMillis();
                }
                return;
            }
            catch (final CollectiveException ex)
            {
                errorAtMs = System.currentTimeMillis();
                System.out.println("rank " + worldRank + ": step " + step + " failed (" + ex.reason() + ", rank " +
                    ex.peer() + "); shrinking");
                comm.close();
                final Communicator survivors = comm.shrink();
                comm = survivors;
            }
        }
    }

    private boolean agree(final LogisticShard shard, final float[] weights)
    {
        final int size = comm.size();
        final boolean agree = TrainingDemo.weightsAgree(comm, weights);
        final String crashedAt = new String(store.get(CRASH_KEY, Duration.ofSeconds(10)), StandardCharsets.US_ASCII);
        final long crashMs = Long.parseLong(crashedAt);
        System.out.printf("rank %d (now %d of %d): error %d ms after the crash, first AllReduce among the survivors " +
            "%d ms after the error; weights agree bit for bit: %s (cosine to the true model %.4f)%n", worldRank,
            comm.rank(), size, errorAtMs - crashMs, firstAfterShrinkMs - errorAtMs, agree ? "yes" : "NO",
            shard.cosineToTruth(weights));
        return agree && errorAtMs > 0;
    }
}
