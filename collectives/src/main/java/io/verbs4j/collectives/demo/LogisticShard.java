// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.demo;

import java.util.Random;

/**
 * One rank's shard of the demos' synthetic data set (logistic regression): features drawn per rank, labels from a
 * fixed "true" model every rank knows, and the local gradient and log-loss of a weight vector over the shard. The
 * same seed gives the same shard in every process, so the demos' results are reproducible.
 */
final class LogisticShard
{
    private final float[][] x;
    private final float[] y;
    private final double[] trueWeights;

    /**
     * @param features features per sample.
     * @param samples  samples in this shard.
     * @param seed     the shard's seed (the demos use 1000 + rank).
     */
    LogisticShard(final int features, final int samples, final long seed)
    {
        final Random truth = new Random(42);
        trueWeights = new double[features];
        for (int j = 0; j < features; j++)
        {
            trueWeights[j] = truth.nextGaussian();
        }
        final Random random = new Random(seed);
        x = new float[samples][features];
        y = new float[samples];
        for (int i = 0; i < samples; i++)
        {
            double z = 0;
            for (int j = 0; j < features; j++)
            {
                x[i][j] = (float)random.nextGaussian();
                z += trueWeights[j] * x[i][j];
            }
            y[i] = random.nextDouble() < sigmoid(z) ? 1 : 0;
        }
    }

    /** @return samples in the shard. */
    int samples()
    {
        return y.length;
    }

    /**
     * @param weights  the model.
     * @param gradient filled with the mean gradient of the log-loss over the shard.
     * @return the summed log-loss over the shard.
     */
    double gradient(final float[] weights, final float[] gradient)
    {
        java.util.Arrays.fill(gradient, 0f);
        double loss = 0;
        for (int i = 0; i < y.length; i++)
        {
            double z = 0;
            for (int j = 0; j < weights.length; j++)
            {
                z += weights[j] * x[i][j];
            }
            final double p = sigmoid(z);
            loss -= y[i] * Math.log(p + 1e-12) + (1 - y[i]) * Math.log(1 - p + 1e-12);
            final double error = p - y[i];
            for (int j = 0; j < weights.length; j++)
            {
                gradient[j] += (float)(error * x[i][j] / y.length);
            }
        }
        return loss;
    }

    /**
     * @param weights a model.
     * @return its cosine similarity to the true model.
     */
    double cosineToTruth(final float[] weights)
    {
        double cosine = 0;
        double norm = 0;
        double trueNorm = 0;
        for (int j = 0; j < weights.length; j++)
        {
            cosine += weights[j] * trueWeights[j];
            norm += weights[j] * weights[j];
            trueNorm += trueWeights[j] * trueWeights[j];
        }
        return cosine / Math.sqrt(norm * trueNorm);
    }

    private static double sigmoid(final double z)
    {
        return 1.0 / (1.0 + Math.exp(-z));
    }
}
