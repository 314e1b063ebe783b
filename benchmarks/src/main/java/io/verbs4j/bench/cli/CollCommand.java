// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.coll.CollNames;
import io.verbs4j.bench.coll.CollRank;
import io.verbs4j.bench.coll.CollSettings;
import io.verbs4j.bench.coll.Collective;
import io.verbs4j.bench.report.chart.ToolChart;
import io.verbs4j.bench.run.LocalRun;
import io.verbs4j.collectives.CollectivesConfiguration;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.collectives.rendezvous.EnvRendezvous;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code verbs4j coll <collective>}: nccl-tests-style tables for one collective of the {@code collectives} module
 * ({@code all_reduce_perf}, {@code broadcast_perf}, ...), with nccl-tests' flags where they make sense on a CPU.
 * Ranks are separate JVM processes started by {@link LoopbackCluster} (default) or threads of this JVM
 * ({@code --threads}); rank 0 prints the table.
 * <p>
 * This class declares the options (and so the help text) and checks them into a {@link CollSettings};
 * {@code CollRunner} runs the ranks.
 */
@Command(
    name = "coll",
    sortOptions = false,
    usageHelpWidth = 120,
    description = {
        "nccl-tests-style benchmark of one collective: size sweep, out-of-place and in-place columns, correctness",
        "check on every row, nccl-tests' column layout, algbw and busbw (GB/s = 1e9 B/s).",
        "",
        "Collectives: allreduce broadcast reduce allgather reducescatter alltoall gather scatter barrier sendrecv",
        "(nccl-tests binary names work too: all_reduce_perf, all_gather_perf, ...), a comma list, or all: one",
        "table each, same ranks and communicator.",
        "",
        "busbw = algbw x 2(n-1)/n (allreduce), (n-1)/n (allgather, reducescatter, alltoall, gather, scatter),",
        "1 (broadcast, reduce, sendrecv). time = per call, averaged over -n calls on each rank, then the mean over",
        "ranks (-a 1, nccl-tests' default; -a 3 = the slowest rank's). Out-of-place of broadcast and in-place of",
        "barrier do not exist in the API: N/A.",
        "",
        "Steady state by default: each size and placement warms up just before its row, for at least -w calls and",
        "0.25 s, then until 3 consecutive windows agree within 5%% (at most 3 s); the header says how, the footer",
        "which rows hit the cap. --warmup-exact makes -w an exact count.",
        "",
        "nccl-tests' flags work under their own names (-J -T -m -N -S -t -z beside -b -e -f -i -g -d -o -r -w -n -c",
        "-a); its GPU-only flags (-p -y -G -C -R -x -D -V -M) are refused with the reason.",
        "" },
    footer = {
        "",
        "Examples:",
        "  verbs4j coll allreduce -b 8 -e 4M -f 4 -g 2                 2 JVMs over shm, float sum",
        "  verbs4j coll allreduce -b 8 -e 64K -g 2 --threads --algo rd  2 threads, recursive doubling",
        "  verbs4j coll allgather -b 1K -e 1M -g 4 --transport tcp      4 JVMs over loopback tcp",
        "  verbs4j coll reduce -d all -o all -r all -b 64 -e 64 -n 5    every type, operator and root",
        "  MASTER_ADDR=hostA MASTER_PORT=29500 WORLD_SIZE=4 RANK=<r> verbs4j coll allreduce --env",
        "                                                               one command per rank, on any host",
        "",
        "Exit codes: 0 ok, 1 wrong results or a failed rank, 2 bad command line." })
