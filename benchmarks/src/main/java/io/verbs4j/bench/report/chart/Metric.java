// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a chart panel plots against the message size; one panel per metric present in the rows.
 */
public enum Metric
{
    /** perftest {@code --test lat}: t_typical, the median one-way latency. */
    LATENCY("lat", "latency", "latency, t_typical (median) [µs]"),
    /** perftest {@code --test bw}: BW average, in GB/s whatever the table's unit (the JSON's unit). */
    BANDWIDTH("bw", "bandwidth", "BW average [GB/s = 1e9 B/s]"),
    /** coll: bus bandwidth (nccl-tests' busbw). */
    BUSBW("busbw", "busbw", "busbw [GB/s = 1e9 B/s]"),
    /** coll: time per call. */
    TIME("time", "time", "time per call [µs]");

    /** The x axis of every panel. */
    public static final String SIZE_LABEL = "size [bytes]";

    private final String optionName;
    private final String title;
    private final String axisLabel;

    Metric(final String optionName, final String title, final String axisLabel)
    {
        this.optionName = optionName;
        this.title = title;
        this.axisLabel = axisLabel;
    }

    /** @return the panel's title, e.g. {@code busbw}. */
    public String title()
    {
        return title;
    }

    /** @return the y axis label with its unit. */
    public String axisLabel()
    {
        return axisLabel;
    }

    /**
     * Parses a comma list of metric names, as the {@code --chart-metric} and {@code --metric} options take them.
     *
     * @param list e.g. {@code busbw,time}, or {@code all}.
     * @return the metrics, in the order given ({@code all}: every metric).
     * @throws IllegalArgumentException naming a name that is not a metric.
     */
    public static List<Metric> parseList(final String list)
    {
        if ("all".equalsIgnoreCase(list.trim()))
        {
            return List.of(values());
        }
        final List<Metric> metrics = new ArrayList<>();
        for (final String name : list.split(","))
        {
            metrics.add(parse(name.trim().toLowerCase(Locale.ROOT)));
        }
        return metrics;
    }

    private static Metric parse(final String name)
    {
        for (final Metric metric : values())
        {
            if (metric.optionName.equals(name) || metric.title.equals(name))
            {
                return metric;
            }
        }
        throw new IllegalArgumentException("unknown chart metric '" + name + "': use lat, bw, busbw, time or all");
    }
}
