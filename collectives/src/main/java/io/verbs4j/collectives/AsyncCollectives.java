// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.util.Objects;

import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * The non-blocking forms of a communicator's operations ({@link Communicator#async()}): each queues the call for
 * the communicator's progress thread and returns its {@link CollectiveHandle} at once. Calls run in issue order,
 * one at a time; the buffers must stay untouched until the handle's {@link CollectiveHandle#await} returns. Same
 * threading rule as the communicator: one issuing thread. Allocation-free (handles come from a pool).
 * <pre>{@code
 * CollectiveHandle h = comm.async().allReduce(g, g, n, DataType.FLOAT32, ReduceOp.AVG);
 * computeSomethingElse();
 * h.await(Duration.ofSeconds(30));
 * }</pre>
 */
public final class AsyncCollectives
{
    private final AsyncRunner runner;
    private final CollectiveOp scratch = new CollectiveOp();

    AsyncCollectives(final AsyncRunner runner)
    {
        this.runner = runner;
    }

    /**
     * Non-blocking {@link CollectiveOp}: the descriptor is copied, so it may be reused at once.
     *
     * @param op the operation.
     * @return the handle.
     */
    public CollectiveHandle submit(final CollectiveOp op)
    {
        Objects.requireNonNull(op, "op");
        final CollectiveHandle h = runner.acquire();
        op.copyTo(h.request);
        if (op == scratch)
        {
            scratch.forget();
        }
        try
        {
            // Bad arguments are refused here, at the call, as the blocking form does; the handle stays in the pool.
            runner.validate(h.request);
        }
        catch (final IllegalArgumentException ex)
        {
            h.request.clear();
            throw ex;
        }
        return runner.submit(h);
    }

    /**
     * @param send  contributions.
     * @param recv  results (may be send).
     * @param count elements.
     * @param type  element type.
     * @param op    operator.
     * @return the handle of {@link Communicator#allReduce(CommBuffer, CommBuffer, long, DataType, ReduceOp)}.
     */
    public CollectiveHandle allReduce(final CommBuffer send, final CommBuffer recv, final long count,
        final DataType type, final ReduceOp op)
    {
        return submit(scratch.allReduce(send, recv, count, type, op));
    }

    /**
     * @param buffers buffers.
     * @param counts  counts.
     * @param type    element type.
     * @param op      operator.
     * @return the handle of {@link Communicator#allReduceFused}.
     */
    public CollectiveHandle allReduceFused(final CommBuffer[] buffers, final long[] counts, final DataType type,
        final ReduceOp op)
    {
        return submit(scratch.allReduceFused(buffers, counts, type, op));
    }

    /**
     * @param buffer data at the root, result elsewhere.
     * @param count  elements.
     * @param type   element type.
     * @param root   root.
     * @return the handle of {@link Communicator#broadcast}.
     */
    public CollectiveHandle broadcast(final CommBuffer buffer, final long count, final DataType type, final int root)
    {
        return submit(scratch.broadcast(buffer, count, type, root));
    }

    /**
     * @param send  contributions.
     * @param recv  result at the root.
     * @param count elements.
     * @param type  element type.
     * @param op    operator.
     * @param root  root.
     * @return the handle of {@link Communicator#reduce}.
     */
    public CollectiveHandle reduce(final CommBuffer send, final CommBuffer recv, final long count,
        final DataType type, final ReduceOp op, final int root)
    {
        return submit(scratch.reduce(send, recv, count, type, op, root));
    }

    /**
     * @param send         this rank's block.
     * @param recv         every rank's blocks.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @return the handle of {@link Communicator#allGather}.
     */
    public CollectiveHandle allGather(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type)
    {
        return submit(scratch.allGather(send, recv, countPerRank, type));
    }

    /**
     * @param send         every rank's blocks.
     * @param recv         this rank's reduced block.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param op           operator.
     * @return the handle of {@link Communicator#reduceScatter}.
     */
    public CollectiveHandle reduceScatter(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final ReduceOp op)
    {
        return submit(scratch.reduceScatter(send, recv, countPerRank, type, op));
    }

    /**
     * @param send         blocks for every rank.
     * @param recv         blocks from every rank.
     * @param countPerRank elements per block.
     * @param type         element type.
     * @return the handle of {@link Communicator#allToAll}.
     */
    public CollectiveHandle allToAll(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type)
    {
        return submit(scratch.allToAll(send, recv, countPerRank, type));
    }

    /**
     * @param send         this rank's block.
     * @param recv         every rank's blocks at the root.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param root         root.
     * @return the handle of {@link Communicator#gather}.
     */
    public CollectiveHandle gather(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final int root)
    {
        return submit(scratch.gather(send, recv, countPerRank, type, root));
    }

    /**
     * @param send         every rank's blocks at the root.
     * @param recv         this rank's block.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param root         root.
     * @return the handle of {@link Communicator#scatter}.
     */
    public CollectiveHandle scatter(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final int root)
    {
        return submit(scratch.scatter(send, recv, countPerRank, type, root));
    }

    /** @return the handle of {@link Communicator#barrier}. */
    public CollectiveHandle barrier()
    {
        return submit(scratch.barrier());
    }

    /**
     * @param buffer data.
     * @param count  elements.
     * @param type   element type.
     * @param peer   destination.
     * @return the handle of {@link Communicator#send}.
     */
    public CollectiveHandle send(final CommBuffer buffer, final long count, final DataType type, final int peer)
    {
        return submit(scratch.send(buffer, count, type, peer));
    }

    /**
     * @param buffer destination.
     * @param count  elements.
     * @param type   element type.
     * @param peer   source.
     * @return the handle of {@link Communicator#recv}.
     */
    public CollectiveHandle recv(final CommBuffer buffer, final long count, final DataType type, final int peer)
    {
        return submit(scratch.recv(buffer, count, type, peer));
    }
}
