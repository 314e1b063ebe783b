// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

/**
 * Receives the results of a perftest run, table by table:
 * <pre>
 * (begin (warmedUp? (latency | bandwidth) | note)* end)*
 * </pre>
 * Implementations write as they go so a long sweep shows progress. Single-threaded.
 */
public interface ResultSink
{
    /**
     * A new table starts.
     *
     * @param header what it is measured with.
     */
    void begin(TestHeader header);

    /**
     * One latency row of the current table.
     *
     * @param stats the row.
     */
    void latency(LatencyStats stats);

    /**
     * One bandwidth row of the current table.
     *
     * @param stats the row.
     */
    void bandwidth(BandwidthStats stats);

    /**
     * The next row's untimed warm-up took this long (perftest's time-based warm-up; not called for an exact count).
     *
     * @param nanos warm-up time of the size the next row reports.
     */
    default void warmedUp(final long nanos)
    {
    }

    /**
     * A remark about the current table (skipped sizes, a failed size).
     *
     * @param text one line, no line break.
     */
    void note(String text);

    /**
     * The current table is complete.
     */
    void end();
}
