// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import java.util.Arrays;

/** How a {@link LoopbackCluster} run ended: each rank's exit code, and whether the launcher had to kill ranks. */
public final class ClusterResult
{
    private final int[] exitCodes;
    private final boolean[] killed;
    private final boolean timedOut;

    ClusterResult(final int[] exitCodes, final boolean[] killed, final boolean timedOut)
    {
        this.exitCodes = exitCodes.clone();
        this.killed = killed.clone();
        this.timedOut = timedOut;
    }

    /**
     * Exit code of one rank.
     *
     * @param rank a rank.
     * @return its process exit code (for a killed rank, what the OS reported, typically 137).
     */
    public int exitCode(final int rank)
    {
        return exitCodes[rank];
    }

    /**
     * All exit codes.
     *
     * @return a copy, index = rank.
     */
    public int[] exitCodes()
    {
        return exitCodes.clone();
    }

    /**
     * Whether the launcher killed a rank (because of the timeout or another rank's failure).
     *
     * @param rank a rank.
     * @return true if it was killed rather than exiting by itself.
     */
    public boolean wasKilled(final int rank)
    {
        return killed[rank];
    }

    /**
     * Whether the run hit its timeout.
     *
     * @return true on timeout.
     */
    public boolean timedOut()
    {
        return timedOut;
    }

    /**
     * Whether every rank exited by itself with code 0.
     *
     * @return true on full success.
     */
    public boolean succeeded()
    {
        for (int r = 0; r < exitCodes.length; r++)
        {
            if (0 != exitCodes[r] || killed[r])
            {
                return false;
            }
        }
        return !timedOut;
    }

    /**
     * The outcome for people, e.g. {@code rank 2 exited with 1, rank 3 was killed (the run timed out)}.
     *
     * @return {@code every rank exited with 0} on success, else the ranks that did not, one clause each.
     */
    public String describe()
    {
        final StringBuilder text = new StringBuilder();
        for (int rank = 0; rank < exitCodes.length; rank++)
        {
            if (killed[rank] || 0 != exitCodes[rank])
            {
                text.append(text.length() > 0 ? ", " : "").append("rank ").append(rank)
                    .append(killed[rank] ? " was killed" : " exited with " + exitCodes[rank]);
            }
        }
        if (0 == text.length())
        {
            text.append("every rank exited with 0");
        }
        return timedOut ? text + " (the run timed out)" : text.toString();
    }

    @Override
    public String toString()
    {
        return "ClusterResult{exitCodes=" + Arrays.toString(exitCodes) + ", killed=" + Arrays.toString(killed) +
            ", timedOut=" + timedOut + '}';
    }
}
