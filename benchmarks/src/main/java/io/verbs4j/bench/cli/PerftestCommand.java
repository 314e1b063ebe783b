// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.control.ControlClient;
import io.verbs4j.bench.launch.ParentWatchdog;
import io.verbs4j.bench.report.BandwidthUnit;
import io.verbs4j.bench.report.JsonLinesResultSink;
import io.verbs4j.bench.report.ResultSink;
import io.verbs4j.bench.report.TextResultSink;
import io.verbs4j.bench.report.chart.ToolChart;
import io.verbs4j.bench.run.LocalRun;
import io.verbs4j.bench.run.PerftestClient;
import io.verbs4j.bench.run.PerftestServer;
import io.verbs4j.bench.run.PerftestTransport;
import io.verbs4j.bench.run.TestPlan;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.TransportUnderTest;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code verbs4j perftest}: perftest-style latency and bandwidth tables for every transport under test, side by
 * side in one run. Parses and validates options (bad input: {@link ParameterException}, exit 2), then runs as
 * server, as client of a remote server, or locally with a child JVM as the server.
 */
@Command(
    name = "perftest",
    sortOptions = false,
    usageHelpWidth = 120,
    description = {
        "perftest-style latency (ping-pong, half round trip) and bandwidth (windowed stream) tables for each",
        "transport under test, all in one run so every figure has its baselines next to it.",
        "",
        "Modes:",
        "  (default)           local: starts the responder as a child JVM on this machine (same JDK, class path",
        "                      and JVM flags), talks to it over 127.0.0.1, and stops it at the end.",
        "  --server            responder host: waits for one client on --port, prints 'VERBS4J-READY host:port'.",
        "  --client=HOST[:P]   initiator: runs the tests against a server started on HOST.",
        "",
        "Latency rows: #bytes #iterations t_min t_max t_typical(median) t_avg t_stdev 99%% 99.9%% [usec], one-way =",
        "round trip / 2, from an HdrHistogram of per-round-trip System.nanoTime() (ns, 3 significant digits).",
        "Bandwidth rows: #bytes #iterations BW peak, BW average [MiB/sec = 2^20 B/s, as perftest; Gb/sec = 1e9",
        "bit/s with --report_gbits], MsgRate [Mpps = 1e6 msg/s];",
        "messages go in windows of --tx-depth, each acknowledged by the receiver; average = bytes / total time,",
        "peak = fastest full window. --format=json gives every value at full precision (bandwidth in GB/s =",
        "1e9 B/s, latency in ns), whatever the table's unit.",
        "" },
    footer = { "", "Exit codes: 0 ok, 1 a session or the peer failed, 2 bad command line." })
public final class PerftestCommand implements Callable<Integer>
{
    /** perftest's default port ({@code DEF_PORT}). */
    public static final int DEFAULT_PORT = 18515;

    @Spec
    private CommandSpec spec;

    @Option(names = { "-T", "--transport" }, split = ",", paramLabel = "NAME",
        description = "Transports under test, comma-separated (default: all). See --list.")
    private List<String> transports = new ArrayList<>();

    @Option(names = "--test", split = ",", paramLabel = "lat|bw", defaultValue = "lat,bw",
        description = "Tests to run, comma-separated (default: ${DEFAULT-VALUE}).")
    private List<String> tests;

    @Option(names = { "-s", "--size" }, paramLabel = "BYTES[,BYTES...]",
        description = "Message sizes, suffixes K/M/G = 2^10/2^20/2^30 (default: 8 for lat, 64K for bw).")
    private String sizes;

    @Option(names = { "-a", "--all" }, description = "Sweep all sizes 2^1..2^23 (2 B .. 8 MiB), like perftest -a.")
    private boolean allSizes;

    @Option(names = { "-n", "--iters" }, paramLabel = "N",
        description = "Timed iterations per size: round trips (lat) or messages (bw) (default: 1000 lat, 5000 bw).")
    private Long iterations;

    @Option(names = { "-w", "--warmup" }, paramLabel = "N",
        description = "Untimed iterations before each size (default: same as --iters).")
    private Long warmup;

