// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Names the series of one panel from what tells them apart, so a legend reads "shm-write", "in-place" or
 * "v1 tcp out-of-place" rather than every field of every row:
 * <ul>
 *   <li>with labels (the {@code chart} tool's {@code --label}): the label, then the fields that differ between the
 *       series of the same label;</li>
 *   <li>without: the fields that differ between all series of the panel (always the transport of a perftest row,
 *       the placement of a coll row), and the source file's name in front when that alone leaves two series with
 *       the same name (two runs of the same thing).</li>
 * </ul>
 */
final class SeriesNaming
{
    /**
     * Who a series is.
     *
     * @param tool     the tool of its rows.
     * @param source   the label or file name, {@code null} for the run just made.
     * @param identity the rows' identity fields.
     */
    record Key(String tool, String source, Map<String, String> identity)
    {
    }

    private SeriesNaming()
    {
    }

    /**
     * Names series.
     *
     * @param keys     the panel's series, in order.
     * @param labelled whether the sources are user labels (else file names, or {@code null}).
     * @return a name per key, in the same order.
     */
    static List<String> names(final List<Key> keys, final boolean labelled)
    {
        final List<String> names = new ArrayList<>();
        for (final Key key : keys)
        {
            if (labelled)
            {
                final List<Key> sameSource = new ArrayList<>();
                for (final Key other : keys)
                {
                    if (Objects.equals(other.source(), key.source()))
                    {
                        sameSource.add(other);
                    }
                }
                final String fields = fields(key, differing(sameSource, false));
                names.add(fields.isEmpty() ? key.source() : key.source() + " " + fields);
            }
            else
            {
                names.add(fields(key, differing(keys, true)));
            }
        }
        if (!labelled && new HashSet<>(names).size() < names.size())
        {
            for (int i = 0; i < names.size(); i++)
            {
                final String source = keys.get(i).source();
                if (null != source)
                {
                    names.set(i, source + " " + names.get(i));
                }
            }
        }
        return names;
    }

    /** The identity fields whose values are not the same in every key, in field order. */
    private static Set<String> differing(final List<Key> keys, final boolean withPrimary)
    {
        final Set<String> fields = new LinkedHashSet<>();
        for (final String field : keys.get(0).identity().keySet())
        {
            final Set<String> values = new HashSet<>();
            for (final Key key : keys)
            {
                values.add(key.identity().get(field));
            }
            if (values.size() > 1 || (withPrimary && field.equals(primary(keys.get(0).tool()))))
            {
                fields.add(field);
            }
        }
        return fields;
    }

    /** The field a series is always named by: what a perftest run compares, or what a coll table has twice. */
    private static String primary(final String tool)
    {
        return "coll".equals(tool) ? "placement" : "transport";
    }

    private static String fields(final Key key, final Set<String> fields)
    {
        final StringBuilder name = new StringBuilder();
        for (final String field : fields)
        {
            final String value = key.identity().get(field);
            if (("redop".equals(field) && "none".equals(value)) || ("root".equals(field) && "-1".equals(value)))
            {
                // allgather beside allreduce: the one without an operator (or root) needs no word for it.
                continue;
            }
            name.append(name.length() == 0 ? "" : " ").append(switch (field)
            {
                case "ranks" -> value + " ranks";
                case "root" -> "root " + value;
                case "algo" -> "algo " + value;
                default -> value;
            });
        }
        return name.toString();
    }
}
