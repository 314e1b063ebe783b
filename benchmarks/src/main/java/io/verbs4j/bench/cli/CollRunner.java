// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.Main;
import io.verbs4j.bench.coll.CollRank;
import io.verbs4j.bench.coll.CollSettings;
import io.verbs4j.collectives.launch.ClusterFailedException;
import io.verbs4j.collectives.launch.ClusterResult;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.rendezvous.EnvRendezvous;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.rendezvous.TcpStore;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the ranks of a checked {@link CollSettings} ({@link CollCommand}'s run): as one rank of a job launched
 * elsewhere ({@code --env}), as one process of a {@link LoopbackCluster} ({@code --rank-process}), as threads of
 * this JVM ({@code --threads}), or by starting the {@link LoopbackCluster} processes (the default). Each rank runs
 * {@link CollRank}; this class says which exit code the run ends with (0 ok, 1 wrong results or a failed rank).
 */
final class CollRunner
{
    private static final Duration CLUSTER_LIMIT = Duration.ofHours(12);

    private CollRunner()
    {
    }

    /**
     * Runs the ranks the way the command line asked.
     *
     * @param settings    the checked settings.
     * @param env         {@code --env}: this process is one rank of an externally launched job.
     * @param rankProcess {@code --rank-process}: this process is one rank of a {@link LoopbackCluster}.
     * @param out         the table.
     * @param err         diagnostics (and, from {@link #runProcesses}, other ranks' lines).
     * @return the exit code.
     * @throws IOException if the JSON file cannot be written.
     */
    static int run(final CollSettings settings, final boolean env, final boolean rankProcess,
        final PrintWriter out, final PrintWriter err) throws IOException
    {
        if (env)
        {
            return runAsEnvRank(settings, out, err);
        }
        else if (rankProcess)
        {
            return runAsRankProcess(settings, out);
        }
        else if (settings.threads)
        {
            return runThreads(settings, out, err);
        }
        else
        {
            return runProcesses(settings, out, err);
        }
    }

    private static int runAsEnvRank(final CollSettings settings, final PrintWriter out, final PrintWriter err)
        throws IOException
    {
        final EnvRendezvous rendezvous = EnvRendezvous.from(System.getenv());
        final long wrong;
        try (TcpStore store = rendezvous.connect(Duration.ofSeconds(settings.timeoutSeconds)))
        {
            wrong = CollRank.run(settings, rendezvous.rank(), rendezvous.worldSize(), store, out);
        }
        catch (final RuntimeException ex)
        {
            out.flush();
            err.println("verbs4j coll: rank " + rendezvous.rank() + "/" + rendezvous.worldSize() + " failed: " + ex);
            return CommandLine.ExitCode.SOFTWARE;
        }
        out.flush();
        if (0 != rendezvous.rank())
        {
            out.println("verbs4j coll: rank " + rendezvous.rank() + "/" + rendezvous.worldSize() + " done, " +
                (0 == wrong ? "no wrong elements" : wrong + " wrong elements"));
            out.flush();
        }
        return 0 == wrong ? CommandLine.ExitCode.OK : CommandLine.ExitCode.SOFTWARE;
    }

    private static int runAsRankProcess(final CollSettings settings, final PrintWriter out) throws IOException
    {
        final int rank = Integer.parseInt(System.getenv(LoopbackCluster.RANK_ENV));
        final int size = Integer.parseInt(System.getenv(LoopbackCluster.WORLD_SIZE_ENV));
        try (FileStore store = new FileStore(Path.of(System.getenv(LoopbackCluster.RENDEZVOUS_DIR_ENV))))
        {
            CollRank.run(settings, rank, size, store, out);
        }
        out.flush();
        return CommandLine.ExitCode.OK;
    }

    private static int runThreads(final CollSettings settings, final PrintWriter out, final PrintWriter err)
    {
        final AtomicLong wrong = new AtomicLong();
        try
        {
            new ThreadCluster(settings.ranks, CLUSTER_LIMIT).run((rank, size, store) ->
            {
                final long w = CollRank.run(settings, rank, size, store, out);
                if (0 == rank)
                {
                    wrong.set(w);
                }
            });
        }
        catch (final ClusterFailedException ex)
        {
            out.flush();
            err.println("verbs4j coll: " + ex.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        }
        return 0 == wrong.get() ? CommandLine.ExitCode.OK : CommandLine.ExitCode.SOFTWARE;
    }

    /**
     * Runs the ranks as {@link LoopbackCluster} processes; rank 0's lines (the table) go to {@code out}.
     *
     * @param settings the run.
     * @param out      the table.
     * @param err      other ranks' lines and diagnostics.
     * @return the exit code: 0 if every rank succeeded and every row was right.
     */
    static int runProcesses(final CollSettings settings, final PrintWriter out, final PrintWriter err)
    {
        final List<String> args = new ArrayList<>();
        args.add("coll");
        args.addAll(settings.toArgs());
        args.add("--rank-process");
        final RankOutput router = new RankOutput(out, err, true);
        final ClusterResult result = new LoopbackCluster(settings.ranks).timeout(CLUSTER_LIMIT).output(router)
            .bindToCores(settings.bindToCores).run(Main.class.getName(), args.toArray(new String[0]));
        out.flush();
        err.flush();
        if (!result.succeeded())
        {
            err.println("verbs4j coll: a rank failed: " + result);
            return CommandLine.ExitCode.SOFTWARE;
        }
        return router.failed() || !router.footerSeen() ? CommandLine.ExitCode.SOFTWARE : CommandLine.ExitCode.OK;
    }
}
