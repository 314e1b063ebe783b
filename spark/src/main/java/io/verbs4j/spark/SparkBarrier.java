// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spark;

import java.io.Serializable;
import java.util.Objects;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.rdd.RDD;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * Java access to Spark's barrier execution mode, which {@code JavaRDD} does not expose:
 * {@code SparkBarrier.mapPartitions(rdd, fn)} is Scala's {@code rdd.barrier().mapPartitions(fn)}. All partitions
 * run at once as one barrier stage (Spark refuses to start it with fewer free task slots than partitions), and a
 * failed task fails and retries the whole stage.
 * <pre>{@code
 * JavaRDD<double[]> out = SparkBarrier.mapPartitions(rdd, it -> {
 *     try (Communicator comm = BarrierCommunicators.create()) { ... }
 * });
 * }</pre>
 */
public final class SparkBarrier
{
    private SparkBarrier()
    {
    }

    /**
     * Runs {@code fn} on every partition of {@code rdd} as a barrier stage (lazily, like every transformation).
     *
     * @param rdd the input.
     * @param fn  the partition function; on its thread {@link BarrierCommunicators#create()} works.
     * @param <T> input element type.
     * @param <R> output element type.
     * @return the output RDD.
     */
    public static <T, R> JavaRDD<R> mapPartitions(
        final JavaRDD<T> rdd, final FlatMapFunction<java.util.Iterator<T>, R> fn)
    {
        Objects.requireNonNull(rdd, "rdd");
        Objects.requireNonNull(fn, "fn");
        @SuppressWarnings("unchecked")
        final ClassTag<R> tag = (ClassTag<R>)(ClassTag<?>)ClassTag$.MODULE$.AnyRef();
        final RDD<R> out = rdd.rdd().barrier().mapPartitions(new PartitionFunction<>(fn), false, tag);
        return JavaRDD.fromRDD(out, tag);
    }

    /** Adapts Spark's Java partition function to the Scala one {@code RDDBarrier} takes. */
    private static final class PartitionFunction<T, R>
        extends AbstractFunction1<scala.collection.Iterator<T>, scala.collection.Iterator<R>> implements Serializable
    {
        private static final long serialVersionUID = 1L;
        private final FlatMapFunction<java.util.Iterator<T>, R> fn;

        PartitionFunction(final FlatMapFunction<java.util.Iterator<T>, R> fn)
        {
            this.fn = fn;
        }

        @Override
        public scala.collection.Iterator<R> apply(final scala.collection.Iterator<T> input)
        {
            try
            {
                return CollectionConverters.asScala(fn.call(CollectionConverters.asJava(input)));
            }
            catch (final RuntimeException | Error ex)
            {
                throw ex;
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException("barrier partition function failed: " + ex, ex);
            }
        }
    }
}
