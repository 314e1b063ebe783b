// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

/**
 * A multi-rank run did not complete: a rank failed (the cause is its exception) or the run timed out. The
 * failures of other ranks, which are usually consequences, are attached as suppressed exceptions.
 */
public class ClusterFailedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** The first rank that failed, or -1 for a timeout with no failure. */
    private final int failedRank;
    /** Whether the run hit its timeout. */
    private final boolean timedOut;

    /**
     * Creates the exception.
     *
     * @param message    what happened.
     * @param failedRank the first rank that failed, or -1 for a timeout with no failure.
     * @param timedOut   whether the run hit its timeout.
     * @param cause      the failed rank's exception, or null.
     */
    public ClusterFailedException(
        final String message, final int failedRank, final boolean timedOut, final Throwable cause)
    {
        super(message, cause);
        this.failedRank = failedRank;
        this.timedOut = timedOut;
    }

    /**
     * The rank whose failure ended the run.
     *
     * @return the rank, or -1 if the run timed out without a failure.
     */
    public int failedRank()
    {
        return failedRank;
    }

    /**
     * Whether the run was stopped by its timeout.
     *
     * @return true on timeout.
     */
    public boolean timedOut()
    {
        return timedOut;
    }
}
