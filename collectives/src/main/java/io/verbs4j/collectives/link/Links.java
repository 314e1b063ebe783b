// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

/**
 * The links of one communicator, one per peer, and what drives them: {@link #poll()} reads completions (arrivals,
 * credits, send completions) and returns how much it found, to compose with an idle strategy. It also tracks the
 * first failure of any link, which fails the whole communicator. Single-threaded (the thread running an operation).
 */
public interface Links
{
    /** @return this rank. */
    int rank();

    /** @return number of ranks. */
    int size();

    /**
     * @param rank a peer's rank (not this rank's).
     * @return the link to it.
     */
    PeerLink link(int rank);

    /** @return work done (completions handled); 0 when idle. */
    int poll();

    /** Checks every link's queue-pair state (a slower check, done while idle). */
    void scan();

    /** @return the rank whose link failed first, or -1. */
    int failedPeer();

    /** @return why, or null. */
    String failureReason();

    /**
     * Tells every peer that this rank failed (naming the rank it blames) and closes every connection whose peer did
     * not take the notice, so that peers fail at once instead of at their timeouts; keeps the memory.
     *
     * @param culprit the rank blamed for the failure, or -1.
     */
    void breakAll(int culprit);

    /** Releases everything (queue pairs, regions, devices). Idempotent. */
    void close();
}
