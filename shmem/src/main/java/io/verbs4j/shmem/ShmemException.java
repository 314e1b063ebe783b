// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

/**
 * A symmetric-heap operation failed at run time (not a programming error, which is an
 * {@link IllegalArgumentException}). After a {@link Reason#PEER_FAILED} or {@link Reason#REMOTE_ACCESS} failure the
 * heap is failed: every later call throws the same reason; close it (or abort) and build a new one.
 * A {@link Reason#TIMEOUT} of a wait leaves the heap usable.
 */
public final class ShmemException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** Why an operation failed. */
    public enum Reason
    {
        /** A PE died, disconnected or closed its heap while this one needed it. */
        PEER_FAILED,
        /** A one-sided operation was refused by the target (bad key, access or bounds: a bug or a freed object). */
        REMOTE_ACCESS,
        /** A wait passed its timeout (the heap stays usable). */
        TIMEOUT,
        /** The heap was closed or aborted. */
        CLOSED,
        /** Setting the heap up failed. */
        BOOTSTRAP
    }

    /** Why the call failed. */
    private final Reason reason;
    /** The PE involved, or -1. */
    private final int pe;

    /**
     * @param reason  why.
     * @param pe      the PE concerned, or -1.
     * @param message what happened.
     * @param cause   underlying exception, or null.
     */
    public ShmemException(final Reason reason, final int pe, final String message, final Throwable cause)
    {
        super(message, cause);
        this.reason = reason;
        this.pe = pe;
    }

    /** @return why. */
    public Reason reason()
    {
        return reason;
    }

    /** @return the PE concerned, or -1. */
    public int pe()
    {
        return pe;
    }
}
