// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.algorithm.AlgorithmSelector;
import io.verbs4j.collectives.algorithm.DataMover;
import io.verbs4j.collectives.algorithm.PeerMemoryAllReduce;
import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * The collectives that reduce a whole vector on every rank: AllReduce and fused AllReduce (the buffers packed into
 * the fusion buffer, reduced once, unpacked). An AllReduce runs single-copy ({@link PeerMemoryAllReduce}) when the
 * engine has it on and the call qualifies, else the algorithm the caller, the communicator's setting or the model
 * picks, remembered for the last size. Each binds the call's buffers ({@link BufferBinder}), starts the operation's
 * clock ({@link CollectiveEngine#begin}), runs the algorithm (or the one-rank copy), divides for AVG, and copies a
 * staged result out. Runs on the engine's thread, one operation at a time.
 */
final class AllReduceCollectives
{
    private final CollectiveEngine engine;
    private final BufferBinder buffers;
    private final Scratch scratch;
    private final MemView sendView;
    private final MemView recvView;
    private final Algorithm defaultAlgorithm;
    private final int size;
    private long lastBytes = -1;
    private Algorithm lastOverride;
    private AlgorithmSelector lastSelector;
    private Algorithm lastAlgorithm;

    /**
     * @param engine           the engine (operation clock, algorithm selector, single-copy AllReduce).
     * @param buffers          the engine's buffer binding.
     * @param scratch          the engine's work memory.
     * @param defaultAlgorithm the communicator's algorithm setting.
     */
    AllReduceCollectives(final CollectiveEngine engine, final BufferBinder buffers, final Scratch scratch,
        final Algorithm defaultAlgorithm)
    {
        this.engine = engine;
        this.buffers = buffers;
        this.scratch = scratch;
        this.sendView = buffers.sendView();
        this.recvView = buffers.recvView();
        this.defaultAlgorithm = defaultAlgorithm;
        this.size = engine.size();
    }

    /**
     * @param r the operation that ran.
     * @return the AllReduce algorithm last chosen, for the history when {@code r} is an AllReduce; else null.
     */
    String algorithmOf(final OpRequest r)
    {
        return OpKind.ALL_REDUCE == r.kind && null != lastAlgorithm ? lastAlgorithm.name() : null;
    }

    /** {@link CollectiveEngine#allReduceAlgorithm} for the running operation: remembered for the last size. */
    private Algorithm chooseAllReduce(final Algorithm override, final long bytes)
    {
        final AlgorithmSelector selector = engine.selector();
        // Training loops repeat one size: the model's evaluation is not worth redoing every call.
        if (bytes != lastBytes || override != lastOverride || selector != lastSelector)
        {
            lastAlgorithm = engine.allReduceAlgorithm(override, bytes);
            lastBytes = bytes;
            lastOverride = override;
            lastSelector = selector;
        }
        return lastAlgorithm;
    }

    /**
     * AllReduce: every rank's vector reduced into every rank's receive buffer.
     *
     * @param r the arguments.
     */
    void allReduce(final OpRequest r)
    {
        final long bytes = r.count * r.type.sizeBytes();
        final PeerMemoryAllReduce peerMemory = engine.peerMemory();
        final boolean singleCopy = null != peerMemory && bytes >= engine.peerMemoryMinBytes() && r.count > 0 &&
            Algorithm.AUTO == r.algorithm && Algorithm.AUTO == defaultAlgorithm;
        if (singleCopy)
        {
            engine.beginOnFlagLinks(r, bytes, r.type, r.op, PeerMemoryAllReduce.NAME);
            buffers.bindPair(r.send, bytes, r.recv, bytes);
            if (peerMemory.run(sendView, recvView, r.count, r.type, r.op))
            {
                if (ReduceOp.AVG == r.op)
                {
                    DataMover.finishAverage(r.type, recvView, 0, r.count, size);
                }
                buffers.copyOut(r.recv, recvView, 0, bytes);
                return;
            }
            // Some rank's buffers cannot be mapped: every rank runs the usual algorithm on the views bound here.
        }
        final Algorithm algorithm = chooseAllReduce(r.algorithm, bytes);
        final AlgorithmSet s = engine.begin(r, bytes, r.type, r.op, algorithm);
        if (0 == r.count)
        {
            return;
        }
        if (!singleCopy)
        {
            buffers.bindPair(r.send, bytes, r.recv, bytes);
        }
        runAllReduce(s, algorithm, sendView, recvView, r.count, r.type, r.op);
        buffers.copyOut(r.recv, recvView, 0, bytes);
    }

    private void runAllReduce(final AlgorithmSet s, final Algorithm algorithm, final MemView send,
        final MemView recv, final long count, final DataType type, final ReduceOp op)
    {
        final long bytes = count * type.sizeBytes();
        if (1 == size)
        {
            DataMover.copy(recv, 0, send, 0, bytes);
            return;
        }
        switch (algorithm)
        {
            case TREE:
                s.treeAllReduce.run(send, recv, count, type, op);
                break;
            case RECURSIVE_DOUBLING:
                s.recursiveDoubling.run(send, recv, count, type, op);
                break;
            case HALVING_DOUBLING:
                s.halvingDoubling.run(send, recv, count, type, op);
                break;
            case ONE_SHOT:
                s.oneShot.run(send, recv, count, type, op);
                break;
            default:
                s.ringAllReduce.run(send, recv, count, type, op);
                break;
        }
        if (ReduceOp.AVG == op)
        {
            // the last sends may still read recv (zero copy): divide only once they are done
            s.steps.awaitSendsComplete();
            DataMover.finishAverage(type, recv, 0, count, size);
        }
    }

    /**
     * Fused AllReduce: several buffers, in place, packed into the fusion buffer and reduced as one.
     *
     * @param r the arguments.
     */
    void allReduceFused(final OpRequest r)
    {
        final int es = r.type.sizeBytes();
        long total = 0;
        for (int i = 0; i < r.fused.length; i++)
        {
            total += r.fusedCounts[i] * es;
        }
        final Algorithm algorithm = chooseAllReduce(r.algorithm, total);
        final AlgorithmSet s = engine.begin(r, total, r.type, r.op, algorithm);
        if (0 == total)
        {
            return;
        }
        final MemView fusion = scratch.view(Scratch.FUSION, total);
        long off = 0;
        for (int i = 0; i < r.fused.length; i++)
        {
            final long bytes = r.fusedCounts[i] * es;
            buffers.copyIn(r.fused[i], fusion, off, bytes);
            off += bytes;
        }
        runAllReduce(s, algorithm, fusion, fusion, total / es, r.type, r.op);
        off = 0;
        for (int i = 0; i < r.fused.length; i++)
        {
            final long bytes = r.fusedCounts[i] * es;
            buffers.copyOutAny(r.fused[i], fusion, off, bytes);
            off += bytes;
        }
    }
}
