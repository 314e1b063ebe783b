// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import io.verbs4j.bench.report.JsonLinesResultSink;
import io.verbs4j.bench.report.ResultSink;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A tool's {@code --chart FILE}: checked before the run (so a bad name costs no run), fed during it, written after
 * it. The rows go through the tools' JSON lines ({@code perftest}: captured in memory, {@code coll}: its {@code -J}
 * file, or a temporary one) and {@link RowReader}, so the chart equals what {@code verbs4j chart} draws from the
 * JSON file.
 */
public final class ToolChart
{
    private final String tool;
    private final Path file;
    private final List<Metric> metrics;
    private StringWriter capturedJson;
    private Path rowsFile;
    private boolean temporaryRowsFile;

    private ToolChart(final String tool, final Path file, final List<Metric> metrics)
    {
        this.tool = tool;
        this.file = file;
        this.metrics = metrics;
    }

    /**
     * The chart of a {@code perftest} run: a latency panel and/or a bandwidth panel, a series per transport.
     *
     * @param file the chart file.
     * @return the chart, to {@link #capture} the rows.
     * @throws IllegalArgumentException if the file name ends in neither {@code .png} nor {@code .svg}.
     */
    public static ToolChart perftest(final Path file)
    {
        ChartFormat.of(file);
        return new ToolChart("perftest", file, List.of(Metric.LATENCY, Metric.BANDWIDTH));
    }

    /**
     * The chart of a {@code coll} run: busbw and/or time panels, a series per collective and placement.
     *
     * @param file    the chart file.
     * @param metrics {@code busbw}, {@code time}, or {@code busbw,time}.
     * @return the chart, to give its {@link #rowsFile} to the run.
     * @throws IllegalArgumentException if the file name ends in neither {@code .png} nor {@code .svg}, or a metric
     *                                  is not busbw or time.
     */
    public static ToolChart coll(final Path file, final String metrics)
    {
        ChartFormat.of(file);
        final List<Metric> chosen = Metric.parseList(metrics);
        for (final Metric metric : chosen)
        {
            if (Metric.BUSBW != metric && Metric.TIME != metric)
            {
                throw new IllegalArgumentException("--chart-metric takes busbw, time or busbw,time, not " +
                    metric.title());
            }
        }
        return new ToolChart("coll", file, chosen);
    }

    /**
     * perftest: the sink to give the run; it passes everything to the tool's sink and keeps the rows for the chart.
     *
     * @param toolSink the tool's own sink (its table or JSON).
     * @return the sink for the run.
     */
    public ResultSink capture(final ResultSink toolSink)
    {
        capturedJson = new StringWriter();
        return new ResultTee(toolSink, new JsonLinesResultSink(new PrintWriter(capturedJson)));
    }

    /**
     * coll: the JSON-lines file rank 0 must write: the user's {@code -J} file, or a temporary one deleted after the
     * chart is written.
     *
     * @param userJson the {@code -J} file, or {@code null}.
     * @return the file for the run's rows.
     * @throws IOException if the temporary file cannot be created.
     */
    public String rowsFile(final String userJson) throws IOException
    {
        temporaryRowsFile = null == userJson;
        rowsFile = temporaryRowsFile ? Files.createTempFile("verbs4j-coll-rows", ".json") : Path.of(userJson);
        if (temporaryRowsFile)
        {
            // finish() deletes it; this covers a run that ends in an exception before finish().
            rowsFile.toFile().deleteOnExit();
        }
        return rowsFile.toString();
    }

    /**
     * Writes the chart after the run, whatever its outcome (a failed size still leaves the others to see); a
     * chart that cannot be written makes a successful run fail.
     *
     * @param exitCode the run's exit code.
     * @param err      where the outcome is said.
     * @return the exit code: the run's, or 1 if the chart could not be written.
     */
    public int finish(final int exitCode, final PrintWriter err)
    {
        try
        {
            final List<ChartPoint> points = null != capturedJson ?
                RowReader.read(capturedJson.toString().lines().toList(), null, "the run's rows") :
                RowReader.read(rowsFile, null);
            ChartRenderer.write(ChartBuilder.build(points, metrics, null, false), file);
            err.println("verbs4j " + tool + ": chart written to " + file);
            return exitCode;
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            err.println("verbs4j " + tool + ": --chart " + file + ": not written: " + ex.getMessage());
            return 0 == exitCode ? 1 : exitCode;
        }
        finally
        {
            err.flush();
            deleteTemporaryRows();
        }
    }

    private void deleteTemporaryRows()
    {
        if (temporaryRowsFile)
        {
            try
            {
                Files.deleteIfExists(rowsFile);
            }
            catch (final IOException ex)
            {
                // A leftover file in the temporary directory; the chart is what the user asked for.
            }
        }
    }
}
