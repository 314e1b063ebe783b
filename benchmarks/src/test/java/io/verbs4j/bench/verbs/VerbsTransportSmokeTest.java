// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.verbs;

import io.verbs4j.bench.report.BandwidthStats;
import io.verbs4j.bench.report.LatencyStats;
import io.verbs4j.bench.run.InProcessSession;
import io.verbs4j.bench.run.PerftestTransport;
import io.verbs4j.bench.run.SessionRunner;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.TransportUnderTest;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every verbs transport under test, every kind it supports, tiny counts, responder on a thread of this JVM (two
 * devices): the session must complete, the rows must be plausible, and the responder must finish by itself (the
 * one-sided ones by seeing the initiator disconnect).
 */
@Timeout(60)
class VerbsTransportSmokeTest
{
    @TestFactory
    List<DynamicTest> shouldRunEveryVerbsTransport()
    {
        final List<DynamicTest> tests = new ArrayList<>();
        for (final PerftestTransport row : PerftestTransport.values())
        {
            final TransportUnderTest transport = row.instance();
            if (!(transport instanceof VerbsTransport))
            {
                continue;
            }
            for (final TestKind kind : TestKind.values())
            {
                for (final int size : new int[] { 8, 65536 })
                {
                    if (transport.supports(kind, size))
                    {
                        // Busy-polling only for the atomics: on a 2-core machine four spinning threads (two
                        // application threads, two provider threads) make big round trips take whole time slices.
                        final boolean busyPoll = ((VerbsTransport)transport).operation().isAtomic();
                        tests.add(DynamicTest.dynamicTest(row.transportName() + " " + kind.shortName() + " " + size +
                            (busyPoll ? " busy-poll" : " backoff"), () -> run(row, kind, size, busyPoll)));
                    }
                }
            }
        }
        assertEquals(2 * (3 * 4 + 2), tests.size());
        return tests;
    }

    private static void run(final PerftestTransport row, final TestKind kind, final int size,
        final boolean busyPoll) throws Exception
    {
        final TransportUnderTest transport = row.instance();
        final SessionSpec spec = new SessionSpec(
            row.transportName(), kind, size, 20, 200, TestKind.LATENCY == kind ? 1 : 16, busyPoll, 10_000);
        try (InProcessSession session = InProcessSession.open(spec))
        {
            if (TestKind.LATENCY == kind)
            {
                final LatencyStats stats = SessionRunner.runLatency(
                    session.pingPong(), spec, ((VerbsTransport)transport).halvesRoundTrip());
                assertEquals(200, stats.iterations());
                assertTrue(stats.minNs() > 0 && stats.minNs() <= stats.typicalNs());
                assertTrue(stats.typicalNs() <= stats.maxNs());
            }
            else
            {
                final BandwidthStats stats = SessionRunner.runBandwidth(session.stream(), spec);
                assertEquals(200, stats.iterations());
                assertTrue(stats.averageGBps() > 0 && stats.peakGBps() >= stats.averageGBps());
            }
            session.closeInitiator();
            assertNull(session.awaitResponder(10_000));
        }
    }

    @Test
    void shouldReportOneSidedLatencyWhole()
    {
        assertFalse(new VerbsTransport("shm", VerbsOperation.READ).halvesRoundTrip());
        assertFalse(new VerbsTransport("tcp", VerbsOperation.FETCH_AND_ADD).halvesRoundTrip());
        assertTrue(new VerbsTransport("shm", VerbsOperation.WRITE).halvesRoundTrip());
        assertTrue(new VerbsTransport("tcp", VerbsOperation.SEND).halvesRoundTrip());
    }

    @Test
    void shouldResolveAWildcardTcpEndpointToThePeerHost()
    {
        assertEquals("tcp://10.1.2.3:4000", VerbsTransport.resolve("tcp://0.0.0.0:4000", "10.1.2.3"));
        // what a listener bound to 0.0.0.0 reports on a dual-stack JVM
        assertEquals("tcp://10.1.2.3:4000", VerbsTransport.resolve("tcp://[0:0:0:0:0:0:0:0]:4000", "10.1.2.3"));
        assertEquals("tcp://10.1.2.3:4000", VerbsTransport.resolve("tcp://[::]:4000", "10.1.2.3"));
        assertEquals("tcp://[::1]:4000", VerbsTransport.resolve("tcp://[::1]:4000", "10.1.2.3"));
        assertEquals("tcp://127.0.0.1:4000", VerbsTransport.resolve("tcp://127.0.0.1:4000", "10.1.2.3"));
        assertEquals("shm://x", VerbsTransport.resolve("shm://x", "10.1.2.3"));
    }
}
