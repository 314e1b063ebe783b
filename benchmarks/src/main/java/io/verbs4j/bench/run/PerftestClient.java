// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.control.ControlClient;
import io.verbs4j.bench.report.BandwidthStats;
import io.verbs4j.bench.report.LatencyStats;
import io.verbs4j.bench.report.ResultSink;
import io.verbs4j.bench.report.TestHeader;
import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.PingPongTransport;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.StreamTransport;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.TransportUnderTest;
import io.verbs4j.bench.spi.WaitLoop;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The initiator side of a perftest run: for each {@link TestPlan}, for each size, opens a session on the server
 * (unless the transport needs no peer), runs it with {@link SessionRunner} and reports the row, after untimed
 * sessions of that size for the plan's least warm-up time. A failed size is
 * reported as a note and the run continues; {@link #run} returns how many sizes failed.
 */
public final class PerftestClient
{
    private static final long LEAST_WARMUP_SESSION = 16;
    private static final long MAX_WARMUP_SESSION = 100_000_000L;
    private static final int MAX_WARMUP_SESSIONS = 100;

    private final ControlClient control;
    private final String peerDescription;
    private final ResultSink sink;

    /**
     * Creates a client.
     *
     * @param control         control connection, or {@code null} if no plan needs a peer.
     * @param peerDescription how the responder is described in reports.
     * @param sink            where results go.
     */
    public PerftestClient(final ControlClient control, final String peerDescription, final ResultSink sink)
    {
        this.control = control;
        this.peerDescription = peerDescription;
        this.sink = sink;
    }

    /**
     * Runs every plan in order.
     *
     * @param plans the tables to produce.
     * @return the number of failed sizes.
     * @throws IOException if the control connection fails (the run cannot continue).
     */
    public int run(final List<TestPlan> plans) throws IOException
    {
        int failures = 0;
        for (final TestPlan plan : plans)
        {
            failures += runPlan(plan);
        }
        return failures;
    }

    private int runPlan(final TestPlan plan) throws IOException
    {
        final TransportUnderTest transport = plan.transport().instance();
        sink.begin(new TestHeader(
            plan.transport().transportName(),
            plan.transport().description(),
            plan.kind(),
            transport.needsPeer() ? peerDescription : "in-process",
            WaitLoop.modeName(plan.busyPoll()),
            plan.warmup(),
            plan.window(),
            System.getProperty("java.vm.version"),
            transport.method(plan.kind()),
            plan.warmupMinMs()));
        final List<Integer> skipped = new ArrayList<>();
        int failures = 0;
        for (final int size : plan.sizes())
        {
            if (!transport.supports(plan.kind(), size))
            {
                skipped.add(size);
                continue;
            }
            try
            {
                final SessionSpec spec = plan.spec(size);
                warmUp(transport, spec, TimeUnit.MILLISECONDS.toNanos(plan.warmupMinMs()));
                runSession(transport, spec, true);
            }
            catch (final SessionFailure ex)
            {
                failures++;
                sink.note(size + " B failed: " + ex.getMessage());
            }
        }
        if (!skipped.isEmpty())
        {
            sink.note("sizes not supported by " + plan.transport().transportName() + ", skipped: " + skipped);
        }
        sink.end();
        return failures;
    }

    /**
     * Untimed sessions of one size until they have lasted {@code minNs} (the timed session's own warm-up iterations
     * come on top): the first of the spec's warm-up count (at least {@link #LEAST_WARMUP_SESSION}), each next one
     * sized from the rate seen so far to fill what is left, at most ten times the previous one. A JVM's first
     * thousand 1 MiB messages end before C2 has compiled the path, and a row timed then measured 15-25 % low.
     */
    private void warmUp(final TransportUnderTest transport, final SessionSpec spec, final long minNs)
        throws IOException, SessionFailure
    {
        long spentNs = 0;
        long count = Math.max(LEAST_WARMUP_SESSION, spec.warmup());
        for (int session = 0; session < MAX_WARMUP_SESSIONS && spentNs < minNs; session++)
        {
            final SessionSpec untimed = new SessionSpec(spec.transport(), spec.kind(), spec.messageBytes(), 0, count,
                spec.window(), spec.busyPoll(), spec.timeoutMs());
            final long startNs = System.nanoTime();
            runSession(transport, untimed, false);
            final long tookNs = Math.max(1, System.nanoTime() - startNs);
            spentNs += tookNs;
            final double nsPerIteration = (double)tookNs / count;
            final long wanted = (long)((minNs - spentNs) / nsPerIteration) + 1;
            count = Math.max(LEAST_WARMUP_SESSION, Math.min(wanted, Math.min(10 * count, MAX_WARMUP_SESSION)));
        }
    }

    private void runSession(final TransportUnderTest transport, final SessionSpec spec, final boolean report)
        throws IOException, SessionFailure
    {
        if (!transport.needsPeer())
        {
            runLocally(transport, spec, report);
            return;
        }
        final String endpoint = control.openSession(spec);
        if (null == endpoint)
        {
            throw new SessionFailure("server rejected the session: " + control.rejection());
        }
        boolean ok = false;
        String failure = null;
        try
        {
            measure(transport, spec, control.peerHost(), endpoint, report);
            ok = true;
        }
        catch (final IOException | TimeoutException | RuntimeException ex)
        {
            failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
        }
        try
        {
            control.endSession(ok);
        }
        catch (final IOException ex)
        {
            if (ok)
            {
                throw new SessionFailure(ex.getMessage());
            }
            throw ex;
        }
        if (!ok)
        {
            throw new SessionFailure(failure);
        }
    }

    private void runLocally(final TransportUnderTest transport, final SessionSpec spec, final boolean report)
        throws SessionFailure
    {
        try
        {
            measure(transport, spec, null, null, report);
        }
        catch (final IOException | TimeoutException | RuntimeException ex)
        {
            throw new SessionFailure(ex.getClass().getSimpleName() + ": " + ex.getMessage());
        }
    }

    private void measure(
        final TransportUnderTest transport,
        final SessionSpec spec,
        final String peerHost,
        final String endpoint,
        final boolean report)
        throws IOException, TimeoutException
    {
        if (TestKind.LATENCY == spec.kind())
        {
            try (PingPongInitiator initiator =
                ((PingPongTransport)transport).connectPingPong(spec, peerHost, endpoint))
            {
                final LatencyStats stats = SessionRunner.runLatency(
                    initiator, spec, ((PingPongTransport)transport).halvesRoundTrip());
                if (report)
                {
                    sink.latency(stats);
                }
            }
        }
        else
        {
            try (StreamInitiator initiator = ((StreamTransport)transport).connectStream(spec, peerHost, endpoint))
            {
                final BandwidthStats stats = SessionRunner.runBandwidth(initiator, spec);
                if (report)
                {
                    sink.bandwidth(stats);
                }
            }
        }
    }

    /**
     * One size failed; the run goes on.
     */
    private static final class SessionFailure extends Exception
    {
        private static final long serialVersionUID = 1L;

        SessionFailure(final String message)
        {
            super(message);
        }
    }
}
