// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionException;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.PostList;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.system.support.SystemTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Invalid use of the API gets a clear status or exception and corrupts nothing — the gaps the conformance kit
 * leaves (it already covers wrong QP state, bad lkey, SGE out of range, misaligned and mis-sized atomics, queue
 * overflow and CQ over-subscription, malformed requests): use after close of device, protection domain, completion
 * queue, region, queue pair and listener; double close of each; SGEs naming a region of another protection domain or
 * another device; objects of another device. After every case a fresh connection between the two devices must still
 * deliver data intact ({@link #assertHealthy}). Both ends are devices of this JVM; one subclass per provider.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class AbstractApiMisuseTest
{
    private static final int ALL = Access.ALL;

    private Path shmDir;
    private Device passive;
    private Listener listener;
    private ProtectionDomain passivePd;
    private CompletionQueue passiveCq;
    private int names;

    /** The active device, fresh for each test (some tests close it). */
    protected Device device;
    /** A domain of {@link #device}. */
    protected ProtectionDomain pd;
    /** A queue of {@link #device}. */
    protected CompletionQueue cq;

    /** @return the provider under test. */
    protected abstract String provider();

    @BeforeAll
    void openPassiveSide()
    {
        shmDir = SystemTests.newShmDir("misuse-" + provider());
        passive = Verbs.open(provider(), SystemTests.context(provider(), shmDir));
        listener = passive.connectionManager().listen(SystemTests.listenEndpoint(provider(),
            "misuse-" + ProcessHandle.current().pid() + "-" + provider()));
        passivePd = passive.allocateProtectionDomain();
        passiveCq = passive.createCompletionQueue(1 << 14);
    }

    @AfterAll
    void closePassiveSide()
    {
        passive.close();
        SystemTests.deleteDir(shmDir);
    }

    @BeforeEach
    void openActiveSide()
    {
        device = Verbs.open(provider(), SystemTests.context(provider(), shmDir));
        pd = device.allocateProtectionDomain();
        cq = device.createCompletionQueue(1024);
    }

    @AfterEach
    void closeActiveSide()
    {
        device.close();
        drain(passiveCq);
    }

    // ---------------------------------------------------------------------------------------------- use after close

    @Test
    void shouldRefuseEveryUseOfAClosedDevice()
    {
        final MemoryRegion mr = pd.allocate(64, Access.LOCAL_WRITE);
        final QueuePair qp = connected(pd, cq);
        device.close();
        assertThrows(IllegalStateException.class, () -> device.allocateProtectionDomain());
        assertThrows(IllegalStateException.class, () -> device.createCompletionQueue(16));
        assertThrows(RuntimeException.class, () -> device.connectionManager().listen(
            SystemTests.listenEndpoint(provider(), name())));
        assertThrows(IllegalStateException.class, () -> pd.allocate(64, Access.LOCAL_WRITE));
        assertThrows(IllegalStateException.class, () -> pd.createQueuePair(new QueuePairConfig(cq)));
        assertFalse(mr.isOpen(), "closing the device closes its regions");
        assertThrows(IllegalStateException.class, () -> mr.getLong(0));
        assertEquals(QueuePair.CLOSED, qp.postSend(new SendRequest(1).sge(mr, 0, 8)));
        assertEquals(QueuePair.CLOSED, qp.postRecv(new RecvRequest(1).sge(mr, 0, 8)));
        assertThrows(IllegalStateException.class, () -> qp.modify(QpState.ERROR));
        final QueuePair other = passivePd.createQueuePair(new QueuePairConfig(passiveCq));
        assertThrows(RuntimeException.class, () -> device.connectionManager().connect(other, listener.endpoint(),
            new byte[0], Duration.ofSeconds(2)), "a closed device's connection manager refuses");
        other.close();
        assertHealthy();
    }

    @Test
    void shouldSayTheDeviceIsClosedWhenItsConnectionManagerIsUsed()
    {
        final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(4).recvDepth(4));
        device.close();
        final IllegalStateException listen = assertThrows(IllegalStateException.class, () ->
            device.connectionManager().listen(SystemTests.listenEndpoint(provider(), name())));
        assertTrue(listen.getMessage().contains("closed"), listen.getMessage());
        final RuntimeException connect = assertThrows(RuntimeException.class, () ->
            device.connectionManager().connect(qp, listener.endpoint(), new byte[0], Duration.ofSeconds(2)));
        assertTrue(connect.getMessage().contains("closed"), connect.getMessage());
        assertHealthy();
    }

    @Test
    void shouldRefuseEveryUseOfAClosedProtectionDomain()
    {
        final MemoryRegion mr = pd.allocate(64, Access.LOCAL_WRITE);
        final QueuePair qp = connected(pd, cq);
        pd.close();
        assertThrows(IllegalStateException.class, () -> pd.allocate(64, Access.LOCAL_WRITE));
        assertThrows(IllegalStateException.class, () -> pd.register(ByteBuffer.allocateDirect(64),
            Access.LOCAL_WRITE));
        assertThrows(IllegalStateException.class, () -> pd.createQueuePair(new QueuePairConfig(cq)));
        assertFalse(mr.isOpen(), "closing the domain closes its regions");
        assertEquals(QueuePair.CLOSED, qp.postSend(new SendRequest(1).sge(mr, 0, 8)),
            "closing the domain closes its queue pairs");
        assertHealthy();
    }

    @Test
    void shouldRefuseQueuePairsOnAClosedCompletionQueue()
    {
        cq.close();
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> pd.createQueuePair(new QueuePairConfig(cq)));
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
        assertHealthy();
    }

    @Test
    void shouldTellAPollerThatItsCompletionQueueIsClosed()
    {
        final QueuePair qp = connected(pd, cq);
        cq.close();
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> cq.poll((w, s, o, b, i, f, q) -> { }, 16));
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
        assertThrows(IllegalStateException.class, () -> cq.poll(new CompletionBatch(4)));
        assertThrows(IllegalStateException.class, () -> cq.poll((w, s, o, b, i, f, q) -> { }, 16, 1,
            TimeUnit.MILLISECONDS));
        // The queue pairs that produced into it were closed with it (ibv_destroy_cq would refuse with EBUSY).
        assertEquals(QueuePair.CLOSED, qp.postSend(new SendRequest(1).wrId(1)));
        assertThrows(IllegalArgumentException.class, () -> pd.createQueuePair(new QueuePairConfig(cq)));
        qp.close();
        assertHealthy();
    }

    @Test
    void shouldRefuseEveryUseOfAClosedRegion()
    {
        final MemoryRegion mr = pd.allocate(4096, ALL);
        final MemoryRegion good = pd.allocate(4096, ALL);
        mr.close();
        assertFalse(mr.isOpen());
        assertThrows(IllegalStateException.class, () -> mr.getLong(0));
        assertThrows(IllegalStateException.class, () -> mr.putLong(0, 1));
        assertThrows(IllegalStateException.class, () -> mr.getBytes(0, new byte[8], 0, 8));
        assertThrows(IllegalStateException.class, () -> mr.putBytes(0, new byte[8], 0, 8));
        assertThrows(IllegalStateException.class, () -> mr.getAndAddLong(0, 1));
        assertThrows(IllegalStateException.class, () -> mr.byteBuffer(0, 8));
        assertThrows(IllegalStateException.class, () -> mr.setMemory(0, 8, (byte)1));
        // A SEND naming the closed region: LOC_PROT_ERR, QP to ERROR, nothing delivered.
        final QueuePair qp = connected(pd, cq);
        assertEquals(QueuePair.OK, qp.postSend(new SendRequest(1).wrId(1).sge(mr.address(), 8, mr.lkey())));
        assertStatus(WcStatus.LOC_PROT_ERR, 1, awaitOne(cq));
        assertEquals(QpState.ERROR, qp.state());
        // A receive naming it: refused at post time with LOC_PROT_ERR (architecture decision).
        final QueuePair qp2 = pd.createQueuePair(new QueuePairConfig(cq).recvDepth(4));
        qp2.modify(QpState.INIT);
        final int rc = qp2.postRecv(new RecvRequest(1).wrId(2).sge(mr.address(), 8, mr.lkey()));
        if (QueuePair.OK == rc)
        {
            assertStatus(WcStatus.LOC_PROT_ERR, 2, awaitOne(cq));
        }
        else
        {
            assertEquals(QueuePair.INVALID_REQUEST, rc, QueuePair.describe(rc));
        }
        good.putLong(0, 42);
        assertEquals(42, good.getLong(0), "other regions are untouched");
        assertHealthy();
    }

    @Test
    void shouldRefuseEveryUseOfAClosedQueuePair()
    {
        final MemoryRegion mr = pd.allocate(64, Access.LOCAL_WRITE);
        final QueuePair qp = connected(pd, cq);
        qp.close();
        assertEquals(QueuePair.CLOSED, qp.postSend(new SendRequest(1).sge(mr, 0, 8)));
        assertEquals(QueuePair.CLOSED, qp.postRecv(new RecvRequest(1).sge(mr, 0, 8)));
        assertThrows(IllegalStateException.class, () -> qp.modify(QpState.RESET));
        assertThrows(IllegalStateException.class, () -> qp.modify(QpState.ERROR));
        assertThrows(RuntimeException.class, () -> device.connectionManager().connect(qp, listener.endpoint(),
            new byte[0], Duration.ofSeconds(2)));
        assertHealthy();
    }

    @Test
    void shouldRefuseEveryUseOfAClosedListener()
    {
        final Listener own = device.connectionManager().listen(SystemTests.listenEndpoint(provider(), name()));
        final String endpoint = own.endpoint();
        own.close();
        assertThrows(ConnectionException.class, () -> own.accept(Duration.ofMillis(100)));
        final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq));
        assertThrows(ConnectionException.class, () -> device.connectionManager().connect(qp, endpoint, new byte[0],
            Duration.ofSeconds(2)), "nothing listens any more");
        assertHealthy();
    }

    // ------------------------------------------------------------------------------------------------ double close

    @Test
    void shouldAcceptDoubleCloseOfEverything()
    {
        final MemoryRegion mr = pd.allocate(64, Access.LOCAL_WRITE);
        final MemoryRegion registered = pd.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        final QueuePair qp = connected(pd, cq);
        final QueuePair idle = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(4).recvDepth(4));
        final Listener own = device.connectionManager().listen(SystemTests.listenEndpoint(provider(), name()));
        final CompletionQueue spare = device.createCompletionQueue(16);
        final ProtectionDomain spareDomain = device.allocateProtectionDomain();
        final List<AutoCloseable> all = List.of(mr, registered, qp, idle, own, spare, spareDomain, pd, cq, device);
        for (final AutoCloseable c : all)
        {
            assertDoesNotThrow(c::close, "first close of " + c.getClass().getSimpleName());
            assertDoesNotThrow(c::close, "second close of " + c.getClass().getSimpleName());
        }
        assertDoesNotThrow(device::close);
        assertHealthy();
    }

    @Test
    void shouldAcceptClosingChildrenAfterTheirParent()
    {
        final MemoryRegion mr = pd.allocate(64, Access.LOCAL_WRITE);
        final QueuePair qp = connected(pd, cq);
        device.close();
        assertDoesNotThrow(mr::close);
        assertDoesNotThrow(qp::close);
        assertDoesNotThrow(cq::close);
        assertDoesNotThrow(pd::close);
        assertHealthy();
    }

    // ------------------------------------------------------------------------------ objects of another domain/device

    @Test
    void shouldRefuseASendFromARegionOfAnotherProtectionDomain()
    {
        final ProtectionDomain other = device.allocateProtectionDomain();
        final MemoryRegion foreign = other.allocate(64, ALL);
        foreign.putLong(0, 0x1122334455667788L);
        final QueuePair qp = connected(pd, cq);
        assertEquals(QueuePair.OK, qp.postSend(new SendRequest(1).wrId(5).sge(foreign, 0, 8)));
        assertStatus(WcStatus.LOC_PROT_ERR, 5, awaitOne(cq));
        assertEquals(QpState.ERROR, qp.state());
        assertEquals(0x1122334455667788L, foreign.getLong(0));
        assertHealthy();
    }

    @Test
    void shouldRefuseAReceiveIntoARegionOfAnotherProtectionDomain()
    {
        final ProtectionDomain other = device.allocateProtectionDomain();
        final MemoryRegion foreign = other.allocate(64, ALL);
        final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).recvDepth(4));
        qp.modify(QpState.INIT);
        final int rc = qp.postRecv(new RecvRequest(1).wrId(6).sge(foreign, 0, 64));
        if (QueuePair.OK == rc)
        {
            assertStatus(WcStatus.LOC_PROT_ERR, 6, awaitOne(cq));
            assertEquals(QpState.ERROR, qp.state());
        }
        else
        {
            assertEquals(QueuePair.INVALID_REQUEST, rc, QueuePair.describe(rc));
        }
        assertHealthy();
    }

    @Test
    void shouldRefuseAReadIntoARegionOfAnotherProtectionDomain()
    {
        final ProtectionDomain other = device.allocateProtectionDomain();
        final MemoryRegion foreign = other.allocate(64, ALL);
        final MemoryRegion remote = passivePd.allocate(64, ALL);
        remote.putLong(0, 77);
        final QueuePair qp = connected(pd, cq);
        assertEquals(QueuePair.OK, qp.postSend(new SendRequest(1).wrId(7).opcode(Opcode.RDMA_READ)
            .sge(foreign, 0, 8).remote(remote.address(), remote.rkey())));
        assertStatus(WcStatus.LOC_PROT_ERR, 7, awaitOne(cq));
        assertEquals(0, foreign.getLong(0), "nothing written into the other domain's memory");
        remote.close();
        assertHealthy();
    }

    @Test
    void shouldRefuseARegionOfAnotherDevice()
    {
        final MemoryRegion foreign = passivePd.allocate(64, ALL);
        final QueuePair qp = connected(pd, cq);
        assertEquals(QueuePair.OK, qp.postSend(new SendRequest(1).wrId(8).sge(foreign, 0, 8)));
        assertStatus(WcStatus.LOC_PROT_ERR, 8, awaitOne(cq));
        foreign.close();
        assertHealthy();
    }

    @Test
    void shouldRefuseCompletionQueuesOfAnotherDevice()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> pd.createQueuePair(new QueuePairConfig(passiveCq)));
        assertTrue(ex.getMessage().contains("another device"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pd.createQueuePair(new QueuePairConfig(cq, passiveCq)));
        assertHealthy();
    }

    @Test
    void shouldRefuseAQueuePairOfAnotherDeviceInTheConnectionManager()
    {
        final QueuePair foreign = passivePd.createQueuePair(new QueuePairConfig(passiveCq).sendDepth(4).recvDepth(4));
        assertThrows(RuntimeException.class, () -> device.connectionManager().connect(foreign, listener.endpoint(),
            new byte[0], Duration.ofSeconds(2)));
        foreign.close();
        assertHealthy();
    }

    // --------------------------------------------------------------------------------------- malformed SGE ranges

    @Test
    void shouldRefuseSgesThatStartBeforeOrWrapAroundTheirRegion()
    {
        final MemoryRegion mr = pd.allocate(4096, ALL);
        final QueuePair qp = connected(pd, cq);
        assertEquals(QueuePair.OK, qp.postSend(new SendRequest(1).wrId(9).sge(mr.address() - 8, 16, mr.lkey())));
        assertStatus(WcStatus.LOC_PROT_ERR, 9, awaitOne(cq));
        final QueuePair qp2 = connected(pd, cq);
        final int rc = qp2.postSend(new SendRequest(1).wrId(10).sge(Long.MAX_VALUE - 4, 64, mr.lkey()));
        if (QueuePair.OK == rc)
        {
            assertStatus(WcStatus.LOC_PROT_ERR, 10, awaitOne(cq));
        }
        else
        {
            assertEquals(QueuePair.INVALID_REQUEST, rc, QueuePair.describe(rc));
        }
        final QueuePair qp3 = connected(pd, cq);
        final int rc3 = qp3.postSend(new SendRequest(1).wrId(11).sge(mr, 0, Integer.MAX_VALUE));
        if (QueuePair.OK == rc3)
        {
            assertStatus(WcStatus.LOC_PROT_ERR, 11, awaitOne(cq));
        }
        else
        {
            assertEquals(QueuePair.INVALID_REQUEST, rc3, QueuePair.describe(rc3));
        }
        assertHealthy();
    }

    @Test
    void shouldRefuseNullRequestsWithAClearException()
    {
        final QueuePair qp = connected(pd, cq);
        assertThrows(NullPointerException.class, () -> qp.postSend((SendRequest)null));
        assertThrows(NullPointerException.class, () -> qp.postRecv((RecvRequest)null));
        assertThrows(NullPointerException.class, () -> qp.postSend((PostList<SendRequest>)null));
        assertThrows(NullPointerException.class, () -> qp.postRecv((PostList<RecvRequest>)null));
        assertThrows(NullPointerException.class, () -> new PostList<SendRequest>(1).add(null));
        assertThrows(RuntimeException.class, () -> pd.createQueuePair(null));
        assertThrows(RuntimeException.class, () -> new SendRequest(1).sge(null, 0, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> new SendRequest(1).sge(pd.allocate(64, ALL), 0, 8)
            .sge(pd.allocate(64, ALL), 0, 8), "more SGEs than the request holds");
        assertEquals(QpState.RTS, qp.state(), "refused calls change nothing");
        assertHealthy();
    }

    // --------------------------------------------------------------------------------------------------- helpers

    /** @return a fresh name for a listener. */
    protected String name()
    {
        return "misuse-" + ProcessHandle.current().pid() + "-" + provider() + "-" + (++names);
    }

    /**
     * @param domain a domain of {@link #device}.
     * @param queue  a queue of {@link #device}.
     * @return a QP of {@code domain} connected to a passive QP with 16 receives of 4 KiB posted.
     */
    protected QueuePair connected(final ProtectionDomain domain, final CompletionQueue queue)
    {
        return connect(domain, queue)[0];
    }

    private QueuePair[] connect(final ProtectionDomain domain, final CompletionQueue queue)
    {
        final QueuePair server = passivePd.createQueuePair(new QueuePairConfig(passiveCq).sendDepth(16).recvDepth(16));
        server.modify(QpState.INIT);
        final MemoryRegion recvMr = passivePd.allocate(16 * 4096, Access.LOCAL_WRITE);
        for (int i = 0; i < 16; i++)
        {
            assertEquals(QueuePair.OK, server.postRecv(new RecvRequest(1).wrId(1000 + i).sge(recvMr, i * 4096L, 4096)));
        }
        final CompletableFuture<Void> accepted = CompletableFuture.runAsync(() ->
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline)
            {
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(20));
                try
                {
                    request.accept(server, new byte[0]);
                    return;
                }
                catch (final ConnectionException ex)
                {
                    // A request a misuse case left behind (its connector gave up): skip it.
                }
            }
        });
        final QueuePair qp = domain.createQueuePair(new QueuePairConfig(queue).sendDepth(16).recvDepth(16));
        device.connectionManager().connect(qp, listener.endpoint(), new byte[0], Duration.ofSeconds(20));
        accepted.join();
        lastRecvRegion = recvMr;
        return new QueuePair[]{qp, server};
    }

    private MemoryRegion lastRecvRegion;

    /**
     * Nothing is corrupted: a new device on the active side connects, SENDs and WRITEs 4 KiB, and the passive side
     * sees exactly those bytes.
     */
    protected void assertHealthy()
    {
        try (Device fresh = Verbs.open(provider(), SystemTests.context(provider(), shmDir)))
        {
            final Device saved = device;
            device = fresh;
            try
            {
                final ProtectionDomain freshPd = fresh.allocateProtectionDomain();
                final CompletionQueue freshCq = fresh.createCompletionQueue(64);
                final QueuePair[] pair = connect(freshPd, freshCq);
                final MemoryRegion mr = freshPd.allocate(4096, ALL);
                final byte[] data = new byte[4096];
                new java.util.SplittableRandom(names).nextBytes(data);
                mr.putBytes(0, data, 0, data.length);
                final MemoryRegion target = passivePd.allocate(4096, ALL);
                assertEquals(QueuePair.OK, pair[0].postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE)
                    .sge(mr, 0, 4096).remote(target.address(), target.rkey())));
                assertEquals(QueuePair.OK, pair[0].postSend(new SendRequest(1).wrId(2).sge(mr, 0, 4096)));
                assertStatus(WcStatus.SUCCESS, 1, awaitOne(freshCq));
                assertStatus(WcStatus.SUCCESS, 2, awaitOne(freshCq));
                final long[] recvWrId = {-1};
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (recvWrId[0] < 0 && System.nanoTime() < deadline)
                {
                    // Other completions on the passive CQ are flushes of earlier tests' queue pairs.
                    passiveCq.poll((w, s, o, b, i, f, q) ->
                    {
                        if (q == pair[1].qpNumber())
                        {
                            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(s));
                            recvWrId[0] = w;
                        }
                    }, 16);
                }
                assertTrue(recvWrId[0] >= 0, "the SEND was received within 10 s");
                final byte[] received = new byte[4096];
                lastRecvRegion.getBytes((recvWrId[0] - 1000) * 4096, received, 0, 4096);
                assertArrayEquals(data, received, "SEND delivered intact");
                final byte[] written = new byte[4096];
                target.getBytes(0, written, 0, 4096);
                assertArrayEquals(data, written, "WRITE delivered intact");
                target.close();
                pair[1].close();
            }
            finally
            {
                device = saved;
            }
        }
    }

    private static long[] awaitOne(final CompletionQueue queue)
    {
        final List<long[]> out = new ArrayList<>();
        try
        {
            final int n = queue.poll((w, s, o, b, i, f, q) -> out.add(new long[]{w, s}), 1, 10, TimeUnit.SECONDS);
            if (0 == n)
            {
                fail("no completion within 10 s");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        return out.get(0);
    }

    private static void assertStatus(final int status, final long wrId, final long[] completion)
    {
        assertEquals(WcStatus.name(status), WcStatus.name((int)completion[1]), "status of wrId " + completion[0]);
        assertEquals(wrId, completion[0]);
    }

    private static void drain(final CompletionQueue queue)
    {
        while (queue.poll((w, s, o, b, i, f, q) -> { }, 256) > 0)
        {
            Thread.onSpinWait();
        }
    }
}
