// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON lines the tools write into chart points: {@code coll -J} rows (a busbw and a time point each) and
 * {@code perftest --format json} rows (a latency or a bandwidth point each; notes are skipped). Anything else is
 * refused with the file and line.
 */
public final class RowReader
{
    private static final String EXPECTED = "the JSON lines of 'coll -J FILE' or 'perftest --format json > FILE'";

    private RowReader()
    {
    }

    /**
     * Reads a file.
     *
     * @param file   the JSON lines.
     * @param source the label of its series ({@code null}: none).
     * @return its points, in file order.
     * @throws IOException              if the file cannot be read.
     * @throws IllegalArgumentException naming the file and line, if it is not the tools' JSON or has no rows.
     */
    public static List<ChartPoint> read(final Path file, final String source) throws IOException
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final java.nio.charset.MalformedInputException ex)
        {
            throw new IllegalArgumentException(file + ": not text (not valid UTF-8); expected " + EXPECTED);
        }
        return read(lines, source, file.toString());
    }

    /**
     * Reads lines.
     *
     * @param lines  the JSON lines; blank lines are skipped.
     * @param source the label of their series ({@code null}: none).
     * @param where  what the lines are, for messages (a file name).
     * @return the points, in line order.
     * @throws IllegalArgumentException naming {@code where} and the line, if a line is not a row of the tools or
     *                                  there is no row.
     */
    public static List<ChartPoint> read(final List<String> lines, final String source, final String where)
    {
        final List<ChartPoint> points = new ArrayList<>();
        int rows = 0;
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (line.isBlank())
            {
                continue;
            }
            try
            {
                rows += readRow(FlatJson.parse(line), source, points);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(where + " line " + (i + 1) + ": " + ex.getMessage());
            }
        }
        if (0 == rows)
        {
            throw new IllegalArgumentException(where + ": no rows; expected " + EXPECTED);
        }
        return points;
    }

    private static int readRow(final Map<String, Object> row, final String source, final List<ChartPoint> points)
    {
        if (row.containsKey("collective"))
        {
            final Map<String, String> identity = new LinkedHashMap<>();
            for (final String key : new String[] {"collective", "transport", "algo", "mode", "ranks", "type", "redop",
                "root", "placement"})
            {
                identity.put(key, text(row, key));
            }
            final double bytes = number(row, "size_bytes");
            final int cpus = cpus(row);
            add(points, new ChartPoint("coll", Metric.BUSBW, identity, source, bytes, value(row, "busbw_GBps"), cpus));
            add(points, new ChartPoint("coll", Metric.TIME, identity, source, bytes, value(row, "time_us"), cpus));
            return 1;
        }
        final Object type = row.get("type");
        if ("note".equals(type))
        {
            return 0;
        }
        final Metric metric;
        final String valueKey;
        if ("latency".equals(type))
        {
            metric = Metric.LATENCY;
            valueKey = "t_typical_usec";
        }
        else if ("bandwidth".equals(type))
        {
            metric = Metric.BANDWIDTH;
            valueKey = "bw_average_GBps";
        }
        else
        {
            throw new IllegalArgumentException("neither a coll row (no \"collective\") nor a perftest row " +
                "(\"type\" latency, bandwidth or note); expected " + EXPECTED);
        }
        final Map<String, String> identity = new LinkedHashMap<>();
        identity.put("test", text(row, "test"));
        identity.put("transport", text(row, "transport"));
        add(points, new ChartPoint("perftest", metric, identity, source, number(row, "bytes"), value(row, valueKey),
            cpus(row)));
        return 1;
    }

    private static void add(final List<ChartPoint> points, final ChartPoint point)
    {
        // N/A cells (broadcast out of place, barrier in place) are null in the JSON: nothing to plot.
        if (!Double.isNaN(point.value()))
        {
            points.add(point);
        }
    }

    private static String text(final Map<String, Object> row, final String key)
    {
        final Object value = require(row, key);
        if (value instanceof Double number && number == Math.rint(number) && Math.abs(number) < 1e15)
        {
            return Long.toString(number.longValue());
        }
        return String.valueOf(value);
    }

    private static double number(final Map<String, Object> row, final String key)
    {
        if (require(row, key) instanceof Double number)
        {
            return number;
        }
        throw new IllegalArgumentException("\"" + key + "\" is not a number");
    }

    /** @return the value, NaN when it is null (an N/A cell). */
    private static double value(final Map<String, Object> row, final String key)
    {
        return null == require(row, key) ? Double.NaN : number(row, key);
    }

    private static int cpus(final Map<String, Object> row)
    {
        return row.get("cpus") instanceof Double number ? number.intValue() : 0;
    }

    private static Object require(final Map<String, Object> row, final String key)
    {
        if (!row.containsKey(key))
        {
            throw new IllegalArgumentException("no \"" + key + "\" in the row");
        }
        return row.get(key);
    }
}
