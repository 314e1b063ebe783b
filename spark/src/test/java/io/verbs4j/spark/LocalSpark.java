// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/** A Spark context in local mode bound to loopback, for tests. */
final class LocalSpark
{
    private LocalSpark()
    {
    }

    static JavaSparkContext start(final String appName, final int slots)
    {
        final SparkConf conf = new SparkConf()
            .setMaster("local[" + slots + "]")
            .setAppName(appName)
            .set("spark.driver.host", "127.0.0.1")
            .set("spark.driver.bindAddress", "127.0.0.1")
            .set("spark.ui.enabled", "false")
            .set("spark.sql.shuffle.partitions", String.valueOf(slots))
            // a failed barrier task must fail the test, not be retried for minutes
            .set("spark.task.maxFailures", "1")
            .set("spark.stage.maxConsecutiveAttempts", "1");
        final JavaSparkContext sc = new JavaSparkContext(conf);
        sc.setLogLevel("WARN");
        return sc;
    }
}
