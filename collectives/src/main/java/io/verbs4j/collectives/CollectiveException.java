// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

/**
 * A collective or point-to-point call failed at run time: a peer died or disconnected (its queue pair went to
 * ERROR), a peer did not take part within the operation timeout (hung or diverged), the communicator was aborted,
 * or the ranks called mismatching operations. The message names this rank, the operation and the peer involved.
 * <p>
 * After one of these the communicator is failed: every pending and later call throws too. Build a new communicator
 * (with a new store prefix) from the survivors to continue.
 */
public final class CollectiveException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** Why a call failed. */
    public enum Reason
    {
        /** A peer's connection failed (process died, disconnected, or its provider reported an error). */
        PEER_FAILED,
        /** The operation did not finish within the operation timeout (a peer hung or never called it). */
        TIMEOUT,
        /** The communicator was aborted. */
        ABORTED,
        /** The ranks' calls do not match (different counts or operations). */
        MISMATCH,
        /** A peer closed its communicator while this rank was in a call with it ("rank r left during ..."). */
        PEER_LEFT,
        /** The communicator had already failed. */
        FAILED_EARLIER,
        /** Bootstrap (rendezvous, connection) failed. */
        BOOTSTRAP,
        /** An unexpected error inside the library or a provider (the cause says which). */
        INTERNAL
    }

    /** Why the collective failed. */
    private final Reason reason;
    /** The rank that reports the failure. */
    private final int rank;
    /** The peer the failure is attributed to, or -1. */
    private final int peer;

    /**
     * @param reason  why.
     * @param rank    this rank.
     * @param peer    the peer involved, or -1.
     * @param message the full description.
     * @param cause   the underlying failure, or null.
     */
    public CollectiveException(
        final Reason reason, final int rank, final int peer, final String message, final Throwable cause)
    {
        super(message, cause);
        this.reason = reason;
        this.rank = rank;
        this.peer = peer;
    }

    /** @return why the call failed. */
    public Reason reason()
    {
        return reason;
    }

    /** @return the rank that threw. */
    public int rank()
    {
        return rank;
    }

    /** @return the peer involved (the dead or silent one), or -1 if none in particular. */
    public int peer()
    {
        return peer;
    }
}
