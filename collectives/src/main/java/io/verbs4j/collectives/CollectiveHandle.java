// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.verbs4j.collectives.engine.OpRequest;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * The future-like handle of a non-blocking call ({@link Communicator#async()}, {@link Communicator#submit}).
 * Operations run in issue order on the communicator's progress thread, like an NCCL stream; the caller overlaps
 * them with its own work and then waits.
 * <pre>{@code
 * CollectiveHandle h = comm.async().allReduce(grads, grads, n, DataType.FLOAT32, ReduceOp.AVG);
 * computeSomethingElse();
 * if (!h.await(Duration.ofSeconds(30))) { ... still running ... }
 * }</pre>
 * Handles come from a fixed pool ({@link CommunicatorContext#maxPending(int)}), so issuing allocates nothing. A
 * handle goes back to the pool when {@link #await} returns true or throws: after that, do not use it again (as
 * with {@code MPI_Wait}). The buffers of the call must not be touched until then.
 */
public final class CollectiveHandle
{
    static final int FREE = 0;
    static final int PENDING = 1;
    static final int DONE = 2;
    static final int FAILED = 3;

    final OpRequest request = new OpRequest();
    private final IdleStrategy idle = new BackoffIdleStrategy(100, 20, 1_000, 100_000);
    private volatile int state = FREE;
    private RuntimeException failure;

    CollectiveHandle()
    {
    }

    /** @return true once the operation finished (successfully or not). */
    public boolean isDone()
    {
        final int s = state;
        return DONE == s || FAILED == s;
    }

    /**
     * Waits for the operation.
     *
     * @param timeout longest wait.
     * @return true when it completed (the handle is recycled); false if still running after the timeout.
     * @throws CollectiveException if it failed (the handle is recycled).
     * @throws IllegalStateException if the handle was already awaited.
     */
    public boolean await(final Duration timeout)
    {
        return await(Objects.requireNonNull(timeout, "timeout").toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Waits for the operation.
     *
     * @param timeout longest wait.
     * @param unit    unit of {@code timeout}.
     * @return true when it completed (the handle is recycled); false if still running after the timeout.
     * @throws CollectiveException if it failed (the handle is recycled).
     * @throws IllegalStateException if the handle was already awaited.
     */
    public boolean await(final long timeout, final TimeUnit unit)
    {
        Objects.requireNonNull(unit, "unit");
        if (FREE == state)
        {
            throw new IllegalStateException("this handle was already awaited and went back to the pool");
        }
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        idle.reset();
        while (!isDone())
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            idle.idle();
        }
        if (FAILED == state)
        {
            final RuntimeException cause = failure;
            failure = null;
            state = FREE;
            if (cause instanceof CollectiveException)
            {
                final CollectiveException ce = (CollectiveException)cause;
                throw new CollectiveException(ce.reason(), ce.rank(), ce.peer(), ce.getMessage(), ce);
            }
            if (cause instanceof IllegalArgumentException)
            {
                throw new IllegalArgumentException(cause.getMessage(), cause);
            }
            throw new CollectiveException(CollectiveException.Reason.INTERNAL, -1, -1, String.valueOf(cause), cause);
        }
        state = FREE;
        return true;
    }

    boolean isFree()
    {
        return FREE == state;
    }

    void markPending()
    {
        failure = null;
        state = PENDING;
    }

    void complete(final RuntimeException error)
    {
        request.clear();
        failure = error;
        state = null == error ? DONE : FAILED;
    }
}
