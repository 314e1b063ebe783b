// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.baseline.SocketAllReduce;
import io.verbs4j.bench.coll.CollSettings;
import io.verbs4j.bench.coll.Collective;
import io.verbs4j.bench.run.LocalRun;
import io.verbs4j.collectives.demo.TrainingDemo;
import io.verbs4j.collectives.launch.ClusterResult;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.collectives.measure.WarmupPolicy;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code verbs4j demo}: the project's main job in one command, on a loopback cluster with no external service.
 * <ol>
 *   <li>Data-parallel training: {@link TrainingDemo} (logistic regression) over 4 JVM processes started by
 *       {@link LoopbackCluster}, the gradient averaged by an AllReduce every step, the ranks' weights compared bit for
 *       bit at the end. Only rank 0 speaks (another rank only if something is wrong, on standard error).</li>
 *   <li>An nccl-tests AllReduce table ({@code verbs4j coll allreduce}): 2 processes over shm, float32 sum, 8 B to
 *       4 MiB, every row checked, measured in the steady state (each size warms up until its per-call time is
 *       stable, {@link WarmupPolicy#untilStable()}); the header prints the cost model and the algorithm per size.</li>
 *   <li>The same AllReduce written with {@code java.net.Socket} ({@link SocketAllReduce}): 2 processes, same sizes,
 *       same table format, every row checked.</li>
 * </ol>
 * About a minute on two cores. {@code --verbs} runs the verbs-layer demo instead (shm WRITE/SEND/READ vs sockets).
 */
@Command(
    name = "demo",
    sortOptions = false,
    usageHelpWidth = 120,
    description = {
        "Collectives on a loopback cluster: data-parallel training over 4 JVM processes (gradient AllReduce every",
        "step, weights compared bit for bit), then an nccl-tests AllReduce table for 2 processes over shm (8 B-4 MiB),",
        "then the same AllReduce written with java.net.Socket, in the same table format, for scale. About a minute",
        "on two cores, no external service.",
        "",
        "--verbs: the verbs-layer demo instead (shm WRITE/SEND/READ between two JVMs vs java.net.Socket and raw",
        "shared memory; about 30-60 s)." },
    footer = { "", "Exit codes: 0 ok, 1 a step failed, 2 bad command line." })
public final class DemoCommand implements Callable<Integer>
{
    /** Ranks of the training step. */
    static final int TRAINING_RANKS = 4;
    /** Sizes of the AllReduce table. */
    static final List<Long> TABLE_SIZES = List.of(8L, 1L << 10, 64L << 10, 1L << 20, 4L << 20);

    @Spec
    private CommandSpec spec;

    @Option(names = "--verbs", description = "Run the verbs-layer demo (shm WRITE/SEND/READ vs sockets) instead.")
    private boolean verbs;

    @Option(names = "--busy-poll",
        description = "Waiting threads spin instead of spin-yield-park (AllReduce table, --verbs).")
    private boolean busyPoll;

    @Option(names = "--quick", hidden = true, description = "Tiny counts: checks the plumbing only.")
    private boolean quick;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
        description = "Longest wait for a peer at any point (default: ${DEFAULT-VALUE}).")
    private long timeoutSeconds;

    @Option(names = { "-h", "--help" }, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Runs the demo.
     *
     * @return the exit code.
     * @throws IOException if a peer JVM or a control connection fails.
     */
    @Override
    public Integer call() throws IOException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (verbs)
        {
            return new VerbsDemo(busyPoll, quick, timeoutSeconds).run(out, err);
        }
        LocalRun.quietProviderLogs();
        final long startNs = System.nanoTime();
        out.printf(Locale.ROOT, "verbs4j demo: collectives on a loopback cluster (JDK %s, %d CPUs; one run on a " +
            "possibly busy machine)%n%n", System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());

        out.println("== 1/3 Data-parallel training: " + TRAINING_RANKS + " JVM processes, gradient AllReduce every " +
            "step (io.verbs4j.collectives.demo.TrainingDemo)");
        out.flush();
        final ClusterResult training = new LoopbackCluster(TRAINING_RANKS)
            .timeout(Duration.ofSeconds(Math.max(120, 4 * timeoutSeconds)))
            .output(new RankOutput(out, err, true))
            .run(TrainingDemo.class.getName(), Integer.toString(TRAINING_RANKS), "", quick ? "2" : "", "no-table");
        out.println(training.succeeded() ? "training: ok" : "training FAILED: " + training.describe());
        out.println();

        out.println("== 2/3 AllReduce, 2 JVM processes over shm, float32 sum (verbs4j coll allreduce)");
        out.flush();
        final int table = CollRunner.runProcesses(tableSettings(), out, err);

        out.println();
        out.println("== 3/3 For scale: the same AllReduce with java.net.Socket, 2 JVM processes over loopback TCP");
        out.flush();
        final int socket = socketBaseline(out, err);

        out.println();
        out.printf(Locale.ROOT, "demo finished in %.0f s. More: ./verbs4j coll --help (every collective, sweeps, " +
            "threads/processes, shm/tcp); ./verbs4j demo --verbs (the verbs layer).%n",
            (System.nanoTime() - startNs) / 1e9);
        out.flush();
        return training.succeeded() && 0 == table && 0 == socket ? CommandLine.ExitCode.OK :
            CommandLine.ExitCode.SOFTWARE;
    }

    private CollSettings tableSettings()
    {
        final CollSettings s = new CollSettings();
        s.collectives = List.of(Collective.ALLREDUCE);
        s.sizes = quick ? List.of(8L, 64L << 10) : TABLE_SIZES;
        s.ranks = 2;
        s.transport = "shm";
        s.types = List.of(DataType.FLOAT32);
        s.ops = List.of(ReduceOp.SUM);
        // the table is measured in the steady state (the coll default); --quick only checks the plumbing
        s.warmup = quick ? 2 : WarmupPolicy.DEFAULT_MIN_CALLS;
        s.warmupExact = quick;
        s.iters = quick ? 5 : 200;
        s.busyPoll = busyPoll;
        s.timeoutSeconds = (int)Math.max(10, timeoutSeconds);
        return s;
    }

    private int socketBaseline(final PrintWriter out, final PrintWriter err)
    {
        final StringBuilder sizes = new StringBuilder();
        for (final long size : quick ? List.of(8L, 64L << 10) : TABLE_SIZES)
        {
            sizes.append(sizes.length() > 0 ? "," : "").append(size);
        }
        final RankOutput router = new RankOutput(out, err, true);
        final ClusterResult result = new LoopbackCluster(2)
            .timeout(Duration.ofSeconds(Math.max(120, 4 * timeoutSeconds)))
            .output(router)
            .bindToCores(true) // as the coll table's ranks
            .run(SocketAllReduce.class.getName(), sizes.toString(), quick ? "5" : "200", quick ? "2" : "5000",
                Long.toString(Math.max(10, timeoutSeconds)));
        out.flush();
        if (!result.succeeded())
        {
            err.println("verbs4j demo: the socket AllReduce failed: " + result.describe());
            err.flush();
        }
        return result.succeeded() && router.footerSeen() && !router.failed() ? 0 : 1;
    }
}
