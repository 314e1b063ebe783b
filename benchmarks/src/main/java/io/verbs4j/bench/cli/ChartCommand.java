// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.report.chart.ChartBuilder;
import io.verbs4j.bench.report.chart.ChartFormat;
import io.verbs4j.bench.report.chart.ChartPoint;
import io.verbs4j.bench.report.chart.ChartRenderer;
import io.verbs4j.bench.report.chart.Metric;
import io.verbs4j.bench.report.chart.RowReader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code verbs4j chart}: draws the JSON rows of earlier runs ({@code coll -J}, {@code perftest --format json}) into
 * one PNG or SVG, so runs can be set side by side (shm against tcp, one version against another).
 */
@Command(
    name = "chart",
    sortOptions = false,
    usageHelpWidth = 120,
    description = {
        "Draws the rows of earlier runs into one chart (PNG or SVG by the extension of -o), log-log against size:",
        "a busbw and a time panel for coll -J files, a latency (t_typical) and a bandwidth (BW average, GB/s) panel",
        "for perftest --format json output. Series are named from what tells them apart (transport, collective,",
        "placement, ...), or by --label, one per file in order.",
        "" },
    footer = {
        "",
        "Examples:",
        "  verbs4j coll allreduce -b 8 -e 4M -J shm.json",
        "  verbs4j coll allreduce -b 8 -e 4M --transport tcp -J tcp.json",
        "  verbs4j chart -o allreduce.svg shm.json tcp.json",
        "  verbs4j perftest -T shm-write,socket --test lat --format json > new.json",
        "  verbs4j chart -o lat.png --label main --label branch old.json new.json",
        "",
        "Exit codes: 0 ok, 1 a file cannot be read or is not the tools' JSON, 2 bad command line." })
public final class ChartCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = { "-o", "--output" }, paramLabel = "FILE", required = true,
        description = "The chart file: .png or .svg.")
    private Path output;

    @Parameters(paramLabel = "JSON", arity = "1..*",
        description = "Files of JSON lines written by coll -J or perftest --format json.")
    private List<Path> inputs = new ArrayList<>();

    @Option(names = "--label", paramLabel = "LABEL",
        description = "Series name prefix of each file, in file order (give one per file, or none).")
    private List<String> labels = new ArrayList<>();

    @Option(names = "--metric", paramLabel = "LIST", defaultValue = "all",
        description = "Panels to draw where the rows have them: lat, bw, busbw, time, a comma list, or all " +
            "(default: ${DEFAULT-VALUE}).")
    private String metric;

    @Option(names = "--title", paramLabel = "TEXT",
        description = "The line over the panels (default: tool, operation, transports, ranks and CPUs of the rows).")
    private String title;

    @Option(names = { "-h", "--help" }, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Runs the tool.
     *
     * @return the exit code.
     * @throws IOException if a file cannot be read or the chart written (exit 1).
     */
    @Override
    public Integer call() throws IOException
    {
        final List<Metric> metrics;
        try
        {
            ChartFormat.of(output);
            metrics = Metric.parseList(metric);
        }
        catch (final IllegalArgumentException ex)
        {
            throw usage(ex.getMessage());
        }
        if (!labels.isEmpty() && labels.size() != inputs.size())
        {
            throw usage("--label given " + labels.size() + " time(s) for " + inputs.size() + " file(s): give one per " +
                "file, in file order, or none");
        }
        final List<ChartPoint> points = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++)
        {
            final Path input = inputs.get(i);
            if (!Files.isRegularFile(input))
            {
                throw new NoSuchFileException(input.toString(), null, "no such file");
            }
            points.addAll(RowReader.read(input, labels.isEmpty() ? input.toString() : labels.get(i)));
        }
        ChartRenderer.write(ChartBuilder.build(points, metrics, title, !labels.isEmpty()), output);
        spec.commandLine().getErr().println("verbs4j chart: written to " + output);
        return CommandLine.ExitCode.OK;
    }

    private ParameterException usage(final String message)
    {
        return new ParameterException(spec.commandLine(), message);
    }
}
