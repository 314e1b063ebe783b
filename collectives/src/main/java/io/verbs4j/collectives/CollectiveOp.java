// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import io.verbs4j.collectives.engine.OpKind;
import io.verbs4j.collectives.engine.OpRequest;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * One collective call as a reusable, mutable descriptor (the "stateful verb call", like {@link io.verbs4j.SendRequest}
 * for verbs): set it once, run it many times, with no allocation per call.
 * <pre>{@code
 * CollectiveOp step = new CollectiveOp().allReduce(grads, grads, n, DataType.FLOAT32, ReduceOp.AVG);
 * for (int i = 0; i < steps; i++)
 * {
 *     train(grads);
 *     comm.run(step);                                  // blocking, on this thread
 * }
 * CollectiveHandle h = comm.submit(step);             // or non-blocking, on the progress thread
 * }</pre>
 * {@link Communicator#run} and {@link Communicator#submit} copy the descriptor, so it may be changed or submitted
 * again as soon as they return; the buffers it names must stay untouched until the call completes. The typed
 * methods of {@link Communicator} and of {@link Communicator#async()} are shorthands for these setters. Not
 * thread-safe: one thread sets and submits it.
 */
public final class CollectiveOp
{
    private final OpRequest request = new OpRequest();

    /** An empty descriptor: set one operation before running it. */
    public CollectiveOp()
    {
    }

    /**
     * AllReduce: {@code recv[i] = send_0[i] op ... op send_{n-1}[i]} on every rank.
     *
     * @param send  contributions ({@code count} elements).
     * @param recv  results; may be the same buffer as send (in place).
     * @param count elements (0 is a no-op).
     * @param type  element type.
     * @param op    operator (bitwise ops need an integer type).
     * @return this.
     */
    public CollectiveOp allReduce(final CommBuffer send, final CommBuffer recv, final long count, final DataType type,
        final ReduceOp op)
    {
        request.set(OpKind.ALL_REDUCE, send, recv, count, type, op, 0);
        return this;
    }

    /**
     * AllReduce of several buffers in one operation (DDP bucket, Horovod tensor fusion), in place.
     *
     * @param buffers the buffers (the array is kept, not copied).
     * @param counts  elements of each.
     * @param type    element type of all.
     * @param op      operator.
     * @return this.
     */
    public CollectiveOp allReduceFused(final CommBuffer[] buffers, final long[] counts, final DataType type,
        final ReduceOp op)
    {
        request.set(OpKind.ALL_REDUCE_FUSED, null, null, 0, type, op, 0);
        request.fused = buffers;
        request.fusedCounts = counts;
        return this;
    }

    /**
     * Broadcast: the root's buffer is copied into every rank's buffer.
     *
     * @param buffer data at the root, result elsewhere.
     * @param count  elements.
     * @param type   element type.
     * @param root   the root.
     * @return this.
     */
    public CollectiveOp broadcast(final CommBuffer buffer, final long count, final DataType type, final int root)
    {
        request.set(OpKind.BROADCAST, buffer, buffer, count, type, null, root);
        return this;
    }

    /**
     * Reduce to the root.
     *
     * @param send  contributions.
     * @param recv  result at the root (ignored elsewhere, may be null there).
     * @param count elements.
     * @param type  element type.
     * @param op    operator.
     * @param root  the root.
     * @return this.
     */
    public CollectiveOp reduce(final CommBuffer send, final CommBuffer recv, final long count, final DataType type,
        final ReduceOp op, final int root)
    {
        request.set(OpKind.REDUCE, send, recv, count, type, op, root);
        return this;
    }

    /**
     * AllGather: rank r's {@code countPerRank} elements land at block r of every rank's recv.
     *
     * @param send         this rank's block.
     * @param recv         {@code size × countPerRank} elements.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @return this.
     */
    public CollectiveOp allGather(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type)
    {
        request.set(OpKind.ALL_GATHER, send, recv, countPerRank, type, null, 0);
        return this;
    }

    /**
     * ReduceScatter: block r of the reduction lands on rank r.
     *
     * @param send         {@code size × countPerRank} elements.
     * @param recv         this rank's reduced block.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param op           operator.
     * @return this.
     */
    public CollectiveOp reduceScatter(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final ReduceOp op)
    {
        request.set(OpKind.REDUCE_SCATTER, send, recv, countPerRank, type, op, 0);
        return this;
    }

    /**
     * AllToAll: block j of rank i's send lands at block i of rank j's recv.
     *
     * @param send         {@code size × countPerRank} elements.
     * @param recv         {@code size × countPerRank} elements.
     * @param countPerRank elements per block.
     * @param type         element type.
     * @return this.
     */
    public CollectiveOp allToAll(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type)
    {
        request.set(OpKind.ALL_TO_ALL, send, recv, countPerRank, type, null, 0);
        return this;
    }

    /**
     * Gather to the root.
     *
     * @param send         this rank's block.
     * @param recv         {@code size × countPerRank} elements at the root.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param root         the root.
     * @return this.
     */
    public CollectiveOp gather(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final int root)
    {
        request.set(OpKind.GATHER, send, recv, countPerRank, type, null, root);
        return this;
    }

    /**
     * Scatter from the root.
     *
     * @param send         {@code size × countPerRank} elements at the root.
     * @param recv         this rank's block.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param root         the root.
     * @return this.
     */
    public CollectiveOp scatter(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final int root)
    {
        request.set(OpKind.SCATTER, send, recv, countPerRank, type, null, root);
        return this;
    }

    /**
     * Barrier: completes once every rank has entered it.
     *
     * @return this.
     */
    public CollectiveOp barrier()
    {
        request.set(OpKind.BARRIER, null, null, 0, null, null, 0);
        return this;
    }

    /**
     * The final barrier of {@link Communicator#close()}: a barrier whose messages also tell each peer that this rank
     * leaves, so that a peer still in another call reports "rank r left during ..." instead of a mismatch.
     *
     * @return this.
     */
    CollectiveOp closingBarrier()
    {
        request.set(OpKind.BARRIER, null, null, 0, null, null, 0);
        request.leaving = true;
        return this;
    }

    /**
     * Point-to-point send; the peer runs a matching {@link #recv}.
     *
     * @param buffer data.
     * @param count  elements.
     * @param type   element type.
     * @param peer   destination rank.
     * @return this.
     */
    public CollectiveOp send(final CommBuffer buffer, final long count, final DataType type, final int peer)
    {
        request.set(OpKind.SEND, buffer, null, count, type, null, peer);
        return this;
    }

    /**
     * Point-to-point receive.
     *
     * @param buffer destination.
     * @param count  elements.
     * @param type   element type.
     * @param peer   source rank.
     * @return this.
     */
    public CollectiveOp recv(final CommBuffer buffer, final long count, final DataType type, final int peer)
    {
        request.set(OpKind.RECV, null, buffer, count, type, null, peer);
        return this;
    }

    /**
     * Sends to one peer while receiving from another (or the same) without deadlock.
     *
     * @param send      data to send.
     * @param sendCount elements to send.
     * @param to        destination.
     * @param recv      destination buffer.
     * @param recvCount elements to receive.
     * @param from      source.
     * @param type      element type.
     * @return this.
     */
    public CollectiveOp sendRecv(final CommBuffer send, final long sendCount, final int to, final CommBuffer recv,
        final long recvCount, final int from, final DataType type)
    {
        request.set(OpKind.SEND_RECV, send, recv, sendCount, type, null, to);
        request.recvCount = recvCount;
        request.peer2 = from;
        return this;
    }

    /**
     * Pins the algorithm of an AllReduce, Broadcast or Reduce (every rank must pass the same). Setting an operation
     * resets it to {@link Algorithm#AUTO}.
     *
     * @param algorithm the algorithm, or AUTO (null also means AUTO).
     * @return this.
     */
    public CollectiveOp algorithm(final Algorithm algorithm)
    {
        request.algorithm = null == algorithm ? Algorithm.AUTO : algorithm;
        return this;
    }

    /** @return the operation's name ({@code "allReduce"}, ...), or {@code "none"} before one was set. */
    public String name()
    {
        return null == request.kind ? "none" : request.kind.label();
    }

    /**
     * Copies the descriptor into the request that runs it.
     *
     * @param target the request.
     * @return the target.
     * @throws IllegalStateException if no operation was set.
     */
    OpRequest copyTo(final OpRequest target)
    {
        if (null == request.kind)
        {
            throw new IllegalStateException("the CollectiveOp has no operation: call allReduce(...), broadcast(...) " +
                "or another setter first");
        }
        target.set(request.kind, request.send, request.recv, request.count, request.type, request.op, request.root);
        target.recvCount = request.recvCount;
        target.peer2 = request.peer2;
        target.algorithm = request.algorithm;
        target.fused = request.fused;
        target.fusedCounts = request.fusedCounts;
        target.leaving = request.leaving;
        return target;
    }

    /** Drops the references to the buffers (a descriptor used as scratch by the typed shorthands). */
    void forget()
    {
        request.clear();
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "CollectiveOp{" + name() + ", count=" + request.count + ", type=" + request.type + ", op=" +
            request.op + ", root/peer=" + request.root + ", algorithm=" + request.algorithm + '}';
    }
}
