// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The line over a chart: which tool, operation, transports and ranks, on how many CPUs, e.g.
 * {@code verbs4j coll allreduce · shm · 2 ranks · 2 CPUs}. Values that differ between rows are listed.
 */
final class ChartTitle
{
    private static final String SEPARATOR = " · ";

    private ChartTitle()
    {
    }

    /**
     * Composes the title.
     *
     * @param points the plotted points.
     * @return the title.
     */
    static String of(final List<ChartPoint> points)
    {
        final Set<String> tools = new LinkedHashSet<>();
        final Set<String> operations = new LinkedHashSet<>();
        final Set<String> transports = new LinkedHashSet<>();
        final Set<String> ranks = new LinkedHashSet<>();
        final Set<String> cpus = new LinkedHashSet<>();
        for (final ChartPoint point : points)
        {
            tools.add(point.tool());
            operations.add(point.identity().get("coll".equals(point.tool()) ? "collective" : "test"));
            transports.add(point.identity().get("transport"));
            // perftest runs one initiator against one responder; coll rows say how many ranks.
            ranks.add("coll".equals(point.tool()) ? point.identity().get("ranks") : "2");
            if (point.cpus() > 0)
            {
                cpus.add(Integer.toString(point.cpus()));
            }
        }
        final StringBuilder title = new StringBuilder("verbs4j ").append(String.join(" + ", tools));
        title.append(' ').append(String.join(", ", operations));
        title.append(SEPARATOR).append(String.join(", ", transports));
        title.append(SEPARATOR).append(String.join(", ", ranks)).append(" ranks");
        if (tools.contains("perftest") && 1 == tools.size())
        {
            title.append(" (initiator + responder)");
        }
        title.append(SEPARATOR).append(cpus.isEmpty() ? "CPUs not recorded" : String.join(", ", cpus) + " CPUs");
        return title.toString();
    }
}
