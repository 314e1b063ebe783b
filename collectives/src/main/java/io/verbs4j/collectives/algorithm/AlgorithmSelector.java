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
    /**
     * Candidates in the order that breaks ties: the first of equally cheap ones wins. The ring comes before
     * halving-doubling because at two ranks the two send the same messages and the model prices them the same, but
     * the ring's rounds pipeline (the all-gather of one round overlaps the reduce-scatter of the next, and each
     * reduced piece leaves at once), where halving-doubling finishes its whole reduce-scatter first. Measured at two
     * ranks (float32 sum, out of place, per call): tcp 1 MiB 411-453 µs against 518-602, 4 MiB 1.55-1.71 against
     * 2.10-2.49 ms, 16 MiB 5.8-6.6 against 9.5 ms, 64 MiB 38 against 43 ms; shm 1 MiB the same, 4 MiB 677-708 against
     * 779-1442 µs, 16 MiB 2.75 against 3.00 ms. At more ranks the model does not tie them.
     */
    private static final Algorithm[] ALL_REDUCE = {
        Algorithm.RECURSIVE_DOUBLING, Algorithm.RING, Algorithm.HALVING_DOUBLING, Algorithm.TREE, Algorithm.ONE_SHOT};

    /**
     * Most ranks at which the model may pick {@link Algorithm#ONE_SHOT}: each rank posts {@code n - 1} messages per
     * piece, a cost the model has no term for (its alpha is a hop, measured one message at a time). Measured on 2
     * and 4 ranks; pinning it stays possible at any size.
     */
    public static final int ONE_SHOT_MAX_RANKS = 8;

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
            if (Algorithm.ONE_SHOT == candidate && size > ONE_SHOT_MAX_RANKS)
            {
                continue;
            }
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
