// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import java.io.IOException;

/**
 * Ranks that go wrong, for {@link LoopbackClusterTest}. {@code fail}: rank 1 exits with code 3 at once, the
 * others sleep. {@code hang}: every rank starts a {@code sleep 60} child process, prints its pid and sleeps.
 */
public final class MisbehavingRankMain
{
    /** Exit code of the failing rank. */
    public static final int FAILURE_CODE = 3;

    private MisbehavingRankMain()
    {
    }

    /**
     * Entry point.
     *
     * @param args {@code fail} or {@code hang}.
     * @throws IOException          if the grandchild cannot start.
     * @throws InterruptedException never in practice: the launcher kills this process.
     */
    public static void main(final String[] args) throws IOException, InterruptedException
    {
        final int rank = Integer.parseInt(System.getenv(LoopbackCluster.RANK_ENV));
        if ("fail".equals(args[0]))
        {
            if (1 == rank)
            {
                System.out.println("failing on purpose");
                System.exit(FAILURE_CODE);
            }
        }
        else
        {
            final Process grandchild = new ProcessBuilder("sleep", "60").start();
            System.out.println("grandchild " + grandchild.pid());
        }
        System.out.println("sleeping");
        Thread.sleep(60_000);
    }
}
