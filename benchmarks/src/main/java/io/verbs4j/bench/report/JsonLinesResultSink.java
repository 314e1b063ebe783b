// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Writes one JSON object per line for machines: every row carries its table's header fields, the perftest
 * columns in their units ({@code *_usec}, {@code *_GBps}, {@code msg_rate_Mpps}), and, for latency, the same
 * values in nanoseconds ({@code *_ns}); also the measuring machine's CPU count ({@code cpus}, for charts' titles).
 * Notes become {@code {"type":"note",...}} lines.
 */
public final class JsonLinesResultSink implements ResultSink
{
    private final PrintWriter out;
    private TestHeader header;
    private long warmupNs = -1;

    /**
     * Creates a sink.
     *
     * @param out where to print.
     */
    public JsonLinesResultSink(final PrintWriter out)
    {
        this.out = out;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void begin(final TestHeader header)
    {
        this.header = header;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void latency(final LatencyStats stats)
    {
        final StringBuilder json = start("latency");
        field(json, "bytes", stats.bytes());
        field(json, "iterations", stats.iterations());
        field(json, "t_min_usec", stats.minNs() / 1_000.0);
        field(json, "t_max_usec", stats.maxNs() / 1_000.0);
        field(json, "t_typical_usec", stats.typicalNs() / 1_000.0);
        field(json, "t_avg_usec", stats.avgNs() / 1_000.0);
        field(json, "t_stdev_usec", stats.stdevNs() / 1_000.0);
        field(json, "p99_usec", stats.p99Ns() / 1_000.0);
        field(json, "p99_9_usec", stats.p999Ns() / 1_000.0);
        field(json, "t_min_ns", stats.minNs());
        field(json, "t_max_ns", stats.maxNs());
        field(json, "t_typical_ns", stats.typicalNs());
        field(json, "t_avg_ns", stats.avgNs());
        field(json, "t_stdev_ns", stats.stdevNs());
        field(json, "p99_ns", stats.p99Ns());
        field(json, "p99_9_ns", stats.p999Ns());
        warmupField(json);
        finish(json);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void bandwidth(final BandwidthStats stats)
    {
        final StringBuilder json = start("bandwidth");
        field(json, "bytes", stats.bytes());
        field(json, "iterations", stats.iterations());
        field(json, "window", header.window());
        field(json, "bw_peak_GBps", stats.peakGBps());
        field(json, "bw_average_GBps", stats.averageGBps());
        field(json, "msg_rate_Mpps", stats.msgRateMpps());
        warmupField(json);
        finish(json);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void warmedUp(final long nanos)
    {
        warmupNs = nanos;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void note(final String text)
    {
        final StringBuilder json = start("note");
        field(json, "text", text);
        finish(json);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void end()
    {
        out.flush();
    }

    private StringBuilder start(final String type)
    {
        final StringBuilder json = new StringBuilder(512).append('{');
        field(json, "type", type);
        if (null != header)
        {
            field(json, "transport", header.transport());
            field(json, "test", header.kind().shortName());
            field(json, "peer", header.peer());
            field(json, "idle", header.idleMode());
            field(json, "warmup", header.warmup());
            field(json, "warmup_min_ms", header.warmupMinMs());
            field(json, "java", header.javaVersion());
            field(json, "cpus", Runtime.getRuntime().availableProcessors());
            if (null != header.method())
            {
                field(json, "method", header.method());
            }
        }
        return json;
    }

    private void warmupField(final StringBuilder json)
    {
        if (warmupNs >= 0)
        {
            field(json, "warmup_s", warmupNs / 1e9);
            warmupNs = -1;
        }
    }

    private void finish(final StringBuilder json)
    {
        out.println(json.append('}'));
        out.flush();
    }

    private static void field(final StringBuilder json, final String name, final String value)
    {
        separator(json).append('"').append(name).append("\":");
        quote(json, value);
    }

    private static void field(final StringBuilder json, final String name, final long value)
    {
        separator(json).append('"').append(name).append("\":").append(value);
    }

    private static void field(final StringBuilder json, final String name, final double value)
    {
        separator(json).append('"').append(name).append("\":");
        if (Double.isFinite(value))
        {
            json.append(value);
        }
        else
        {
            json.append("null");
        }
    }

    private static StringBuilder separator(final StringBuilder json)
    {
        if (json.length() > 1)
        {
            json.append(',');
        }
        return json;
    }

    private static void quote(final StringBuilder json, final String value)
    {
        json.append('"');
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            switch (c)
            {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default ->
                {
                    if (c < 0x20)
                    {
                        json.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
