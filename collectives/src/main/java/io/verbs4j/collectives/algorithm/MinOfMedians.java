// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import java.util.Arrays;

/**
 * The calibration's estimator: the samples are taken in rounds; each round's median, then the smallest of those.
 * The median removes single outliers inside a round (a preempted lap); the minimum over rounds removes rounds that
 * ran while the machine was busy. So one absurd sample cannot move the estimate, and a load burst during part of
 * the calibration does not either, as long as one round ran undisturbed. It biases towards the uncontended time,
 * which is what the cost model compares algorithms by. Pure; allocation on the setup path only.
 */
public final class MinOfMedians
{
    private MinOfMedians()
    {
    }

    /**
     * @param samples  round-major: round r is {@code samples[r * perRound .. (r + 1) * perRound - 1]}; a trailing
     *                 partial round is ignored.
     * @param perRound samples per round, at least 1.
     * @return the smallest round median (upper median for even rounds), or NaN without a complete round.
     */
    public static double estimate(final long[] samples, final int perRound)
    {
        if (perRound < 1)
        {
            throw new IllegalArgumentException("perRound must be >= 1: " + perRound);
        }
        final int rounds = samples.length / perRound;
        double best = Double.NaN;
        final long[] round = new long[perRound];
        for (int r = 0; r < rounds; r++)
        {
            System.arraycopy(samples, r * perRound, round, 0, perRound);
            Arrays.sort(round);
            final long median = round[perRound / 2];
            if (Double.isNaN(best) || median < best)
            {
                best = median;
            }
        }
        return best;
    }
}
