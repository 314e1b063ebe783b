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
}
