// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spark;

import java.util.List;

import io.verbs4j.spark.example.LogisticRegressionExample;
import io.verbs4j.spark.example.LogisticRegressionExample.PartitionResult;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's example job: converges, and every partition ends with bit-identical weights. */
class LogisticRegressionExampleTest
{
    @Test
    void convergesWithIdenticalWeightsOnEveryPartition()
    {
        try (JavaSparkContext sc = LocalSpark.start("verbs4j-logreg-test", 4))
        {
            final List<PartitionResult> results = LogisticRegressionExample.train(sc, 4, 4000, 25);
            assertEquals(4, results.size());
            assertTrue(LogisticRegressionExample.identical(results), "weights differ between partitions");
            final double[] losses = results.get(0).losses();
            assertTrue(losses[losses.length - 1] < 0.75 * losses[0],
                "loss did not fall: " + losses[0] + " -> " + losses[losses.length - 1]);
            for (int i = 1; i < losses.length; i++)
            {
                assertTrue(losses[i] <= losses[i - 1] + 1e-12, "loss rose at iteration " + i);
            }
            final double[] w = results.get(0).weights();
            assertTrue(LogisticRegressionExample.cosine(w, LogisticRegressionExample.trueModel()) > 0.95);
            assertTrue(LogisticRegressionExample.accuracy(sc, 4, 4000, w) > 0.75);
        }
    }
}
