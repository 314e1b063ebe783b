// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

/**
 * Which peers are still answering, as the thread running an operation sees it: it {@link #tick ticks} while it
 * waits (showing its own life and sampling the peers'), and when an operation times out it asks for the peer that
 * has been silent longest, so that the timeout names the rank that stopped (SIGSTOP, a hang, a debugger) rather
 * than whichever rank this one happened to be waiting for (which may itself be waiting for the silent one).
 * Single-threaded: the thread running operations.
 */
public interface PeerLiveness
{
    /**
     * Shows this rank's life to the peers and samples theirs; called about every millisecond of waiting.
     *
     * @param nowNs now ({@link System#nanoTime()}).
     */
    void tick(long nowNs);

    /**
     * @param nowNs        now.
     * @param minSilenceNs the least silence that counts.
     * @return the peer silent longest, if at least {@code minSilenceNs}; -1 if none (or none is watched).
     */
    int silentPeer(long nowNs, long minSilenceNs);

    /**
     * @param peer  a peer.
     * @param nowNs now.
     * @return how long it has not answered, or -1 if it is not watched.
     */
    long silenceNs(int peer, long nowNs);
}
