// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import io.verbs4j.bench.report.BandwidthStats;
import io.verbs4j.bench.report.LatencyStats;
import io.verbs4j.bench.report.ResultSink;
import io.verbs4j.bench.report.TestHeader;

/**
 * Gives every result to two sinks, the tool's own first: {@code perftest --chart} keeps its table as it is and
 * records the same rows as JSON lines for the chart.
 */
final class ResultTee implements ResultSink
{
    private final ResultSink first;
    private final ResultSink second;

    ResultTee(final ResultSink first, final ResultSink second)
    {
        this.first = first;
        this.second = second;
    }

    @Override
    public void begin(final TestHeader header)
    {
        first.begin(header);
        second.begin(header);
    }

    @Override
    public void latency(final LatencyStats stats)
    {
        first.latency(stats);
        second.latency(stats);
    }

    @Override
    public void bandwidth(final BandwidthStats stats)
    {
        first.bandwidth(stats);
        second.bandwidth(stats);
    }

    @Override
    public void warmedUp(final long nanos)
    {
        first.warmedUp(nanos);
        second.warmedUp(nanos);
    }

    @Override
    public void note(final String text)
    {
        first.note(text);
        second.note(text);
    }

    @Override
    public void end()
    {
        first.end();
        second.end();
    }
}
