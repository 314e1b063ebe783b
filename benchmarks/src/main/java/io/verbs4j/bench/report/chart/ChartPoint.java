// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import java.util.Map;

/**
 * One value of one row, ready to plot: which panel, which series, where.
 *
 * @param tool     {@code perftest} or {@code coll}.
 * @param metric   the panel.
 * @param identity what the row measured, in naming order (coll: collective, transport, algorithm, mode, ranks,
 *                 type, operator, root, placement; perftest: transport); series are named from the entries that
 *                 differ between rows.
 * @param source   the input's label (a file name or {@code --label}); {@code null} for the run just made.
 * @param bytes    the size column.
 * @param value    the metric, in the unit of {@link Metric#axisLabel()}.
 * @param cpus     the measuring machine's CPU count, 0 when the row does not say.
 */
public record ChartPoint(
    String tool, Metric metric, Map<String, String> identity, String source, double bytes, double value, int cpus)
{
}
