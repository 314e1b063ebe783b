// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import io.verbs4j.bench.spi.TestKind;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps every row in memory, by transport and size, for tools that print their own summary (the demo); prints one
 * progress line per table and every note to a log.
 */
public final class CollectingResultSink implements ResultSink
{
    private final Map<String, LatencyStats> latency = new HashMap<>();
    private final Map<String, BandwidthStats> bandwidth = new HashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final PrintWriter progress;
    private TestHeader header;

    /**
     * @param progress where progress lines and notes go (standard error), or {@code null} for none.
     */
    public CollectingResultSink(final PrintWriter progress)
    {
        this.progress = progress;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void begin(final TestHeader header)
    {
        final boolean sameTable = null != this.header && this.header.transport().equals(header.transport()) &&
            this.header.kind() == header.kind();
        this.header = header;
        if (null != progress && !sameTable)
        {
            progress.print(header.kind().shortName() + ":" + header.transport() + " ");
            progress.flush();
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void latency(final LatencyStats stats)
    {
        latency.put(key(header.transport(), stats.bytes()), stats);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void bandwidth(final BandwidthStats stats)
    {
        bandwidth.put(key(header.transport(), stats.bytes()), stats);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void note(final String text)
    {
        final String line = header.transport() + " " + header.kind().shortName() + ": " + text;
        notes.add(line);
        if (null != progress)
        {
            progress.println();
            progress.println("# " + line);
            progress.flush();
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void end()
    {
    }

    /**
     * @param transport transport name.
     * @param bytes     message size.
     * @return the latency row, or {@code null} if none was measured.
     */
    public LatencyStats latency(final String transport, final int bytes)
    {
        return latency.get(key(transport, bytes));
    }

    /**
     * @param transport transport name.
     * @param bytes     message size.
     * @return the bandwidth row, or {@code null} if none was measured.
     */
    public BandwidthStats bandwidth(final String transport, final int bytes)
    {
        return bandwidth.get(key(transport, bytes));
    }

    /**
     * @param kind latency or bandwidth.
     * @return how many rows of that kind were collected.
     */
    public int rows(final TestKind kind)
    {
        return TestKind.LATENCY == kind ? latency.size() : bandwidth.size();
    }

    /**
     * @return every note, in order.
     */
    public List<String> notes()
    {
        return List.copyOf(notes);
    }

    private static String key(final String transport, final int bytes)
    {
        return transport + "/" + bytes;
    }
}
