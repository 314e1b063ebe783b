// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.Algorithm;

/**
 * Picks the algorithm of a call from the {@link CostModel}: the cheapest predicted time for the message size and
 * world size, unless an override pins one. The model is the same on every rank (calibration broadcasts it), so
 * every rank picks the same algorithm. Allocation-free.
 */
public final class AlgorithmSelector
{
    private static final Algorithm[] ALL_REDUCE = {
        Algorithm.RECURSIVE_DOUBLING, Algorithm.HALVING_DOUBLING, Algorithm.TREE, Algorithm.RING};

    private final CostModel model;
    private final int size;
    private final int chunkBytes;

    /**
     * @param model      the model.
     * @param size       ranks.
     * @param chunkBytes slot size.
     */
    public AlgorithmSelector(final CostModel model, final int size, final int chunkBytes)
    {
        this.model = model;
        this.size = size;
        this.chunkBytes = chunkBytes;
    }

    /** @return the model. */
    public CostModel model()
    {
        return model;
    }

    /**
     * @param override  the caller's choice ({@link Algorithm#AUTO} to let the model decide).
     * @param bytes     message size.
     * @return a concrete algorithm.
     */
    public Algorithm allReduce(final Algorithm override, final long bytes)
    {
        if (Algorithm.AUTO != override)
        {
            return override;
        }
        Algorithm best = Algorithm.RING;
        double bestNs = Double.MAX_VALUE;
        for (final Algorithm candidate : ALL_REDUCE)
        {
            final double ns = model.allReduceNs(candidate, bytes, size, chunkBytes);
            if (ns < bestNs)
            {
                bestNs = ns;
                best = candidate;
            }
        }
        return best;
    }

    /**
     * @param override the caller's choice: RING means chain, TREE means binary tree, anything else the model.
     * @param bytes    message size.
     * @return true for the chain.
     */
    public boolean rootedChain(final Algorithm override, final long bytes)
    {
        if (Algorithm.RING == override)
        {
            return true;
        }
        if (Algorithm.TREE == override)
        {
            return false;
        }
        return model.rootedNs(true, bytes, size, chunkBytes) <= model.rootedNs(false, bytes, size, chunkBytes);
    }
}
