// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spark;

import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.verbs4j.collectives.rendezvous.AddressExchange;
import io.verbs4j.collectives.rendezvous.RendezvousException;
import io.verbs4j.collectives.rendezvous.RendezvousTimeoutException;
import org.apache.spark.BarrierTaskContext;

/**
 * {@link AddressExchange} over Spark's {@link BarrierTaskContext#allGather(String)}: the bytes travel Base64-encoded
 * through Spark's barrier coordinator on the driver, so no port, store or shared file is needed.
 *
 * <p>Spark's own barrier timeout ({@code spark.barrier.sync.timeout}) is a year by default; this class bounds each
 * exchange by the timeout it is given instead. The Spark call then runs on a short-lived daemon thread and the task
 * thread waits for it; when the timeout passes the task fails with {@link RendezvousTimeoutException}, and Spark fails
 * the whole barrier stage (and the abandoned call with it). Like every Spark barrier call, the exchange counts: all
 * tasks of the stage must make the same sequence of {@code allGather}/{@code barrier} calls.
 */
public final class BarrierAllGatherExchange implements AddressExchange
{
    private final BarrierTaskContext context;
    private final int partition;
    private final int tasks;
    private int round;

    /**
     * @param context the barrier task's context ({@code BarrierTaskContext.get()} on the task's thread).
     */
    public BarrierAllGatherExchange(final BarrierTaskContext context)
    {
        this.context = Objects.requireNonNull(context, "context");
        this.partition = context.partitionId();
        this.tasks = context.getTaskInfos().length;
    }

    /** {@inheritDoc} */
    @Override
    public synchronized byte[][] allGather(final int rank, final int size, final byte[] mine, final Duration timeout)
    {
        if (rank != partition || size != tasks)
        {
            throw new IllegalArgumentException("rank " + rank + " of " + size + " does not match the barrier task " +
                "(partition " + partition + " of " + tasks + " tasks); with Spark's allGather rank = partitionId and " +
                "size = number of tasks of the stage");
        }
        Objects.requireNonNull(mine, "mine");
        if (null == timeout || timeout.isZero() || timeout.isNegative())
        {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        final int thisRound = ++round;
        final String encoded = Base64.getEncoder().encodeToString(mine);
        final FutureTask<String[]> call = new FutureTask<>(() -> context.allGather(encoded));
        final Thread thread = new Thread(call, "verbs4j-spark-allGather-p" + partition + "-" + thisRound);
        thread.setDaemon(true);
        thread.start();
        final String[] all;
        try
        {
            all = call.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new RendezvousTimeoutException(List.of("BarrierTaskContext.allGather #" + thisRound + " of stage " +
                context.stageId() + " (waiting for all " + tasks + " barrier tasks; is every task of the stage " +
                "creating its communicator, and are there enough free slots to run them all at once?)"), timeout);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            call.cancel(true);
            throw new RendezvousException("interrupted (task killed?) while in BarrierTaskContext.allGather", ex);
        }
        catch (final ExecutionException ex)
        {
            throw new RendezvousException("BarrierTaskContext.allGather failed in partition " + partition + ": " +
                ex.getCause(), ex.getCause());
        }
        if (all.length != size)
        {
            throw new RendezvousException("BarrierTaskContext.allGather returned " + all.length + " messages for " +
                size + " tasks");
        }
        final byte[][] bytes = new byte[size][];
        for (int r = 0; r < size; r++)
        {
            bytes[r] = r == rank ? mine.clone() : Base64.getDecoder().decode(all[r]);
        }
        return bytes;
    }
}
