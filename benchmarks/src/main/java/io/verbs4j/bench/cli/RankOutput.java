// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;

/**
 * The output stream given to a {@code LoopbackCluster}, which prints each child line as {@code [rank N] line}.
 * With {@code tableFromRank0}, rank 0's lines (a table) go to {@code out} without the prefix and everything else
 * (other ranks, the launcher's {@code [cluster]} lines) to {@code err} as is; otherwise every line goes to
 * {@code out}. Remembers whether rank 0 printed nccl-tests' footer and whether it said FAILED.
 */
final class RankOutput extends PrintStream
{
    private static final String RANK0 = "[rank 0] ";
    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean tableFromRank0;
    private volatile boolean failed;
    private volatile boolean footerSeen;

    RankOutput(final PrintWriter out, final PrintWriter err, final boolean tableFromRank0)
    {
        super(OutputStream.nullOutputStream());
        this.out = out;
        this.err = err;
        this.tableFromRank0 = tableFromRank0;
    }

    /** @return true if rank 0's footer reported wrong values. */
    boolean failed()
    {
        return failed;
    }

    /** @return true once rank 0 printed the footer. */
    boolean footerSeen()
    {
        return footerSeen;
    }

    /**
     * Routes one whole line (the cluster's output pumps call this under this stream's lock).
     *
     * @param line the line, with its {@code [rank N] } prefix.
     */
    @Override
    public void println(final String line)
    {
        if (!tableFromRank0)
        {
            out.println(line);
            out.flush();
            return;
        }
        if (line.startsWith(RANK0))
        {
            final String text = line.substring(RANK0.length());
            if (text.startsWith("# Out of bounds values"))
            {
                footerSeen = true;
                failed |= !text.endsWith(" OK");
            }
            out.println(text);
            out.flush();
        }
        else
        {
            err.println(line);
            err.flush();
        }
    }
}
