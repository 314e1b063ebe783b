// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import io.verbs4j.bench.spi.TestKind;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Writes perftest-style tables: a banner, the header, one row per size, a closing line; notes as {@code # ...},
 * and the warm-up time of each size as one note at the end of the table. Bandwidth is in perftest's units
 * ({@link BandwidthUnit}).
 */
public final class TextResultSink implements ResultSink
{
    private final PrintWriter out;
    private final BandwidthUnit unit;
    private final StringBuilder warmups = new StringBuilder();
    private long warmupNs = -1;

    /**
     * Creates a sink with bandwidth in MiB/sec, perftest's default.
     *
     * @param out where to print.
     */
    public TextResultSink(final PrintWriter out)
    {
        this(out, BandwidthUnit.MIB_PER_SEC);
    }

    /**
     * Creates a sink.
     *
     * @param out  where to print.
     * @param unit the unit of bandwidth columns.
     */
    public TextResultSink(final PrintWriter out, final BandwidthUnit unit)
    {
        this.out = out;
        this.unit = unit;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void begin(final TestHeader header)
    {
        out.println(PerftestFormat.RESULT_LINE);
        out.println("                    " + header.transport() + " " + header.kind().title() + " Test");
        out.println(pair("Transport", header.transport(), "Peer", header.peer()));
        out.println(pair("Idle strategy", header.idleMode(), "Warm-up iters", header.warmupDescription()));
        if (TestKind.BANDWIDTH == header.kind())
        {
            out.println(pair("TX depth", Integer.toString(header.window()), "Java", header.javaVersion()));
            out.println(" Method          : " + (null != header.method() ? header.method() :
                "windows of TX depth msgs, each acked by the receiver") + "; " + unit.definition());
        }
        else
        {
            out.println(pair("Java", header.javaVersion(), "Timer", "System.nanoTime"));
            out.println(" Method          : " + (null != header.method() ? header.method() :
                "ping-pong, latency = round trip / 2") + ", t_typical = median");
        }
        out.println(" Description     : " + header.description());
        out.println(PerftestFormat.RESULT_LINE);
        out.println(TestKind.LATENCY == header.kind() ? PerftestFormat.LATENCY_HEADER :
            PerftestFormat.bandwidthHeader(unit));
        out.flush();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void latency(final LatencyStats stats)
    {
        out.println(PerftestFormat.latencyRow(stats));
        out.flush();
        recordWarmup(stats.bytes());
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void bandwidth(final BandwidthStats stats)
    {
        out.println(PerftestFormat.bandwidthRow(stats, unit));
        out.flush();
        recordWarmup(stats.bytes());
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void warmedUp(final long nanos)
    {
        warmupNs = nanos;
    }

    private void recordWarmup(final long bytes)
    {
        if (warmupNs >= 0)
        {
            warmups.append(warmups.length() > 0 ? ", " : "").append(bytes).append(" B ")
                .append(String.format(Locale.ROOT, "%.1f s", warmupNs / 1e9));
            warmupNs = -1;
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void note(final String text)
    {
        out.println(" # " + text);
        out.flush();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void end()
    {
        if (warmups.length() > 0)
        {
            note("warm-up per size: " + warmups);
            warmups.setLength(0);
        }
        out.println(PerftestFormat.RESULT_LINE);
        out.flush();
    }

    private static String pair(final String key1, final String value1, final String key2, final String value2)
    {
        return String.format(Locale.ROOT, " %-16s: %s\t\t%-15s: %s", key1, value1, key2, value2);
    }
}
