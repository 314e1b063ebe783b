// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns points into a {@link ChartDocument}: one panel per metric (in {@link Metric} order, limited to the chosen
 * ones), one series per source and identity, points sorted by size. Sizes or values that are not positive (the
 * barrier's size 0) are left out: a log axis cannot show them.
 */
public final class ChartBuilder
{
    private ChartBuilder()
    {
    }

    /**
     * Builds the chart.
     *
     * @param points   the rows' points.
     * @param metrics  the panels to draw if the rows have them.
     * @param title    the title, or {@code null} to compose it from the rows.
     * @param labelled whether the points' sources are user labels.
     * @return the chart.
     * @throws IllegalArgumentException if nothing is left to plot, saying why.
     */
    public static ChartDocument build(
        final List<ChartPoint> points, final List<Metric> metrics, final String title, final boolean labelled)
    {
        final List<ChartPoint> plotted = new ArrayList<>();
        final List<ChartDocument.Panel> panels = new ArrayList<>();
        boolean anyOfMetrics = false;
        for (final Metric metric : Metric.values())
        {
            if (!metrics.contains(metric))
            {
                continue;
            }
            final Map<SeriesNaming.Key, List<ChartPoint>> bySeries = new LinkedHashMap<>();
            for (final ChartPoint point : points)
            {
                if (point.metric() != metric)
                {
                    continue;
                }
                anyOfMetrics = true;
                if (plottable(point))
                {
                    bySeries.computeIfAbsent(
                        new SeriesNaming.Key(point.tool(), point.source(), point.identity()), k -> new ArrayList<>())
                        .add(point);
                }
            }
            if (!bySeries.isEmpty())
            {
                panels.add(panel(metric, bySeries, labelled));
            }
        }
        for (final ChartPoint point : points)
        {
            // In input order, so the title lists tools and transports in the order of the files.
            if (metrics.contains(point.metric()) && plottable(point))
            {
                plotted.add(point);
            }
        }
        if (panels.isEmpty())
        {
            throw new IllegalArgumentException(anyOfMetrics ?
                "nothing to chart: every row has size 0 (barrier) or no value, which a log axis cannot show" :
                "nothing to chart: no row has the chosen metric(s) " + names(metrics));
        }
        return new ChartDocument(null == title ? ChartTitle.of(plotted) : title, panels);
    }

    private static boolean plottable(final ChartPoint point)
    {
        return point.bytes() > 0 && point.value() > 0 && Double.isFinite(point.value());
    }

    private static ChartDocument.Panel panel(
        final Metric metric, final Map<SeriesNaming.Key, List<ChartPoint>> bySeries, final boolean labelled)
    {
        final List<SeriesNaming.Key> keys = new ArrayList<>(bySeries.keySet());
        final List<String> names = SeriesNaming.names(keys, labelled);
        unique(names);
        final List<ChartDocument.Series> series = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++)
        {
            final List<ChartPoint> sorted = new ArrayList<>(bySeries.get(keys.get(i)));
            sorted.sort(Comparator.comparingDouble(ChartPoint::bytes));
            final double[] bytes = new double[sorted.size()];
            final double[] value = new double[sorted.size()];
            for (int j = 0; j < sorted.size(); j++)
            {
                bytes[j] = sorted.get(j).bytes();
                value[j] = sorted.get(j).value();
            }
            series.add(new ChartDocument.Series(names.get(i), bytes, value));
        }
        return new ChartDocument.Panel(metric, series);
    }

    /** A legend needs distinct names (XChart refuses a repeated one): the same file or label given twice. */
    private static void unique(final List<String> names)
    {
        final java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < names.size(); i++)
        {
            String name = names.get(i);
            for (int n = 2; !seen.add(name); n++)
            {
                name = names.get(i) + " (" + n + ")";
            }
            names.set(i, name);
        }
    }

    private static String names(final List<Metric> metrics)
    {
        final StringBuilder text = new StringBuilder();
        for (final Metric metric : metrics)
        {
            text.append(text.length() == 0 ? "" : ", ").append(metric.title());
        }
        return text.toString();
    }
}
