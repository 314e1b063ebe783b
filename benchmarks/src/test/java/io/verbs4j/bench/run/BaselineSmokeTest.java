// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.baseline.ShmFiles;
import io.verbs4j.bench.report.BandwidthStats;
import io.verbs4j.bench.report.LatencyStats;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.TransportUnderTest;
import io.verbs4j.bench.verbs.VerbsTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every baseline, both kinds it supports, with tiny counts, responder on a thread: it must complete, report
 * plausible rows, and leave no file in /dev/shm.
 */
@Timeout(30)
class BaselineSmokeTest
{
    @AfterEach
    void shouldLeaveNoShmFiles() throws IOException
    {
        final List<String> left = new ArrayList<>();
        try (DirectoryStream<java.nio.file.Path> stream = Files.newDirectoryStream(
            ShmFiles.DIRECTORY, ShmFiles.PREFIX + ProcessHandle.current().pid() + "-*"))
        {
            stream.forEach(path -> left.add(path.toString()));
        }
        assertEquals(List.of(), left);
    }

    private static List<PerftestTransport> baselines()
    {
        final List<PerftestTransport> baselines = new ArrayList<>();
        for (final PerftestTransport row : PerftestTransport.values())
        {
            if (!(row.instance() instanceof VerbsTransport))
            {
                baselines.add(row);
            }
        }
        return baselines;
    }

    @Test
    void shouldRunEveryLatencyBaseline() throws Exception
    {
        int ran = 0;
        for (final PerftestTransport row : baselines())
        {
            final TransportUnderTest transport = row.instance();
            for (final int size : new int[] { 8, 4096 })
            {
                if (transport.supports(TestKind.LATENCY, size))
                {
                    for (final boolean busyPoll : new boolean[] { false, true })
                    {
                        final SessionSpec spec =
                            new SessionSpec(row.transportName(), TestKind.LATENCY, size, 20, 200, 1, busyPoll, 10_000);
                        try (InProcessSession session = InProcessSession.open(spec))
                        {
                            final LatencyStats stats = SessionRunner.runLatency(session.pingPong(), spec);
                            assertEquals(200, stats.iterations(), row.transportName());
                            assertTrue(stats.minNs() > 0 && stats.minNs() <= stats.typicalNs(), row.transportName());
                            assertTrue(stats.typicalNs() <= stats.maxNs(), row.transportName());
                            assertNull(session.awaitResponder(10_000), row.transportName());
                        }
                        ran++;
                    }
                }
            }
        }
        assertEquals(2 * (4 * 2 + 1), ran);
    }

    @Test
    void shouldRunEveryBandwidthBaseline() throws Exception
    {
        int ran = 0;
        for (final PerftestTransport row : baselines())
        {
            final TransportUnderTest transport = row.instance();
            for (final int size : new int[] { 8, 65536 })
            {
                if (transport.supports(TestKind.BANDWIDTH, size))
                {
                    final SessionSpec spec =
                        new SessionSpec(row.transportName(), TestKind.BANDWIDTH, size, 10, 100, 16, false, 10_000);
                    try (InProcessSession session = InProcessSession.open(spec))
                    {
                        final BandwidthStats stats = SessionRunner.runBandwidth(session.stream(), spec);
                        assertEquals(100, stats.iterations(), row.transportName());
                        assertTrue(stats.averageGBps() > 0, row.transportName());
                        assertTrue(stats.peakGBps() >= stats.averageGBps(), row.transportName());
                        assertTrue(stats.msgRateMpps() > 0, row.transportName());
                        assertNull(session.awaitResponder(10_000), row.transportName());
                    }
                    ran++;
                }
            }
        }
        assertEquals(2 * 6, ran);
    }

    @Test
    void shouldStopAnUnboundedShmResponderOnClose() throws Exception
    {
        final SessionSpec spec = new SessionSpec(
            "shm-cacheline", TestKind.LATENCY, 8, 0, SessionSpec.UNBOUNDED, 1, false, 10_000);
        final InProcessSession session = InProcessSession.open(spec);
        session.pingPong().roundTrip();

        session.close();

        assertTrue(session.awaitResponder(1_000) instanceof java.util.concurrent.TimeoutException);
    }
}
