// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionException;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.MemoryRegion;
import io.verbs4j.MemoryReservationException;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.collectives.launch.ClusterResult;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.shm.ShmConfiguration;
import io.verbs4j.spi.PageReservation;
import io.verbs4j.system.support.SystemTests;
import io.verbs4j.system.support.TinyTmpfs;
import io.verbs4j.tcp.TcpConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The providers and a communicator on a 16 MiB tmpfs mounted by the test (a container's /dev/shm is 64 MiB by
 * default): every segment is reserved when it is created, so a full directory refuses the call that wanted the
 * memory with a {@link MemoryReservationException} naming the directory, the size, the free space and the remedy,
 * and nothing ever faults later in a memory access (before, an RDMA WRITE into a region larger than the free space
 * killed the initiator's JVM with an {@link InternalError}). Every process stays alive and nothing is left in the
 * tmpfs. Needs root to mount; skipped with the reason otherwise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TinyTmpfsSystemTest
{
    private static final long TMPFS_BYTES = 16L << 20;
    private static final long MIB = 1L << 20;

    private TinyTmpfs tmpfs;
    private int names;

    @BeforeAll
    void mountTinyTmpfs()
    {
        final String[] why = new String[1];
        tmpfs = TinyTmpfs.mount(TMPFS_BYTES, why);
        assumeTrue(null != tmpfs, () -> "skipped: " + why[0]);
    }

    @AfterAll
    void unmount()
    {
        if (null != tmpfs)
        {
            tmpfs.close();
        }
    }

    @AfterEach
    void clear()
    {
        if (null != tmpfs)
        {
            tmpfs.clear();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aRegionLargerThanTheFreeSpaceIsRefusedWithTheRemedy(final String provider)
    {
        try (Device device = Verbs.open(provider, context(provider)))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final MemoryReservationException ex = assertThrows(MemoryReservationException.class,
                () -> pd.allocate(32 * MIB, Access.ALL));
            final String message = ex.getMessage();
            assertEquals(32 * MIB, ex.requestedBytes());
            assertTrue(ex.freeBytes() >= 0 && ex.freeBytes() <= TMPFS_BYTES, message);
            assertTrue(ex.directory().startsWith(tmpfs.dir().toString()), message);
            for (final String part : List.of(tmpfs.dir().toString(), Long.toString(32 * MIB), "free",
                "--shm-size", dirProperty(provider)))
            {
                assertTrue(message.contains(part), "the message names " + part + ": " + message);
            }
            // The device is unharmed: a region that fits works, every byte of it.
            try (MemoryRegion mr = pd.allocate(4 * MIB, Access.ALL))
            {
                mr.setMemory(0, mr.length(), (byte)7);
                assertEquals(7, mr.getByte(mr.length() - 1));
            }
            assertTrue(tmpfs.files().stream().noneMatch(f -> f.endsWith(".mr") || f.contains("verbs4j-tcp")),
                "no region file left: " + tmpfs.files());
        }
        assertEquals(List.of(), tmpfs.files(), "nothing left behind");
    }

    @Test
    void reservationStopsAtTheFirstPageTheTmpfsCannotGive() throws IOException
    {
        final Path file = tmpfs.dir().resolve("probe");
        final long before = tmpfs.freeBytes();
        final long length = before + MIB;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            final MemoryReservationException ex = assertThrows(MemoryReservationException.class,
                () -> PageReservation.reserve(channel, file, length, "some.dir.property"));
            assertInstanceOf(IOException.class, ex.getCause());
            assertTrue(ex.getMessage().contains("some.dir.property"), ex.getMessage());
            assertEquals(length, ex.requestedBytes());
        }
        finally
        {
            Files.deleteIfExists(file);
        }
        assertEquals(before, tmpfs.freeBytes(), "deleting the file gives every reserved page back");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void regionsRacingForTheLastPagesEitherGetEveryPageOrFailCleanly(final String provider) throws Exception
    {
        try (Device device = Verbs.open(provider, context(provider)))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final long freeAtStart = tmpfs.freeBytes();
            for (int round = 0; round < 6; round++)
            {
                // Two regions of 3/4 of the free space: both pass the up-front check, at most one can get its pages.
                final long each = (tmpfs.freeBytes() * 3 / 4) & ~4095L;
                final CyclicBarrier start = new CyclicBarrier(2);
                final List<CompletableFuture<MemoryRegion>> racers = new ArrayList<>();
                for (int i = 0; i < 2; i++)
                {
                    racers.add(CompletableFuture.supplyAsync(() ->
                    {
                        await(start);
                        return pd.allocate(each, Access.ALL);
                    }));
                }
                // Both racers are joined before a winner is closed: a region closed early gives its pages back,
                // and a racer the scheduler started late could then fit as well.
                final List<MemoryRegion> won = new ArrayList<>();
                for (final CompletableFuture<MemoryRegion> racer : racers)
                {
                    try
                    {
                        won.add(racer.join());
                    }
                    catch (final java.util.concurrent.CompletionException ex)
                    {
                        assertInstanceOf(MemoryReservationException.class, ex.getCause(), ex.toString());
                    }
                }
                try
                {
                    assertTrue(won.size() <= 1, "two regions of 3/4 of the free space cannot both fit");
                    for (final MemoryRegion mr : won)
                    {
                        // Every page exists: touching all of them cannot fault.
                        mr.setMemory(0, mr.length(), (byte)0x5A);
                        assertEquals(0x5A, mr.getByte(mr.length() - 1));
                    }
                }
                finally
                {
                    for (final MemoryRegion mr : won)
                    {
                        mr.close();
                    }
                }
                assertEquals(freeAtStart, tmpfs.freeBytes(), "round " + round + ": every page came back");
            }
        }
        assertEquals(List.of(), tmpfs.files(), "nothing left behind");
    }

    @Test
    void regionsThatFillTheTmpfsTakeRemoteWritesToEveryByteAndFurtherSegmentsAreRefused() throws Exception
    {
        final DeviceContext context = context("shm");
        final String endpoint = "shm://tiny-" + ProcessHandle.current().pid() + "-" + (++names);
        try (Device server = Verbs.open("shm", context);
            Device client = Verbs.open("shm", context);
            Listener listener = server.connectionManager().listen(endpoint))
        {
            final ProtectionDomain serverPd = server.allocateProtectionDomain();
            final ProtectionDomain clientPd = client.allocateProtectionDomain();
            final CompletionQueue serverCq = server.createCompletionQueue(64);
            final CompletionQueue clientCq = client.createCompletionQueue(64);
            final QueuePair serverQp = serverPd.createQueuePair(new QueuePairConfig(serverCq).sendDepth(8)
                .recvDepth(8));
            final QueuePair clientQp = connect(client, clientPd, clientCq, listener, serverQp);
            final MemoryRegion source = clientPd.allocate(MIB, Access.ALL);
            for (long i = 0; i < MIB; i += 8)
            {
                source.putLong(i, i * 31 + 7);
            }

            // The initiator's view of the issue: regions that fill the tmpfs, then WRITEs to every byte of them.
            final List<MemoryRegion> targets = new ArrayList<>();
            MemoryReservationException refused = null;
            while (null == refused)
            {
                try
                {
                    targets.add(serverPd.allocate(2 * MIB, Access.ALL));
                }
                catch (final MemoryReservationException ex)
                {
                    refused = ex;
                }
            }
            assertTrue(targets.size() >= 3, "a few regions fit before the tmpfs is full: " + targets.size());
            final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED);
            long wrId = 0;
            for (final MemoryRegion target : targets)
            {
                for (long offset = 0; offset < target.length(); offset += MIB)
                {
                    write.wrId(++wrId).clearSges().sge(source, 0, (int)MIB)
                        .remote(target.address() + offset, target.rkey());
                    assertEquals(QueuePair.OK, clientQp.postSend(write));
                    assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(awaitStatus(clientCq)));
                }
                assertEquals((MIB - 8) * 31 + 7, target.getLong(target.length() - 8),
                    "the last word of every region arrived");
            }

            // Fill what is left with small regions: now not even a ring or a device segment fits.
            while (true)
            {
                try
                {
                    targets.add(serverPd.allocate(64 * 1024, Access.ALL));
                }
                catch (final MemoryReservationException ex)
                {
                    break;
                }
            }
            final QueuePair second = clientPd.createQueuePair(new QueuePairConfig(clientCq).sendDepth(8)
                .recvDepth(8));
            final MemoryReservationException connect = assertThrows(MemoryReservationException.class,
                () -> client.connectionManager().connect(second, listener.endpoint(), new byte[0],
                    Duration.ofSeconds(5)));
            assertTrue(connect.getMessage().contains(ShmConfiguration.DIR_PROP_NAME), connect.getMessage());
            final ConnectionException listen = assertThrows(ConnectionException.class,
                () -> server.connectionManager().listen(endpoint + "-second"));
            assertInstanceOf(MemoryReservationException.class, listen.getCause(), listen.toString());
            assertThrows(MemoryReservationException.class, () -> Verbs.open("shm", context).close());
            assertFalse(tmpfs.files().stream().anyMatch(f -> f.endsWith(".conn") || f.endsWith("-second.listen")),
                "refused segments leave no file: " + tmpfs.files());

            // The connection made before is unharmed.
            write.wrId(++wrId).clearSges().sge(source, 0, 4096).remote(targets.get(0).address(), targets.get(0).rkey());
            assertEquals(QueuePair.OK, clientQp.postSend(write));
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(awaitStatus(clientCq)));
            assertEquals(QpState.RTS, clientQp.state());
        }
        assertEquals(List.of(), tmpfs.files(), "nothing left behind");
    }

    @Test
    void aCommunicatorOnAFullTmpfsFailsCleanlyInEveryRank()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream output = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final ClusterResult result = new LoopbackCluster(3).timeout(Duration.ofSeconds(150)).output(output)
            .jvmArgs(SystemTests.SMALL_CHILD.toArray(new String[0]))
            .run(TinyTmpfsRankMain.class.getName(), tmpfs.dir().toString());
        final String text = bytes.toString(StandardCharsets.UTF_8);
        System.out.print(text);
        assertTrue(result.succeeded(), "every rank stayed alive and exited by itself: " + result + "\n" + text);
        assertFalse(text.contains(TinyTmpfsRankMain.CRASH), text);
        assertFalse(text.contains("WRONG"), "no result was wrong:\n" + text);
        assertTrue(text.contains(MemoryReservationException.class.getSimpleName()),
            "the tmpfs did fill up and was refused somewhere:\n" + text);
        assertEquals(3, text.split(TinyTmpfsRankMain.DONE, -1).length - 1, "every rank finished:\n" + text);
        assertEquals(List.of(), tmpfs.files(), "nothing left behind");
    }

    private DeviceContext context(final String provider)
    {
        final DeviceContext context = SystemTests.context(provider, tmpfs.dir());
        if ("tcp".equals(provider))
        {
            context.property(TcpConfiguration.MEMORY_DIR_PROP_NAME, tmpfs.dir().toString());
        }
        return context;
    }

    private static String dirProperty(final String provider)
    {
        return "shm".equals(provider) ? ShmConfiguration.DIR_PROP_NAME : TcpConfiguration.MEMORY_DIR_PROP_NAME;
    }

    private static QueuePair connect(final Device client, final ProtectionDomain clientPd,
        final CompletionQueue clientCq, final Listener listener, final QueuePair serverQp)
    {
        final CompletableFuture<Void> accepted = CompletableFuture.runAsync(() ->
            listener.accept(Duration.ofSeconds(20)).accept(serverQp, new byte[0]));
        final QueuePair qp = clientPd.createQueuePair(new QueuePairConfig(clientCq).sendDepth(8).recvDepth(8));
        client.connectionManager().connect(qp, listener.endpoint(), new byte[0], Duration.ofSeconds(20));
        accepted.join();
        return qp;
    }

    private static int awaitStatus(final CompletionQueue cq) throws InterruptedException
    {
        final int[] status = {-1};
        assertEquals(1, cq.poll((w, s, o, b, i, f, q) -> status[0] = s, 1, 10, TimeUnit.SECONDS),
            "a completion within 10 s");
        return status[0];
    }

    private static void await(final CyclicBarrier barrier)
    {
        try
        {
            barrier.await(10, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
