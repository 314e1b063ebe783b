// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import java.util.List;

/**
 * What one image shows: a title over panels side by side, each a log-log plot of one metric against size.
 *
 * @param title  the line over the panels (tool, operation, transport, ranks, CPUs).
 * @param panels at least one.
 */
public record ChartDocument(String title, List<Panel> panels)
{
    /**
     * One plot.
     *
     * @param metric the y axis.
     * @param series at least one, in legend order.
     */
    public record Panel(Metric metric, List<Series> series)
    {
    }

    /**
     * One line of a plot.
     *
     * @param name  the legend entry.
     * @param bytes sizes, ascending, all positive.
     * @param value the metric at each size, all positive.
     */
    public record Series(String name, double[] bytes, double[] value)
    {
    }
}
