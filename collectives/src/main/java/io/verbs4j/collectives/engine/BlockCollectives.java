// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.algorithm.DataMover;
import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * The collectives that move blocks rather than reduce a whole vector on every rank: Broadcast and Reduce (rooted,
 * by a chain or a tree as the model picks), AllGather, ReduceScatter, AllToAll, Gather and Scatter. Each binds the
 * call's buffers ({@link BufferBinder}), starts the operation's clock in the algorithm set its size selects
 * ({@link CollectiveEngine#begin}), runs the algorithm (or the one-rank copy), and copies a staged result out. Runs
 * on the engine's thread, one operation at a time.
 */
final class BlockCollectives
{
    private final CollectiveEngine engine;
    private final BufferBinder buffers;
    private final Scratch scratch;
    private final MemView sendView;
    private final MemView recvView;
    private final Algorithm defaultAlgorithm;
    private final int rank;
    private final int size;

    /**
     * @param engine           the engine (operation clock, algorithm selector).
     * @param buffers          the engine's buffer binding.
     * @param scratch          the engine's work memory.
     * @param defaultAlgorithm the communicator's algorithm setting.
     */
    BlockCollectives(final CollectiveEngine engine, final BufferBinder buffers, final Scratch scratch,
        final Algorithm defaultAlgorithm)
    {
        this.engine = engine;
        this.buffers = buffers;
        this.scratch = scratch;
        this.sendView = buffers.sendView();
        this.recvView = buffers.recvView();
        this.defaultAlgorithm = defaultAlgorithm;
        this.rank = engine.rank();
        this.size = engine.size();
    }

    /**
     * Broadcast: the root's buffer to every rank (chain or tree).
     *
     * @param r the arguments.
     */
    void broadcast(final OpRequest r)
    {
        final long bytes = r.count * r.type.sizeBytes();
        final boolean chain = rootedChain(r, bytes);
        final AlgorithmSet s = engine.begin(r, bytes, r.type, chain ? Algorithm.RING : Algorithm.TREE, null);
        if (0 == r.count || 1 == size)
        {
            return;
        }
        buffers.bindOne(r.send, bytes, sendView, Scratch.SEND_STAGE, rank == r.root);
        (chain ? s.chainBroadcast : s.treeBroadcast).run(sendView, r.count, r.type, r.root);
        if (rank != r.root)
        {
            buffers.copyOut(r.send, sendView, 0, bytes);
        }
    }

    /**
     * Reduce: every rank's vector reduced into the root's receive buffer (chain or tree).
     *
     * @param r the arguments.
     */
    void reduce(final OpRequest r)
    {
        final long bytes = r.count * r.type.sizeBytes();
        final boolean chain = rootedChain(r, bytes);
        final AlgorithmSet s = engine.begin(r, bytes, r.type, r.op, chain ? Algorithm.RING : Algorithm.TREE);
        if (0 == r.count)
        {
            return;
        }
        final boolean root = rank == r.root;
        if (root)
        {
            buffers.bindPair(r.send, bytes, r.recv, bytes);
        }
        else
        {
            buffers.bindOne(r.send, bytes, sendView, Scratch.SEND_STAGE, true);
            recvView.wrapView(scratch.view(Scratch.WORK, bytes), 0, bytes);
        }
        if (1 == size)
        {
            DataMover.copy(recvView, 0, sendView, 0, bytes);
        }
        else
        {
            (chain ? s.chainReduce : s.treeReduce).run(sendView, recvView, r.count, r.type, r.op, r.root);
        }
        if (root)
        {
            if (ReduceOp.AVG == r.op)
            {
                DataMover.finishAverage(r.type, recvView, 0, r.count, size);
            }
            buffers.copyOut(r.recv, recvView, 0, bytes);
        }
    }

    /**
     * AllGather: every rank's block, in rank order, in every receive buffer.
     *
     * @param r the arguments.
     */
    void allGather(final OpRequest r)
    {
        final long block = r.count * r.type.sizeBytes();
        final AlgorithmSet s = engine.begin(r, block * size, r.type, null, null);
        if (0 == r.count)
        {
            return;
        }
        buffers.bindPair(r.send, block, r.recv, block * size);
        if (1 == size)
        {
            DataMover.copy(recvView, 0, sendView, 0, block);
        }
        else
        {
            s.allGather.run(sendView, recvView, r.count, r.type);
        }
        buffers.copyOut(r.recv, recvView, 0, block * size);
    }

    /**
     * ReduceScatter: block {@code rank} of the reduced vector in each receive buffer.
     *
     * @param r the arguments.
     */
    void reduceScatter(final OpRequest r)
    {
        final long block = r.count * r.type.sizeBytes();
        final AlgorithmSet s = engine.begin(r, block * size, r.type, r.op, null);
        if (0 == r.count)
        {
            return;
        }
        buffers.bindPair(r.send, block * size, r.recv, block);
        if (1 == size)
        {
            DataMover.copy(recvView, 0, sendView, 0, block);
        }
        else
        {
            s.reduceScatter.run(sendView, recvView, scratch.view(Scratch.WORK, block * size), r.count, r.type, r.op);
            if (ReduceOp.AVG == r.op)
            {
                DataMover.finishAverage(r.type, recvView, 0, r.count, size);
            }
        }
        buffers.copyOut(r.recv, recvView, 0, block);
    }

    /**
     * AllToAll: block {@code j} of rank {@code i} to block {@code i} of rank {@code j} (an in-place call is staged).
     *
     * @param r the arguments.
     */
    void allToAll(final OpRequest r)
    {
        final long bytes = r.count * r.type.sizeBytes() * size;
        final AlgorithmSet s = engine.begin(r, bytes, r.type, null, null);
        if (0 == r.count)
        {
            return;
        }
        buffers.bindPair(r.send, bytes, r.recv, bytes);
        MemView send = sendView;
        if (sendView.sameStart(recvView))
        {
            send = scratch.view(Scratch.WORK, bytes);
            DataMover.copy(send, 0, sendView, 0, bytes);
        }
        if (1 == size)
        {
            DataMover.copy(recvView, 0, send, 0, bytes);
        }
        else
        {
            s.allToAll.run(send, recvView, r.count, r.type);
        }
        buffers.copyOut(r.recv, recvView, 0, bytes);
    }

    /**
     * Gather: every rank's block, in rank order, in the root's receive buffer.
     *
     * @param r the arguments.
     */
    void gather(final OpRequest r)
    {
        final long block = r.count * r.type.sizeBytes();
        final AlgorithmSet s = engine.begin(r, block * size, r.type, null, null);
        if (0 == r.count)
        {
            return;
        }
        final boolean root = rank == r.root;
        if (root)
        {
            buffers.bindPair(r.send, block, r.recv, block * size);
        }
        else
        {
            buffers.bindOne(r.send, block, sendView, Scratch.SEND_STAGE, true);
        }
        if (1 == size)
        {
            DataMover.copy(recvView, 0, sendView, 0, block);
        }
        else
        {
            s.gatherScatter.gather(sendView, recvView, r.count, r.type, r.root);
        }
        if (root)
        {
            buffers.copyOut(r.recv, recvView, 0, block * size);
        }
    }

    /**
     * Scatter: block {@code j} of the root's send buffer to rank {@code j}.
     *
     * @param r the arguments.
     */
    void scatter(final OpRequest r)
    {
        final long block = r.count * r.type.sizeBytes();
        final AlgorithmSet s = engine.begin(r, block * size, r.type, null, null);
        if (0 == r.count)
        {
            return;
        }
        if (rank == r.root)
        {
            buffers.bindPair(r.send, block * size, r.recv, block);
        }
        else
        {
            buffers.bindOne(r.recv, block, recvView, Scratch.RECV_STAGE, false);
        }
        if (1 == size)
        {
            DataMover.copy(recvView, 0, sendView, 0, block);
        }
        else
        {
            s.gatherScatter.scatter(sendView, recvView, r.count, r.type, r.root);
        }
        buffers.copyOut(r.recv, recvView, 0, block);
    }

    private boolean rootedChain(final OpRequest r, final long bytes)
    {
        return engine.selector().rootedChain(Algorithm.AUTO != r.algorithm ? r.algorithm : defaultAlgorithm, bytes);
    }
}
