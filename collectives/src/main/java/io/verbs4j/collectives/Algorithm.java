// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.util.Locale;

/**
 * Algorithm choice for the collectives that have several (AllReduce; Broadcast and Reduce use RING as a pipelined
 * chain and TREE as a pipelined binary tree). {@link #AUTO} lets the communicator's cost model choose per call; any
 * other value pins it, which also pins the reduction order and therefore the result bits from run to run.
 * Every rank must make the same choice.
 */
public enum Algorithm
{
    /** Choose by the calibrated cost model (message size, world size, measured latency and bandwidth). */
    AUTO,
    /** Pipelined ring: reduce-scatter then all-gather, chunked. Bandwidth-optimal; latency grows with size. */
    RING,
    /** Pipelined double binary tree: reduce up and broadcast down, each tree carrying half of the data. */
    TREE,
    /** Recursive doubling: log2(n) full-buffer exchanges. Latency-optimal for small messages. */
    RECURSIVE_DOUBLING,
    /** Recursive halving (reduce-scatter) then doubling (all-gather), Rabenseifner's algorithm. */
    HALVING_DOUBLING,
    /**
     * One shot: every rank sends its whole buffer to every other rank in one round and folds all contributions in
     * rank order. One round of latency for {@code n - 1} times the bytes: for small messages, above all with more
     * ranks than cores.
     */
    ONE_SHOT;

    /**
     * @param text a name, case-insensitive, '-' accepted for '_'.
     * @return the algorithm.
     * @throws IllegalArgumentException listing the valid names.
     */
    public static Algorithm parse(final String text)
    {
        final String name = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (final Algorithm algorithm : values())
        {
            if (algorithm.name().equals(name))
            {
                return algorithm;
            }
        }
        throw new IllegalArgumentException("unknown collectives algorithm '" + text + "'; use one of " +
            java.util.Arrays.toString(values()));
    }
}
