// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import io.verbs4j.collectives.rendezvous.RendezvousStore;

/**
 * The body of one rank when ranks run as threads ({@link ThreadCluster}). Must respond to interruption (a failing
 * rank interrupts the others); blocking store calls already do.
 */
@FunctionalInterface
public interface RankMain
{
    /**
     * Runs one rank.
     *
     * @param rank  this rank, in {@code [0, size)}.
     * @param size  number of ranks.
     * @param store the store shared by all ranks of this run.
     * @throws Exception to fail the run; the first failure is what the caller sees.
     */
    void run(int rank, int size, RendezvousStore store) throws Exception;
}