public final class CollCommand implements Callable<Integer>
{
    /** Largest {@code -w}, as perftest's: an exact count beyond it would run for hours. */
    private static final long MAX_WARMUP_CALLS = 100_000_000L;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "COLLECTIVE",
        description = "One of: ${COMPLETION-CANDIDATES}; or a comma list, or all.", completionCandidates = Names.class)
    private String collective;

    @Option(names = { "-b", "--minbytes" }, paramLabel = "BYTES", defaultValue = "8",
        description = "Smallest size (K/M/G suffixes = 2^10/2^20/2^30; default: ${DEFAULT-VALUE}).")
    private String minBytes;

    @Option(names = { "-e", "--maxbytes" }, paramLabel = "BYTES", defaultValue = "4M",
        description = "Largest size (default: ${DEFAULT-VALUE}).")
    private String maxBytes;

    @Option(names = { "-f", "--stepfactor" }, paramLabel = "F",
        description = "Multiply the size by F between rows (default: 2, unless -i is given).")
    private Long stepFactor;

    @Option(names = { "-i", "--stepbytes" }, paramLabel = "BYTES",
        description = "Add BYTES between rows instead of multiplying.")
    private String stepBytes;

    @Option(names = "--sizes", paramLabel = "LIST",
        description = "Explicit sizes, comma-separated (e.g. 8,1K,64K,1M,4M); overrides -b/-e/-f/-i.")
    private String sizes;

    @Option(names = { "-g", "--ranks" }, paramLabel = "N", defaultValue = "2",
        description = "Number of ranks (default: ${DEFAULT-VALUE}).")
    private int ranks;

    @Option(names = "--threads",
        description = "Ranks are threads of this JVM (default: one JVM process per rank, LoopbackCluster).")
    private boolean threads;

    @Option(names = "--transport", paramLabel = "shm|tcp|auto", defaultValue = "shm",
        description = "Provider for every link; auto = chosen per peer (default: ${DEFAULT-VALUE}).")
    private String transport;

    @Option(names = "--algo", paramLabel = "auto|ring|tree|rd|hd|oneshot", defaultValue = "auto",
        description = "Algorithm (communicator default): auto = cost model; rd = recursive doubling, " +
            "hd = halving-doubling, oneshot = all to all in one round (default: ${DEFAULT-VALUE}).")
    private String algo;

    @Option(names = { "-d", "--datatype" }, paramLabel = "TYPE", defaultValue = "float32",
        description = "int8 uint8 int32 int64 float16 bfloat16 float32 float64, a comma list, or all " +
            "(default: ${DEFAULT-VALUE}).")
    private String datatype;

    @Option(names = { "-o", "--op" }, paramLabel = "OP", defaultValue = "sum",
        description = "sum prod min max avg and or xor (integer types), a comma list, or all " +
            "(default: ${DEFAULT-VALUE}).")
    private String op;

    @Option(names = { "-r", "--root" }, paramLabel = "RANK", defaultValue = "0",
        description = "Root of broadcast, reduce, gather, scatter, or all (default: ${DEFAULT-VALUE}).")
    private String root;

    @Option(names = { "-w", "--warmup_iters" }, paramLabel = "N", defaultValue = "5000",
        description = "Least untimed calls per size and placement, run just before its row (default: " +
            "${DEFAULT-VALUE}). The warm-up then goes on until it has lasted 0.25 s and 3 consecutive windows of " +
            "calls agree within 5%%, capped at 3 s per size: a JIT compiles the path at an unknown point.")
    private long warmup;

    @Option(names = "--warmup-exact",
        description = "Exactly -w calls of warm-up per size and placement: no time minimum, no stability rule " +
            "(nccl-tests' -w; rows may be measured before the steady state).")
    private boolean warmupExact;

    @Option(names = { "-n", "--iters" }, paramLabel = "N", defaultValue = "100",
        description = "Timed calls per size and placement (default: ${DEFAULT-VALUE}; nccl-tests: 20).")
    private int iters;

    @Option(names = { "-m", "--agg_iters" }, paramLabel = "N", defaultValue = "1",
        description = "Calls per timed iteration, as nccl-tests (time stays per call): -n N -m M times N x M calls " +
            "(verbs4j has no group launch, so calls run one after another; default: ${DEFAULT-VALUE}).")
    private int aggIters;

    @Option(names = { "-N", "--run_cycles" }, paramLabel = "N", defaultValue = "1",
        description = "Run every size N times, rows printed each cycle (default: ${DEFAULT-VALUE}; nccl-tests' 0 " +
            "= forever is refused).")
    private int runCycles;

    @Option(names = { "-t", "--nthreads" }, paramLabel = "N",
        description = "nccl-tests' threads per process: N > 1 runs N x (-g, default 1) ranks as threads of this " +
            "JVM (as --threads); 1 changes nothing.")
    private Integer nthreads;

    @Option(names = "--blocking", description = "Blocking calls on the rank's thread (the default).")
    private boolean blocking;

    @Option(names = "--async",
        description = "Non-blocking calls (progress thread), up to " + CollRank.ASYNC_WINDOW + " in flight.")
    private boolean async;

    @Option(names = "-z", paramLabel = "0|1",
        description = "nccl-tests' --blocking: 1 = --blocking, 0 = --async.")
    private Integer blockingValue;

    @Option(names = { "-S", "--report_timestamps" }, paramLabel = "0|1", defaultValue = "0",
        description = "1: start each row with the time it was measured (yyyy-MM-dd HH:mm:ss), as nccl-tests.")
    private int reportTimestamps;

    @Mixin
    private GpuOnlyNcclFlags gpuOnlyFlags = new GpuOnlyNcclFlags();

    @Option(names = { "-c", "--check" }, paramLabel = "0|1", defaultValue = "1",
        description = "Check the results of every row (one extra call with known data; default: ${DEFAULT-VALUE}).")
    private int check;

    @Option(names = { "-a", "--average" }, paramLabel = "0|1|2|3", defaultValue = "1",
        description = "Time column over ranks, as nccl-tests: 0 rank 0, 1 mean, 2 min, 3 max " +
            "(default: ${DEFAULT-VALUE}).")
    private int average;

    @Option(names = { "--json", "-J", "--output_file" }, paramLabel = "FILE",
        description = "Also write one JSON object per measurement, one per line (-J/--output_file: nccl-tests' " +
            "names; the content is these lines, not nccl-tests' single document).")
    private Path json;

    @Option(names = "--chart", paramLabel = "FILE",
        description = "After the run, draw its rows into FILE (.png or .svg): busbw and time against size, log-log, " +
            "a series per collective and placement (with --env: rank 0 only).")
    private Path chart;

    @Option(names = "--chart-metric", paramLabel = "busbw|time|busbw,time", defaultValue = "busbw,time",
        description = "The --chart panels, side by side (default: ${DEFAULT-VALUE}).")
    private String chartMetric;

    @Option(names = "--busy-poll", description = "Waiting threads spin (default: spin, yield, then park).")
    private boolean busyPoll;

    @Option(names = "--bind-to", paramLabel = "core|none", defaultValue = "core",
        description = "Processes mode: bind each rank process to a core of its own with taskset, as mpirun " +
            "--bind-to core does (default core; ranks stay unbound when they outnumber the cores or taskset is " +
            "missing).")
    private String bindTo;

    @Option(names = { "-T", "--timeout" }, paramLabel = "SECONDS", defaultValue = "60",
        description = "Limit per call and for the bootstrap (default: ${DEFAULT-VALUE}; nccl-tests' 0 = none is " +
            "refused).")
    private int timeoutSeconds;

    @Option(names = "--env",
        description = "Run as one rank of a job started by any launcher, one command per rank (on any host): " +
            "MASTER_ADDR, MASTER_PORT, RANK (or OMPI_COMM_WORLD_RANK) and WORLD_SIZE (or OMPI_COMM_WORLD_SIZE) " +
            "as torchrun; rank 0 hosts the store and prints the table. -g defaults to WORLD_SIZE, --transport to " +
            "auto; tcp listens on the local address of the route to MASTER_ADDR " +
            "(-Dverbs4j.collectives.host.address overrides).")
    private boolean env;

    @Option(names = "--rank-process", hidden = true, description = "Run as one rank of a LoopbackCluster.")
    private boolean rankProcess;

    @Option(names = { "-h", "--help" }, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Completion candidates for the collective parameter. */
    static final class Names extends ArrayList<String>
    {
        private static final long serialVersionUID = 1L;

        Names()
        {
            for (final Collective c : Collective.values())
            {
                add(c.label());
            }
        }
    }

    /**
     * Runs the tool.
     *
     * @return the exit code.
     * @throws IOException if the JSON file cannot be written.
     */
    @Override
    public Integer call() throws IOException
    {
        final CollSettings settings = settings();
        final ToolChart toolChart = toolChart(settings);
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        LocalRun.quietProviderLogs();
        final int exitCode = CollRunner.run(settings, env, rankProcess, out, err);
        return null == toolChart ? exitCode : toolChart.finish(exitCode, err);
    }

    /**
     * {@code --chart}: checked before the run; rank 0 then writes its rows to the {@code -J} file or a temporary one,
     * which the chart is drawn from.
     */
    private ToolChart toolChart(final CollSettings settings) throws IOException
    {
        if (null == chart || (env && 0 != EnvRendezvous.from(System.getenv()).rank()))
        {
            return null;
        }
        final ToolChart toolChart;
        try
        {
            toolChart = ToolChart.coll(chart, chartMetric);
        }
        catch (final IllegalArgumentException ex)
        {
            throw usage("--chart: " + ex.getMessage());
        }
        settings.json = toolChart.rowsFile(settings.json);
        return toolChart;
    }

    /**
     * Parses and checks the options.
     *
     * @return the settings.
     * @throws ParameterException for bad input (exit 2).
     */
    CollSettings settings()
    {
        final CollSettings s = new CollSettings();
        final String gpuOnly = gpuOnlyFlags.refusal();
        if (null != gpuOnly)
        {
            throw usage(gpuOnly);
        }
        nthreadsToRanks();
        EnvRendezvous rendezvous = null;
        if (env)
        {
            if (threads || rankProcess)
            {
                throw usage("--env runs one rank of an externally launched job: not with --threads");
            }
            try
            {
                rendezvous = EnvRendezvous.from(System.getenv());
            }
            catch (final IllegalArgumentException ex)
            {
                throw usage("--env: " + ex.getMessage());
            }
            if (matched("-g") && ranks != rendezvous.worldSize())
            {
                throw usage("-g " + ranks + " differs from the world size " + rendezvous.worldSize() + " of --env");
            }
            ranks = rendezvous.worldSize();
            if (!matched("--transport"))
            {
                transport = "auto";
            }
            s.env = true;
            s.hostAddress = null != System.getProperty(CollectivesConfiguration.HOST_ADDRESS_PROP_NAME) ?
                System.getProperty(CollectivesConfiguration.HOST_ADDRESS_PROP_NAME) : rendezvous.localAddress();
        }
        try
        {
            s.collectives = new ArrayList<>();
            if ("all".equalsIgnoreCase(collective.trim()))
            {
                s.collectives.addAll(List.of(Collective.values()));
            }
            else
            {
                for (final String name : collective.split(","))
                {
                    s.collectives.add(Collective.parse(name));
                }
            }
            s.minBytes = ByteSizes.parse(minBytes);
            s.maxBytes = ByteSizes.parse(maxBytes);
            if (null != stepBytes && null == stepFactor)
            {
                s.stepFactor = 0;
                s.stepBytes = ByteSizes.parse(stepBytes);
            }
            else
            {
                s.stepFactor = null == stepFactor ? 2 : stepFactor;
                s.stepBytes = null == stepBytes ? 0 : ByteSizes.parse(stepBytes);
            }
            if (null != sizes)
            {
                for (final int size : ByteSizes.parseList(sizes))
                {
                    s.sizes.add((long)size);
                }
            }
            s.transport = transport.trim().toLowerCase(java.util.Locale.ROOT);
            CollNames.transport(s.transport);
            s.algorithm = CollNames.algorithm(algo);
            s.types = CollNames.dataTypes(datatype);
            s.ops = CollNames.ops(op);
        }
        catch (final IllegalArgumentException ex)
        {
            throw usage(ex.getMessage());
        }
        if (s.minBytes > s.maxBytes)
        {
            throw usage("-b must not exceed -e");
        }
        if (1 == s.stepFactor || (s.stepFactor < 1 && s.stepBytes < 1))
        {
            throw usage("-f must be >= 2, or give -i");
        }
        if (ranks < 1 || ranks > 64)
        {
            throw usage("-g/--ranks must be in 1..64");
        }
        s.ranks = ranks;
        if (1 == ranks && s.collectives.contains(Collective.SENDRECV))
        {
            if (!"all".equalsIgnoreCase(collective.trim()))
            {
                throw usage("sendrecv needs at least 2 ranks (a rank cannot send to itself)");
            }
            s.collectives.remove(Collective.SENDRECV);
        }
        if ("all".equalsIgnoreCase(root.trim()))
        {
            s.root = -1;
        }
        else
        {
            try
            {
                s.root = Integer.parseInt(root.trim());
            }
            catch (final NumberFormatException ex)
            {
                throw usage("-r must be a rank or 'all'");
            }
            if (s.root < 0 || s.root >= ranks)
            {
                throw usage("-r must be in 0.." + (ranks - 1));
            }
        }
        if (warmup < 0 || iters < 1)
        {
            throw usage("-w must be >= 0 and -n >= 1");
        }
        if (aggIters < 1 || (long)iters * aggIters > Integer.MAX_VALUE)
        {
            throw usage("-m/--agg_iters must be >= 1, and -n x -m at most " + Integer.MAX_VALUE);
        }
        if (runCycles < 1)
        {
            throw usage("-N/--run_cycles must be >= 1 (nccl-tests' 0 runs forever: not supported)");
        }
        if (0 != reportTimestamps && 1 != reportTimestamps)
        {
            throw usage("-S/--report_timestamps must be 0 or 1");
        }
        s.runCycles = runCycles;
        s.timestamps = 1 == reportTimestamps;
        if (warmup > MAX_WARMUP_CALLS)
        {
            throw usage("-w must not exceed " + MAX_WARMUP_CALLS);
        }
        s.warmup = warmup;
        s.warmupExact = warmupExact;
        s.iters = iters * aggIters;
        if (null != blockingValue)
        {
            if (0 != blockingValue && 1 != blockingValue)
            {
                throw usage("-z must be 0 (non-blocking: --async) or 1 (blocking)");
            }
            if ((1 == blockingValue && async) || (0 == blockingValue && blocking))
            {
                throw usage("-z " + blockingValue + " contradicts " + (async ? "--async" : "--blocking"));
            }
            async = 0 == blockingValue;
        }
        if (blocking && async)
        {
            throw usage("--blocking and --async are mutually exclusive");
        }
        s.async = async;
        if (0 != check && 1 != check)
        {
            throw usage("-c must be 0 or 1");
        }
        s.check = 1 == check;
        if (average < 0 || average > 3)
        {
            throw usage("-a must be 0, 1, 2 or 3");
        }
        s.average = average;
        s.json = null == json ? null : json.toAbsolutePath().toString();
        s.busyPoll = busyPoll;
        if (!"core".equals(bindTo) && !"none".equals(bindTo))
        {
            throw usage("--bind-to must be core or none, not " + bindTo);
        }
        s.bindToCores = "core".equals(bindTo);
        if (timeoutSeconds < 1)
        {
            throw usage("-T/--timeout must be >= 1 second (nccl-tests' 0 = no limit: not supported)");
        }
        s.timeoutSeconds = timeoutSeconds;
        s.threads = threads;
        for (final Collective c : s.collectives)
        {
            boolean anyOp = false;
            for (final var type : s.types)
            {
                anyOp |= !s.opsFor(c, type).isEmpty();
            }
            if (!anyOp)
            {
                throw usage("no chosen operator applies to the chosen types (bitwise operators need integer types)");
            }
            for (final long size : s.sweep(c))
            {
                if (size > CollSettings.MAX_BYTES)
                {
                    throw usage("sizes must not exceed 1 GiB");
                }
            }
        }
        return s;
    }

    /** nccl-tests' {@code -t}: ranks = threads x {@code -g} (default 1), as threads of this JVM. */
    private void nthreadsToRanks()
    {
        if (null == nthreads)
        {
            return;
        }
        if (nthreads < 1 || nthreads > 64)
        {
            throw usage("-t/--nthreads must be in 1..64");
        }
        if (1 == nthreads)
        {
            return;
        }
        if (env || rankProcess)
        {
            throw usage("-t/--nthreads " + nthreads + " runs ranks as threads: not with --env");
        }
        ranks = nthreads * (matched("-g") ? ranks : 1);
        threads = true;
    }

    private boolean matched(final String option)
    {
        final CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        return null != parsed && parsed.hasMatchedOption(option);
    }

    private ParameterException usage(final String message)
    {
        return new ParameterException(spec.commandLine(), message);
    }
}
