// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import io.verbs4j.collectives.algorithm.DisseminationBarrier;
import io.verbs4j.collectives.algorithm.HalvingDoublingAllReduce;
import io.verbs4j.collectives.algorithm.LinearGather;
import io.verbs4j.collectives.algorithm.OneShotAllReduce;
import io.verbs4j.collectives.algorithm.PairwiseAllToAll;
import io.verbs4j.collectives.algorithm.PipelinedBroadcast;
import io.verbs4j.collectives.algorithm.PipelinedReduce;
import io.verbs4j.collectives.algorithm.RecursiveDoublingAllReduce;
import io.verbs4j.collectives.algorithm.RingAllGather;
import io.verbs4j.collectives.algorithm.RingAllReduce;
import io.verbs4j.collectives.algorithm.RingReduceScatter;
import io.verbs4j.collectives.algorithm.RootedTree;
import io.verbs4j.collectives.algorithm.Steps;
import io.verbs4j.collectives.algorithm.TreeAllReduce;
import io.verbs4j.collectives.algorithm.Waiter;
import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.topology.DoubleBinaryTree;
import io.verbs4j.collectives.topology.RingTopology;

/**
 * Every algorithm of the engine bound to one link set, with that set's waiter and primitives. The engine keeps one
 * set over the verbs links (large messages) and, where peers share a host, one over the flag links (small
 * messages); an operation runs entirely in the set its size selects, so the two message streams between two ranks
 * never interleave within an operation.
 */
final class AlgorithmSet
{
    final Links links;
    final Waiter waiter;
    final Steps steps;
    final RingAllReduce ringAllReduce;
    final TreeAllReduce treeAllReduce;
    final RecursiveDoublingAllReduce recursiveDoubling;
    final HalvingDoublingAllReduce halvingDoubling;
    final OneShotAllReduce oneShot;
    final PipelinedBroadcast chainBroadcast;
    final PipelinedBroadcast treeBroadcast;
    final PipelinedReduce chainReduce;
    final PipelinedReduce treeReduce;
    final RingAllGather allGather;
    final RingReduceScatter reduceScatter;
    final PairwiseAllToAll allToAll;
    final LinearGather gatherScatter;
    final DisseminationBarrier barrier;

    /**
     * @param waiter    the waiter over the set's links.
     * @param slotBytes the links' slot size.
     * @param ring      the ring order.
     */
    AlgorithmSet(final Waiter waiter, final int slotBytes, final RingTopology ring)
    {
        this.links = waiter.links();
        this.waiter = waiter;
        this.steps = new Steps(waiter, slotBytes);
        final int size = links.size();
        ringAllReduce = new RingAllReduce(steps, ring);
        treeAllReduce = new TreeAllReduce(steps, new DoubleBinaryTree(size));
        recursiveDoubling = new RecursiveDoublingAllReduce(steps);
        halvingDoubling = new HalvingDoublingAllReduce(steps);
        oneShot = new OneShotAllReduce(steps);
        chainBroadcast = new PipelinedBroadcast(steps, RootedTree.chain(size));
        treeBroadcast = new PipelinedBroadcast(steps, RootedTree.binary(size));
        chainReduce = new PipelinedReduce(steps, RootedTree.chain(size));
        treeReduce = new PipelinedReduce(steps, RootedTree.binary(size));
        allGather = new RingAllGather(steps, ring);
        reduceScatter = new RingReduceScatter(steps, ring);
        allToAll = new PairwiseAllToAll(steps);
        gatherScatter = new LinearGather(steps);
        barrier = new DisseminationBarrier(steps);
    }
}