    @Option(names = "--warmup-ms", paramLabel = "MS", defaultValue = "1000",
        description = "Least warm-up time per size (default: ${DEFAULT-VALUE}): untimed sessions run before the " +
            "timed one until this long has passed, so that rows are measured after the JIT has compiled the path " +
            "(a 1 MiB tcp row warmed up by 1,000 messages measured 15-25 %% lower). The timed session still starts " +
            "with its -w iterations. While this JVM's or the server's JIT compiler was busy for more than 1 %% of " +
            "the last warm-up session, sessions go on, up to 10 s per size.")
    private long warmupMs;

    @Option(names = "--warmup-exact",
        description = "Exactly -w iterations of warm-up per size, no time minimum (perftest's behaviour; rows may " +
            "be measured before the steady state).")
    private boolean warmupExact;

    @Option(names = { "-t", "--tx-depth" }, paramLabel = "N", defaultValue = "128",
        description = "bw: messages per acknowledged window (default: ${DEFAULT-VALUE}, perftest's tx depth).")
    private int txDepth;

    @Option(names = "--busy-poll",
        description = "Idle loops busy-spin (default: spin, then yield, then park).")
    private boolean busyPoll;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
        description = "Longest wait for the peer at any point (default: ${DEFAULT-VALUE}).")
    private long timeoutSeconds;

    @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
        description = "text: perftest tables; json: one JSON object per row (default: ${DEFAULT-VALUE}).")
    private String format;

    @Option(names = "--report_gbits",
        description = "Bandwidth tables in Gb/sec (1e9 bit/s) instead of MiB/sec, as perftest's --report_gbits.")
    private boolean reportGbits;

    @Option(names = "--chart", paramLabel = "FILE",
        description = "After the run, draw its rows into FILE (.png or .svg): t_typical (lat) and BW average " +
            "(bw, GB/s) against size, log-log, a series per transport (not with --server).")
    private Path chart;

    @Option(names = "--server", description = "Run as the responder host (see Modes).")
    private boolean server;

    @Option(names = "--client", paramLabel = "HOST[:PORT]", description = "Run against a server on HOST.")
    private String client;

    @Option(names = { "-p", "--port" }, paramLabel = "PORT",
        description = "Control port (default: " + DEFAULT_PORT + "; 0 = any, server only).")
    private Integer port;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
        description = "Server: local address to listen on (default: ${DEFAULT-VALUE}, loopback only; give this " +
            "host's address, or 0.0.0.0 for every interface, to serve other machines).")
    private String bindAddress;

    @Option(names = "--list", description = "List the transports under test and exit.")
    private boolean list;

    @Option(names = "--exit-with-parent", hidden = true,
        description = "Exit when standard input closes (set by the local mode on its child JVM).")
    private boolean exitWithParent;

    @Option(names = "--quiet-provider-logs", hidden = true,
        description = "Log only SEVERE messages of the verbs providers (set by the demo on its child JVM).")
    private boolean quietProviderLogs;

    @Option(names = { "-h", "--help" }, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Runs the tool.
     *
     * @return the exit code.
     * @throws IOException if the run cannot proceed (exit 1).
     */
    @Override
    public Integer call() throws IOException
    {
        final PrintWriter out = spec.commandLine().getOut();
        if (list)
        {
            printList(out);
            return CommandLine.ExitCode.OK;
        }
        validateCommon();
        final ToolChart toolChart = toolChart();
        final long timeoutMs = TimeUnit.SECONDS.toMillis(timeoutSeconds);
        if (server)
        {
            if (null != client)
            {
                throw usage("--server and --client are mutually exclusive");
            }
            if (exitWithParent)
            {
                ParentWatchdog.start(System.in);
            }
            if (quietProviderLogs)
            {
                LocalRun.quietProviderLogs();
            }
            final int serverPort = null == port ? DEFAULT_PORT : port;
            final int failures = new PerftestServer(
                bindAddress, serverPort, timeoutMs, spec.commandLine().getErr()).run(out);
            return 0 == failures ? CommandLine.ExitCode.OK : CommandLine.ExitCode.SOFTWARE;
        }
        final List<TestPlan> plans = plans(timeoutMs);
        final ResultSink tableSink = "json".equals(format) ? new JsonLinesResultSink(out) :
            new TextResultSink(out, reportGbits ? BandwidthUnit.GBIT_PER_SEC : BandwidthUnit.MIB_PER_SEC);
        final ResultSink sink = null == toolChart ? tableSink : toolChart.capture(tableSink);
        final int failures = null != client ? runRemote(plans, sink, timeoutMs) : runLocal(plans, sink, timeoutMs);
        int exitCode = CommandLine.ExitCode.OK;
        if (failures > 0)
        {
            spec.commandLine().getErr().println("verbs4j perftest: " + failures + " size(s) failed, see notes above");
            exitCode = CommandLine.ExitCode.SOFTWARE;
        }
        return null == toolChart ? exitCode : toolChart.finish(exitCode, spec.commandLine().getErr());
    }

    /** {@code --chart}: checked before anything runs. */
    private ToolChart toolChart()
    {
        if (null == chart)
        {
            return null;
        }
        if (server)
        {
            throw usage("--chart is for the side that runs the tests (local or --client), not --server");
        }
        try
        {
            return ToolChart.perftest(chart);
        }
        catch (final IllegalArgumentException ex)
        {
            throw usage("--chart: " + ex.getMessage());
        }
    }

    private void validateCommon()
    {
        if (!"text".equals(format) && !"json".equals(format))
        {
            throw usage("--format must be text or json, not '" + format + "'");
        }
        if (timeoutSeconds < 1)
        {
            throw usage("--timeout must be >= 1 second");
        }
        if (null != port && (port < 0 || port > 65535 || (0 == port && !server)))
        {
            throw usage("--port must be 1..65535 (0 only with --server)");
        }
    }

    private List<TestPlan> plans(final long timeoutMs)
    {
        if (allSizes && null != sizes)
        {
            throw usage("-a/--all and -s/--size are mutually exclusive");
        }
        if (null != iterations && (iterations < 5 || iterations > 100_000_000L))
        {
            throw usage("-n/--iters must be between 5 and 100000000 (perftest's limits)");
        }
        if (null != warmup && (warmup < 0 || warmup > 100_000_000L))
        {
            throw usage("-w/--warmup must be between 0 and 100000000");
        }
        if (warmupMs < 0 || warmupMs > 600_000L)
        {
            throw usage("--warmup-ms must be between 0 and 600000");
        }
        if (txDepth < 1 || txDepth > 15000)
        {
            throw usage("-t/--tx-depth must be between 1 and 15000 (perftest's limits)");
        }
        final List<TestKind> kinds = new ArrayList<>();
        final List<Integer> sizeList;
        try
        {
            for (final String test : tests)
            {
                kinds.add(TestKind.ofShortName(test.trim()));
            }
            sizeList = allSizes ? ByteSizes.all() : (null == sizes ? null : ByteSizes.parseList(sizes));
            return PlanBuilder.build(
                transports, kinds, sizeList, iterations, warmup, txDepth, busyPoll, timeoutMs,
                warmupExact ? 0 : warmupMs);
        }
        catch (final IllegalArgumentException ex)
        {
            throw usage(ex.getMessage());
        }
    }

    private int runRemote(final List<TestPlan> plans, final ResultSink sink, final long timeoutMs) throws IOException
    {
        final int colon = client.lastIndexOf(':');
        final String host = colon > 0 ? client.substring(0, colon) : client;
        final int controlPort;
        try
        {
            controlPort = colon > 0 ? Integer.parseInt(client.substring(colon + 1)) :
                (null == port ? DEFAULT_PORT : port);
        }
        catch (final NumberFormatException ex)
        {
            throw usage("--client: invalid port in '" + client + "'");
        }
        try (ControlClient control = ControlClient.connect(host, controlPort, timeoutMs))
        {
            return new PerftestClient(control, host + " (" + control.peerHostName() + ")", sink).run(plans);
        }
    }

    private int runLocal(final List<TestPlan> plans, final ResultSink sink, final long timeoutMs) throws IOException
    {
        return LocalRun.run(plans, sink, timeoutMs, List.of(), spec.commandLine().getErr());
    }

    private void printList(final PrintWriter out)
    {
        for (final PerftestTransport row : PerftestTransport.values())
        {
            final TransportUnderTest transport = row.instance();
            final StringBuilder kinds = new StringBuilder();
            for (final TestKind kind : TestKind.values())
            {
                if (transport.supports(kind, 8) || transport.supports(kind, 65536))
                {
                    kinds.append(kinds.length() > 0 ? "," : "").append(kind.shortName());
                }
            }
            out.printf("%-15s %-7s %s%n", row.transportName(), kinds, row.description());
        }
    }

    private ParameterException usage(final String message)
    {
        return new ParameterException(spec.commandLine(), message);
    }
}
