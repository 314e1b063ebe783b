// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

/**
 * How the ranks learn rank 0's warm-up decision: every rank calls {@link #share} once per window, and every rank
 * gets rank 0's value. Collective: a rank that left the warm-up while another still called would leave that one's
 * call without a peer.
 */
@FunctionalInterface
public interface SharedDecision
{
    /**
     * @param value this rank's value (only rank 0's counts).
     * @return rank 0's value, on every rank.
     */
    long share(long value);

    /**
     * Combines one figure of every rank (the warm-up's JIT activity in the last window). Collective, like
     * {@link #share}.
     *
     * @param value this rank's figure, at least 0.
     * @return the largest figure of all ranks, on every rank. By default: {@code value} (one rank, or a test that
     * stands for all of them).
     */
    default long max(final long value)
    {
        return value;
    }
}
