// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spark;

import io.verbs4j.collectives.CollectivesConfiguration;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.apache.spark.TaskContext;

/**
 * Communicators for the tasks of a Spark barrier stage: rank = {@code partitionId()}, size = number of tasks, and the
 * bootstrap's two address exchanges go through {@link BarrierTaskContext#allGather(String)}. Tasks on one host talk
 * over shared memory, tasks on different hosts over tcp, chosen per pair as usual.
 * <pre>{@code
 * JavaRDD<double[]> sums = SparkBarrier.mapPartitions(rdd, it -> {
 *     double[] v = ...;
 *     try (Communicator comm = BarrierCommunicators.create()) {
 *         comm.allReduce(CommBuffer.of(v), CommBuffer.of(v), v.length, DataType.FLOAT64, ReduceOp.SUM);
 *     }
 *     return List.of(v).iterator();
 * });
 * }</pre>
 * Executors need {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} (Agrona): set it in
 * {@code spark.executor.extraJavaOptions} (and {@code spark.driver.extraJavaOptions} in local mode, where the tasks
 * are threads of the driver). {@link #create()} checks and says so.
 */
public final class BarrierCommunicators
{
    private BarrierCommunicators()
    {
    }

    /**
     * The communicator of the calling barrier task, with default settings.
     *
     * @return a connected communicator; close it before the task ends (closing is collective).
     * @throws IllegalStateException if not called on the thread of a task of a barrier stage.
     */
    public static Communicator create()
    {
        return create(current());
    }

    /**
     * The communicator of a barrier task, with default settings.
     *
     * @param task the task's context.
     * @return a connected communicator.
     */
    public static Communicator create(final BarrierTaskContext task)
    {
        return Communicator.create(context(task));
    }

    /**
     * Settings for the communicator of a barrier task, to adjust before {@link Communicator#create}: rank, size,
     * exchange, name ({@code spark-stage-<stage>-<attempt>}) and, unless the system property
     * {@value CollectivesConfiguration#HOST_ADDRESS_PROP_NAME} is set, the host address tcp listens on (the
     * executor's address from {@link BarrierTaskContext#getTaskInfos()}).
     *
     * @param task the task's context.
     * @return a new context; set more (timeouts, transport, chunk size, ...) and pass it to
     *         {@link Communicator#create(CommunicatorContext)}. Do not replace the exchange.
     */
    public static CommunicatorContext context(final BarrierTaskContext task)
    {
        if (null == task)
        {
            throw notBarrier("the BarrierTaskContext is null");
        }
        checkJvmFlags();
        final BarrierTaskInfo[] infos = task.getTaskInfos();
        final int rank = task.partitionId();
        final CommunicatorContext context = new CommunicatorContext()
            .rank(rank)
            .size(infos.length)
            .exchange(new BarrierAllGatherExchange(task))
            .name("spark-stage-" + task.stageId() + "-" + task.stageAttemptNumber());
        if (null == System.getProperty(CollectivesConfiguration.HOST_ADDRESS_PROP_NAME))
        {
            final String address = hostOf(infos[rank].address());
            if (!address.isEmpty())
            {
                context.hostAddress(address);
            }
        }
        return context;
    }

    /**
     * The calling thread's barrier task context.
     *
     * @return {@code BarrierTaskContext.get()}, checked.
     * @throws IllegalStateException if not on a task thread of a barrier stage, with what to do instead.
     */
    public static BarrierTaskContext current()
    {
        final TaskContext task = TaskContext.get();
        if (null == task)
        {
            throw notBarrier("no Spark task is running on this thread (called on the driver, or on a thread of " +
                "your own?)");
        }
        if (!(task instanceof BarrierTaskContext))
        {
            throw notBarrier("stage " + task.stageId() + " is not a barrier stage");
        }
        return (BarrierTaskContext)task;
    }

    /**
     * Strips a port and IPv6 brackets from a Spark task address ({@code host}, {@code host:port}, {@code [v6]:port}).
     */
    static String hostOf(final String address)
    {
        if (null == address)
        {
            return "";
        }
        String host = address.trim();
        if (host.startsWith("["))
        {
            final int end = host.indexOf(']');
            return end > 0 ? host.substring(1, end) : host;
        }
        final int colon = host.indexOf(':');
        if (colon > 0 && host.indexOf(':', colon + 1) < 0)
        {
            host = host.substring(0, colon);
        }
        return host;
    }

    private static IllegalStateException notBarrier(final String what)
    {
        return new IllegalStateException("verbs4j: a Spark communicator must be created inside a task of a barrier " +
            "stage, but " + what + ". Run your code in rdd.barrier().mapPartitions(...) (Java: " +
            "SparkBarrier.mapPartitions(javaRdd, fn)), with at least as many free task slots as partitions.");
    }

    private static void checkJvmFlags()
    {
        final Module base = Object.class.getModule();
        if (!base.isExported("jdk.internal.misc", BarrierCommunicators.class.getModule()))
        {
            throw new IllegalStateException("verbs4j needs the JVM flag --add-exports " +
                "java.base/jdk.internal.misc=ALL-UNNAMED (Agrona) on every executor: set it in " +
                "spark.executor.extraJavaOptions (and spark.driver.extraJavaOptions for local mode)");
        }
    }
}
