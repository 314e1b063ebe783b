// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spark.example;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.spark.BarrierCommunicators;
import io.verbs4j.spark.SparkBarrier;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Data-parallel logistic regression on Spark with verbs4j: a cached RDD of synthetic labelled points, one barrier
 * task per partition; each iteration every task computes the gradient (and loss) of its partition and the tasks sum
 * them with one AllReduce, then all apply the same update, so every partition ends with bit-identical weights (the
 * XGBoost4J-Spark / Horovod-on-Spark pattern, with the collective outside Spark's shuffle).
 * <pre>
 *   spark-submit --class io.verbs4j.spark.example.LogisticRegressionExample \
 *     --conf spark.executor.extraJavaOptions=--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED \
 *     verbs4j-spark-0.1.0-SNAPSHOT.jar [partitions] [pointsPerPartition] [iterations]
 * </pre>
 * Without a master it runs in {@code local[partitions]}.
 */
public final class LogisticRegressionExample
{
    /** Features per point (plus a bias term). */
    public static final int FEATURES = 16;
    private static final double LEARNING_RATE = 1.0;
    private static final long SEED = 42;

    private LogisticRegressionExample()
    {
    }

    /**
     * One labelled point.
     *
     * @param label 0 or 1.
     * @param x     the features.
     * @serial exclude (shipped between Spark tasks only, not a stored format)
     */
    public record Point(double label, double[] x) implements Serializable
    {
    }

    /**
     * What one barrier task returns.
     *
     * @param partition  the partition (= rank).
     * @param transports the transport to each other rank, as {@code rank=transport} pairs.
     * @param weights    the final weights.
     * @param losses     the loss after each iteration.
     * @serial exclude (shipped between Spark tasks only, not a stored format)
     */
    public record PartitionResult(int partition, String transports, double[] weights, double[] losses)
        implements Serializable
    {
    }

    /**
     * @param args optional: partitions (4), points per partition (20000), iterations (60).
     */
    public static void main(final String[] args)
    {
        final int partitions = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        final int perPartition = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        final int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        final SparkConf conf = new SparkConf().setAppName("verbs4j logistic regression")
            .setIfMissing("spark.master", "local[" + partitions + "]");
        if (conf.get("spark.master").startsWith("local"))
        {
            conf.setIfMissing("spark.driver.host", "127.0.0.1").setIfMissing("spark.driver.bindAddress", "127.0.0.1");
        }
        try (JavaSparkContext sc = new JavaSparkContext(conf))
        {
            sc.setLogLevel("WARN");
            final long start = System.nanoTime();
            final List<PartitionResult> results = train(sc, partitions, perPartition, iterations);
            final double seconds = (System.nanoTime() - start) / 1e9;
            final PartitionResult first = results.get(0);
            final double[] losses = first.losses();
            for (int i = 0; i < losses.length; i += Math.max(1, losses.length / 6))
            {
                System.out.printf("iteration %3d  loss %.6f%n", i, losses[i]);
            }
            System.out.printf("iteration %3d  loss %.6f%n", losses.length - 1, losses[losses.length - 1]);
            System.out.println("links of partition 0: " + first.transports());
            System.out.println("weights identical on all " + results.size() + " partitions: " + identical(results));
            System.out.printf("accuracy %.4f, cosine(weights, true model) %.4f, %.1f s%n",
                accuracy(sc, partitions, perPartition, first.weights()), cosine(first.weights(), trueModel()), seconds);
            if (!identical(results))
            {
                System.exit(1);
            }
        }
    }

    /**
     * The synthetic data set: {@code perPartition} points per partition, labels drawn from a logistic model with
     * {@link #trueModel()}; deterministic for a given partition count.
     *
     * @param sc           the context.
     * @param partitions   number of partitions (= barrier tasks).
     * @param perPartition points in each.
     * @return the points, cached.
     */
    public static JavaRDD<Point> points(final JavaSparkContext sc, final int partitions, final int perPartition)
    {
        final double[] model = trueModel();
        final List<Integer> ids = IntStream.range(0, partitions).boxed().collect(Collectors.toList());
        return sc.parallelize(ids, partitions).flatMap(p ->
        {
            final Random random = new Random(SEED * 1_000_003L + p);
            final List<Point> out = new ArrayList<>(perPartition);
            for (int i = 0; i < perPartition; i++)
            {
                final double[] x = new double[FEATURES];
                for (int f = 0; f < FEATURES; f++)
                {
                    x[f] = random.nextGaussian();
                }
                final double probability = sigmoid(dot(model, x));
                out.add(new Point(random.nextDouble() < probability ? 1.0 : 0.0, x));
            }
            return out.iterator();
        }).cache();
    }

    /**
     * Trains: one barrier stage, {@code iterations} full-batch gradient steps, a gradient AllReduce each.
     *
     * @param sc           the context.
     * @param partitions   barrier tasks (the context needs at least this many task slots).
     * @param perPartition points per partition.
     * @param iterations   gradient steps.
     * @return one result per partition, in partition order.
     */
    public static List<PartitionResult> train(final JavaSparkContext sc, final int partitions, final int perPartition,
        final int iterations)
    {
        final JavaRDD<Point> data = points(sc, partitions, perPartition);
        final List<PartitionResult> results = new ArrayList<>(SparkBarrier.mapPartitions(data,
            (java.util.Iterator<Point> it) -> List.of(trainPartition(it, iterations)).iterator()).collect());
        results.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
        data.unpersist();
        return results;
    }

    /** The body of one barrier task: everything a user writes to train with verbs4j inside Spark. */
    private static PartitionResult trainPartition(final java.util.Iterator<Point> it, final int iterations)
    {
        final List<Point> points = new ArrayList<>();
        it.forEachRemaining(points::add);
        final double[] w = new double[FEATURES + 1];                  // weights + bias
        final double[] sums = new double[FEATURES + 3];               // gradient, bias gradient, loss, count
        final CommBuffer buffer = CommBuffer.of(sums);
        final double[] losses = new double[iterations];
        try (Communicator comm = BarrierCommunicators.create())
        {
            for (int step = 0; step < iterations; step++)
            {
                Arrays.fill(sums, 0.0);
                for (final Point point : points)
                {
                    final double p = sigmoid(dot(w, point.x()) + w[FEATURES]);
                    final double error = p - point.label();
                    for (int f = 0; f < FEATURES; f++)
                    {
                        sums[f] += error * point.x()[f];
                    }
                    sums[FEATURES] += error;
                    sums[FEATURES + 1] -= point.label() > 0.5 ? Math.log(Math.max(p, 1e-15)) :
                        Math.log(Math.max(1 - p, 1e-15));
                }
                sums[FEATURES + 2] = points.size();
                comm.allReduce(buffer, buffer, sums.length, DataType.FLOAT64, ReduceOp.SUM);
                final double count = sums[FEATURES + 2];
                for (int f = 0; f <= FEATURES; f++)
                {
                    w[f] -= LEARNING_RATE * sums[f] / count;
                }
                losses[step] = sums[FEATURES + 1] / count;
            }
            final StringBuilder transports = new StringBuilder();
            for (int q = 0; q < comm.size(); q++)
            {
                if (q != comm.rank())
                {
                    transports.append(transports.length() > 0 ? "," : "").append(q).append('=')
                        .append(comm.transport(q));
                }
            }
            return new PartitionResult(comm.rank(), transports.toString(), w, losses);
        }
    }

    /**
     * @param results one per partition.
     * @return whether all weight vectors are bit-identical.
     */
    public static boolean identical(final List<PartitionResult> results)
    {
        return results.stream().allMatch(r -> Arrays.equals(r.weights(), results.get(0).weights()));
    }

    /**
     * Fraction of the training points the model classifies right (a plain Spark job).
     *
     * @param sc           the context.
     * @param partitions   partitions of the data set.
     * @param perPartition points in each.
     * @param w            weights and bias.
     * @return accuracy in [0, 1].
     */
    public static double accuracy(final JavaSparkContext sc, final int partitions, final int perPartition,
        final double[] w)
    {
        final JavaRDD<Point> data = points(sc, partitions, perPartition);
        final double right = data.map(p -> (sigmoid(dot(w, p.x()) + w[FEATURES]) > 0.5) == (p.label() > 0.5) ? 1.0 :
            0.0).reduce(Double::sum);
        data.unpersist();
        return right / ((double)partitions * perPartition);
    }

    /** @return the model the labels come from. */
    public static double[] trueModel()
    {
        final double[] model = new double[FEATURES];
        for (int f = 0; f < FEATURES; f++)
        {
            model[f] = (f % 2 == 0 ? 1.0 : -1.0) * (0.5 + f / (double)FEATURES);
        }
        return model;
    }

    /**
     * @param a weights (bias ignored).
     * @param b model.
     * @return cosine similarity of the feature weights.
     */
    public static double cosine(final double[] a, final double[] b)
    {
        double ab = 0;
        double aa = 0;
        double bb = 0;
        for (int f = 0; f < FEATURES; f++)
        {
            ab += a[f] * b[f];
            aa += a[f] * a[f];
            bb += b[f] * b[f];
        }
        return ab / Math.sqrt(aa * bb);
    }

    private static double dot(final double[] w, final double[] x)
    {
        double sum = 0;
        for (int f = 0; f < FEATURES; f++)
        {
            sum += w[f] * x[f];
        }
        return sum;
    }

    private static double sigmoid(final double z)
    {
        return 1.0 / (1.0 + Math.exp(-z));
    }
}
