// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CollectivesConfiguration;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.stat.StatFile;
import io.verbs4j.stat.StatPublisher;
import io.verbs4j.stat.StatRegistry;
import io.verbs4j.stat.StatSnapshot;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flight Recorder events, the history and the INFO report of communicators, over shm with ranks as threads.
 */
class ObservabilityTest
{
    private static final int CALLS = 25;

    /**
     * The operation timeout applies to every call, not only to the one meant to time out: 2 s, so that a GC pause
     * or a late rank on a loaded machine does not fail a normal call.
     */
    private static CommunicatorContext context(final int rank, final int size,
        final io.verbs4j.collectives.rendezvous.RendezvousStore store, final String name)
    {
        return new CommunicatorContext().rank(rank).size(size).store(store).transport("shm").name(name)
            .chunkBytes(32 * 1024).calibrate(false).history(8).opTimeout(Duration.ofSeconds(2));
    }

    /** Rank 0 calls an AllReduce rank 1 never joins: it times out; rank 1 waits for that before closing. */
    private static void rankZeroTimesOutAlone(final Communicator comm, final int rank, final CountDownLatch done)
        throws InterruptedException
    {
        if (0 == rank)
        {
            final int[] value = {7};
            try
            {
                assertThrows(CollectiveException.class,
                    () -> comm.allReduce(CommBuffer.of(value), CommBuffer.of(value), 1, DataType.INT32, ReduceOp.SUM));
            }
            finally
            {
                done.countDown();
            }
        }
        else
        {
            assertTrue(done.await(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void everyCollectiveIsAFlightRecorderEventAndAFailureIsOneToo() throws Exception
    {
        final Path file = Files.createTempFile("verbs4j-observe", ".jfr");
        try (Recording recording = new Recording())
        {
            recording.enable(CollectiveEvent.class).withoutThreshold();
            recording.enable(CommunicatorCreatedEvent.class);
            recording.enable(CommunicatorFailedEvent.class);
            recording.start();
            final CountDownLatch done = new CountDownLatch(1);
            new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
            {
                try (Communicator comm = Communicator.create(context(rank, size, store, "jfr")))
                {
                    final float[] data = new float[16];
                    for (int i = 0; i < CALLS; i++)
                    {
                        comm.allReduce(CommBuffer.of(data), CommBuffer.of(data), data.length, DataType.FLOAT32,
                            ReduceOp.SUM);
                    }
                    comm.barrier();
                    rankZeroTimesOutAlone(comm, rank, done);
                }
            });
            recording.stop();
            recording.dump(file);

            final List<RecordedEvent> collectives = new ArrayList<>();
            final List<RecordedEvent> created = new ArrayList<>();
            final List<RecordedEvent> failed = new ArrayList<>();
            for (final RecordedEvent event : RecordingFile.readAllEvents(file))
            {
                final String name = event.getEventType().getName();
                if ("io.verbs4j.Collective".equals(name) && "jfr".equals(event.getString("communicator")))
                {
                    collectives.add(event);
                }
                else if ("io.verbs4j.CommunicatorCreated".equals(name) && "jfr".equals(event.getString("communicator")))
                {
                    created.add(event);
                }
                else if ("io.verbs4j.CommunicatorFailed".equals(name) &&
                    "jfr".equals(event.getString("communicator")))
                {
                    failed.add(event);
                }
            }
            assertEquals(2, created.size(), "one creation event per rank");
            assertEquals("self,shm", created.stream().filter(e -> 0 == e.getInt("rank")).findFirst().orElseThrow()
                .getString("transports"));
            int allReduces = 0;
            int okBarriers = 0;
            for (final RecordedEvent event : collectives)
            {
                if ("allReduce".equals(event.getString("operation")) && 64 == event.getLong("bytes"))
                {
                    allReduces++;
                    assertEquals(64, event.getLong("bytes"));
                    assertEquals("ok", event.getString("outcome"));
                    assertEquals(2, event.getInt("size"));
                    assertTrue(null != event.getString("algorithm"), event.toString());
                }
                else if ("barrier".equals(event.getString("operation")) && "ok".equals(event.getString("outcome")))
                {
                    okBarriers++;
                }
            }
            assertEquals(2 * CALLS, allReduces, "one event per call per rank");
            assertEquals(2, okBarriers);
            assertTrue(failed.stream().anyMatch(e -> 0 == e.getInt("rank") && "TIMEOUT".equals(e.getString("reason"))),
                failed.toString());
            assertTrue(collectives.stream().anyMatch(e -> "allReduce".equals(e.getString("operation")) &&
                "TIMEOUT".equals(e.getString("outcome"))), "the failed call is an event with its outcome");
        }
        finally
        {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void eachRanksCountersAreInTheCountersFileWhileTheCommunicatorIsOpen(@TempDir final Path dir) throws Exception
    {
        final ConcurrentHashMap<Integer, List<StatSnapshot.Counter>> open = new ConcurrentHashMap<>();
        try (StatPublisher publisher = StatRegistry.publishTo(dir, Duration.ofHours(1)))
        {
            new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
            {
                try (Communicator comm = Communicator.create(context(rank, size, store, "stat")))
                {
                    final int[] value = {rank};
                    for (int i = 0; i < 3; i++)
                    {
                        comm.allReduce(CommBuffer.of(value), CommBuffer.of(value), 1, DataType.INT32, ReduceOp.MAX);
                    }
                    comm.barrier();
                    publisher.publishNow();
                    open.put(rank, StatFile.read(publisher.file()).counters());
                    comm.barrier();
                }
            });
            publisher.publishNow();
            final List<StatSnapshot.Counter> closed = StatFile.read(publisher.file()).counters();
            assertTrue(closed.stream().noneMatch(c -> c.group().startsWith("communicator 'stat'")), closed::toString);
        }
        final List<StatSnapshot.Counter> counters = open.get(0);
        assertTrue(counters.contains(new StatSnapshot.Counter("communicator 'stat' rank 0 of 2", "collectives failed",
            0)), counters::toString);
        assertTrue(counters.stream().anyMatch(c -> c.group().equals("communicator 'stat' rank 0 of 2") &&
            c.label().equals("bytes per rank of completed collectives") && c.value() >= 12), counters::toString);
        assertTrue(counters.stream().anyMatch(c -> c.group().equals("communicator 'stat' rank 1 of 2") &&
            c.label().equals("collectives completed") && c.value() >= 3), counters::toString);
    }

    @Test
    void theHistoryShowsTheLastCallsAndIsLoggedWhenTheCommunicatorFails()
    {
        final LogCapture logged = new LogCapture();
        final ConcurrentHashMap<Integer, String> histories = new ConcurrentHashMap<>();
        final CountDownLatch done = new CountDownLatch(1);
        try
        {
            new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
            {
                try (Communicator comm = Communicator.create(context(rank, size, store, "history")))
                {
                    final int[] value = {rank};
                    for (int i = 0; i < 12; i++)
                    {
                        comm.allReduce(CommBuffer.of(value), CommBuffer.of(value), 1, DataType.INT32, ReduceOp.MAX);
                    }
                    comm.barrier();
                    rankZeroTimesOutAlone(comm, rank, done);
                    histories.put(rank, comm.history());
                }
            });
        }
        finally
        {
            logged.close();
        }
        final String zero = histories.get(0);
        final String[] lines = zero.split("\n");
        assertEquals(8, lines.length, zero);
        assertTrue(lines[6].contains("#13 barrier 0 B") && lines[6].endsWith("completed"), zero);
        assertTrue(lines[7].contains("#14 allReduce 4 B") && lines[7].endsWith("FAILED"), zero);
        assertTrue(lines[0].contains("#7 allReduce 4 B"), zero);
        assertTrue(histories.get(1).split("\n")[7].contains("#13 barrier"), histories.get(1));
        assertTrue(logged.messages().stream().anyMatch(m -> m.contains("communicator 'history' failed on rank 0 " +
            "of 2") && m.contains("#14 allReduce 4 B")), String.valueOf(logged.messages()));
    }

    @Test
    void aPeerFailureLogsTheHistoryOfTheRankThatSawIt()
    {
        final LogCapture logged = new LogCapture();
        try
        {
            new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
            {
                final Communicator comm = Communicator.create(context(rank, size, store, "peer-failure")
                    .opTimeout(Duration.ofSeconds(20)));
                try
                {
                    final int[] one = {rank};
                    for (int i = 0; i < 5; i++)
                    {
                        comm.allReduce(CommBuffer.of(one), CommBuffer.of(one), 1, DataType.INT32, ReduceOp.MAX);
                    }
                    store.set("peer-failure-calls-done-" + rank, new byte[0]);
                    if (1 == rank)
                    {
                        // Once rank 0 is past call #5: abort, which fails this rank's links as a crash would.
                        store.waitFor(List.of("peer-failure-calls-done-0"), Duration.ofSeconds(30));
                        comm.abort();
                        return;
                    }
                    final int[] four = new int[4];
                    final CollectiveException ex = assertThrows(CollectiveException.class,
                        () -> comm.allReduce(CommBuffer.of(four), CommBuffer.of(four), 4, DataType.INT32,
                            ReduceOp.SUM));
                    assertEquals(CollectiveException.Reason.PEER_FAILED, ex.reason(), ex.getMessage());
                }
                finally
                {
                    comm.close();
                }
            });
        }
        finally
        {
            logged.close();
        }
        final String dump = logged.messages().stream()
            .filter(m -> m.contains("communicator 'peer-failure' failed on rank 0 of 2")).findFirst()
            .orElseThrow(() -> new AssertionError("rank 0 logged no failure: " + logged.messages()));
        final String[] lines = dump.split("\n");
        assertTrue(dump.contains("\nlast collectives of rank 0 (oldest first):\n"), dump);
        final String last = lines[lines.length - 1];
        assertTrue(last.startsWith("  #6 allReduce 16 B") && last.endsWith(", FAILED"), dump);
        final String before = lines[lines.length - 2];
        assertTrue(before.startsWith("  #5 allReduce 4 B") && before.endsWith(", completed"), dump);
        assertTrue(dump.contains("  #1 allReduce 4 B"), "the first call is still among the last 8: " + dump);
    }

    @Test
    void theDebugSwitchPrintsTheInfoReportOfEachRankAtCreation()
    {
        final String before = System.getProperty(CollectivesConfiguration.DEBUG_PROP_NAME);
        final PrintStream err = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try
        {
            System.setProperty(CollectivesConfiguration.DEBUG_PROP_NAME, "info");
            assertTrue(new CommunicatorContext().debugInfo(), "-Dverbs4j.debug=info switches it on");
            System.setProperty(CollectivesConfiguration.DEBUG_PROP_NAME, "WARN");
            assertFalse(new CommunicatorContext().debugInfo(), "a level above INFO leaves it off");
            System.setProperty(CollectivesConfiguration.DEBUG_PROP_NAME, "INFO");
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            new ThreadCluster(2, Duration.ofSeconds(60)).run((rank, size, store) ->
            {
                try (Communicator comm = Communicator.create(context(rank, size, store, "debug-info")))
                {
                    comm.barrier();
                }
            });
        }
        finally
        {
            System.setErr(err);
            if (null == before)
            {
                System.clearProperty(CollectivesConfiguration.DEBUG_PROP_NAME);
            }
            else
            {
                System.setProperty(CollectivesConfiguration.DEBUG_PROP_NAME, before);
            }
        }
        final String text = captured.toString(StandardCharsets.UTF_8);
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(text.contains("verbs4j INFO communicator 'debug-info' rank " + rank + " of 2, host address "),
                text);
        }
        assertTrue(text.contains("verbs4j INFO   peers: 0=self 1=shm\n"), text);
        assertTrue(text.contains("verbs4j INFO   peers: 0=shm 1=self\n"), text);
        assertTrue(text.contains("verbs4j INFO   cost model: "), text);
        assertTrue(text.matches("(?s).*verbs4j INFO   allReduce by size: 1 B\\.\\..*"), text);
    }

    @Test
    void theInfoReportNamesEachPeersTransportTheFlagLinksAndTheAlgorithms()
    {
        final String text = CreationReport.describe("job", 1, 3, "10.0.0.2", new String[]{"shm", null, "tcp"}, 65536,
            1, "CostModel{...}", bytes -> bytes <= 4096 ? "RECURSIVE_DOUBLING" : "RING");
        assertEquals(String.join("\n",
            "verbs4j INFO communicator 'job' rank 1 of 3, host address 10.0.0.2",
            "verbs4j INFO   peers: 0=shm 1=self 2=tcp",
            "verbs4j INFO   flag links: 1 peer(s) on this host, operations up to 65536 B",
            "verbs4j INFO   cost model: CostModel{...}",
            "verbs4j INFO   allReduce by size: 1 B..4 KiB RECURSIVE_DOUBLING; 8 KiB..1 GiB RING"), text);
        assertTrue(CreationReport.describe("solo", 0, 1, "127.0.0.1", new String[1], -1, 0, "m", b -> "RING")
            .contains("flag links: none"));
    }

    @Test
    void busyPollWithMoreRanksThanCoresIsWarnedAbout()
    {
        try (LogCapture log = new LogCapture())
        {
            assertTrue(CreationReport.warnIfOversubscribedBusyPoll(0, true, 4, 2));
            assertTrue(log.messages().get(0).contains("busy-poll with 4 ranks on this host and 2 cores"),
                String.valueOf(log.messages()));
            assertFalse(CreationReport.warnIfOversubscribedBusyPoll(0, true, 2, 2));
            assertFalse(CreationReport.warnIfOversubscribedBusyPoll(0, false, 4, 2));
            assertEquals(1, log.messages().size());
        }
    }
}
