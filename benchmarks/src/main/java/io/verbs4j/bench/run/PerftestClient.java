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
import io.verbs4j.collectives.measure.JitActivity;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The initiator side of a perftest run: for each {@link TestPlan}, for each size, opens a session on the server
 * (unless the transport needs no peer), runs it with {@link SessionRunner} and reports the row, after untimed
 * sessions of that size for the plan's least warm-up time, and longer while a JIT compiler (this JVM's or the
 * server's) is still at work ({@link SessionWarmup}). A failed size is reported as a note and the run continues;
 * {@link #run} returns how many sizes failed.
 */
public final class PerftestClient
{
    private final ControlClient control;
    private final String peerDescription;
    private final ResultSink sink;
    private final LongSupplier jitClock = JitActivity.compileMillis();

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
                final SessionWarmup warmup =
                    warmUp(transport, spec, TimeUnit.MILLISECONDS.toNanos(plan.warmupMinMs()));
                if (warmup.spentNs() > 0)
                {
                    sink.warmedUp(warmup.spentNs());
                }
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
     * Untimed sessions of one size, as {@link SessionWarmup} schedules them.
     *
     * @return the schedule, after its last session.
     */
    private SessionWarmup warmUp(final TransportUnderTest transport, final SessionSpec spec, final long minNs)
        throws IOException, SessionFailure
    {
        final SessionWarmup warmup = new SessionWarmup(minNs, SessionWarmup.JIT_CAP_NS, spec.warmup());
        while (warmup.more())
        {
            final SessionSpec untimed = new SessionSpec(spec.transport(), spec.kind(), spec.messageBytes(), 0,
                warmup.nextCount(), spec.window(), spec.busyPoll(), spec.timeoutMs());
            final long jitBeforeMs = jitMillis();
            final long startNs = System.nanoTime();
            runSession(transport, untimed, false);
            warmup.onSession(System.nanoTime() - startNs, jitMillis() - jitBeforeMs);
        }
        return warmup;
    }

    /** Compilation time of this JVM plus, when a server takes part, the server's as of its last session. */
    private long jitMillis()
    {
        return jitClock.getAsLong() + (null == control ? 0 : control.peerCompileMillis());
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
