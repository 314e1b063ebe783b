// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.report.BandwidthStats;
import io.verbs4j.bench.report.Histograms;
import io.verbs4j.bench.report.LatencyStats;
import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.WindowPlan;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * The timed loops of the initiator side. Histograms are allocated before the timed part; the loops themselves do
 * not allocate.
 */
public final class SessionRunner
{
    private SessionRunner()
    {
    }

    /**
     * Runs warm-up then timed round trips, timing each with {@link System#nanoTime()}.
     *
     * @param initiator connected initiator.
     * @param spec      the session.
     * @return the latency row (half round trip).
     * @throws IOException      on a transport failure.
     * @throws TimeoutException if the peer stopped answering.
     */
    public static LatencyStats runLatency(final PingPongInitiator initiator, final SessionSpec spec)
        throws IOException, TimeoutException
    {
        return runLatency(initiator, spec, true);
    }

    /**
     * Runs warm-up then timed operations, timing each with {@link System#nanoTime()}.
     *
     * @param initiator connected initiator.
     * @param spec      the session.
     * @param halve     {@code true}: report half of each round trip (ping-pong); {@code false}: the whole
     *                  operation (READ, atomics); see {@code PingPongTransport.halvesRoundTrip()}.
     * @return the latency row.
     * @throws IOException      on a transport failure.
     * @throws TimeoutException if the peer stopped answering.
     */
    public static LatencyStats runLatency(
        final PingPongInitiator initiator, final SessionSpec spec, final boolean halve)
        throws IOException, TimeoutException
    {
        for (long i = 0, warmup = spec.warmup(); i < warmup; i++)
        {
            initiator.roundTrip();
        }
        final Histogram roundTripsNs = Histograms.newNanosHistogram();
        for (long i = 0, iterations = spec.iterations(); i < iterations; i++)
        {
            final long startNs = System.nanoTime();
            initiator.roundTrip();
            Histograms.record(roundTripsNs, System.nanoTime() - startNs);
        }
        return halve ?
            LatencyStats.fromRoundTrips(spec.messageBytes(), roundTripsNs) :
            LatencyStats.fromOperations(spec.messageBytes(), roundTripsNs);
    }

    /**
     * Runs warm-up windows then timed windows ({@link WindowPlan}), timing each window.
     *
     * @param initiator connected initiator.
     * @param spec      the session.
     * @return the bandwidth row.
     * @throws IOException      on a transport failure.
     * @throws TimeoutException if the peer stopped answering.
     */
    public static BandwidthStats runBandwidth(final StreamInitiator initiator, final SessionSpec spec)
        throws IOException, TimeoutException
    {
        final int window = spec.window();
        for (long w = 0, windows = WindowPlan.windowCount(spec.warmup(), window); w < windows; w++)
        {
            initiator.sendWindow(WindowPlan.windowSize(spec.warmup(), window, w));
        }
        final Histogram fullWindowsNs = Histograms.newNanosHistogram();
        final long messages = spec.iterations();
        final long startNs = System.nanoTime();
        long previousNs = startNs;
        for (long w = 0, windows = WindowPlan.windowCount(messages, window); w < windows; w++)
        {
            final int count = WindowPlan.windowSize(messages, window, w);
            initiator.sendWindow(count);
            final long nowNs = System.nanoTime();
            if (count == window)
            {
                Histograms.record(fullWindowsNs, nowNs - previousNs);
            }
            previousNs = nowNs;
        }
        return BandwidthStats.from(spec.messageBytes(), messages, previousNs - startNs, fullWindowsNs, window);
    }
}
