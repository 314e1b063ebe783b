// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.control.ControlClient;
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
import java.util.concurrent.TimeoutException;

/**
 * The initiator side of a perftest run: for each {@link TestPlan}, for each size, opens a session on the server
 * (unless the transport needs no peer), runs it with {@link SessionRunner} and reports the row. A failed size is
 * reported as a note and the run continues; {@link #run} returns how many sizes failed.
 */
public final class PerftestClient
{
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
            transport.method(plan.kind())));
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
                runSession(transport, plan.spec(size));
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

    private void runSession(final TransportUnderTest transport, final SessionSpec spec)
        throws IOException, SessionFailure
    {
        if (!transport.needsPeer())
        {
            runLocally(transport, spec);
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
            measure(transport, spec, control.peerHost(), endpoint);
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

    private void runLocally(final TransportUnderTest transport, final SessionSpec spec) throws SessionFailure
    {
        try
        {
            measure(transport, spec, null, null);
        }
        catch (final IOException | TimeoutException | RuntimeException ex)
        {
            throw new SessionFailure(ex.getClass().getSimpleName() + ": " + ex.getMessage());
        }
    }

    private void measure(
        final TransportUnderTest transport, final SessionSpec spec, final String peerHost, final String endpoint)
        throws IOException, TimeoutException
    {
        if (TestKind.LATENCY == spec.kind())
        {
            try (PingPongInitiator initiator =
                ((PingPongTransport)transport).connectPingPong(spec, peerHost, endpoint))
            {
                sink.latency(SessionRunner.runLatency(
                    initiator, spec, ((PingPongTransport)transport).halvesRoundTrip()));
            }
        }
        else
        {
            try (StreamInitiator initiator = ((StreamTransport)transport).connectStream(spec, peerHost, endpoint))
            {
                sink.bandwidth(SessionRunner.runBandwidth(initiator, spec));
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
