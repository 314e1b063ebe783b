// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import io.verbs4j.Access;
import io.verbs4j.Capabilities;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionException;
import io.verbs4j.ConnectionManager;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.RemoteMemory;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.collectives.AsyncCollectives;
import io.verbs4j.collectives.CollectiveHandle;
import io.verbs4j.collectives.CollectiveOp;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.rendezvous.AddressExchange;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.rendezvous.InMemoryStore;
import io.verbs4j.collectives.rendezvous.PrefixStore;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import io.verbs4j.config.ClusterSecret;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.system.support.NullWalker;
import io.verbs4j.system.support.SystemTests;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every public method and constructor of the API ({@code io.verbs4j}, {@code io.verbs4j.config}, the collectives'
 * communicator, descriptors and stores), walked by reflection with null for each reference parameter: each call must
 * fail with a {@link NullPointerException} or {@link IllegalArgumentException} whose message names the parameter,
 * never with a bare JDK exception from deep inside ({@link NullWalker}). Parameters documented as accepting null are
 * listed in {@link #NULLABLE}. A null handler must not cost a completion: the completion is still there afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PublicApiNullArgumentTest
{
    /** {@code Type.method.parameter} of the parameters whose Javadoc says null is accepted. */
    private static final Set<String> NULLABLE = Set.of(
        "ConnectionManager.connect.privateData",
        "ConnectionRequest.accept.privateData",
        "ConnectionRequest.reject.reason",
        "DeviceContext.get.defaultValue",
        "CollectiveOp.algorithm.algorithm",
        "Communicator.allReduce.algorithm");

    private Path shmDir;
    private int names;

    @BeforeAll
    void makeShmDir()
    {
        shmDir = SystemTests.newShmDir("nulls");
    }

    @AfterAll
    void removeShmDir()
    {
        SystemTests.deleteDir(shmDir);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void everyVerbsEntryPointNamesItsNullArgument(final String provider, @TempDir final Path temp) throws Exception
    {
        try (Device device = Verbs.open(provider, SystemTests.context(provider, shmDir));
            Device peer = Verbs.open(provider, SystemTests.context(provider, shmDir));
            Listener listener = peer.connectionManager().listen(SystemTests.listenEndpoint(provider,
                "nulls-" + ProcessHandle.current().pid() + "-" + (++names))))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(256);
            final MemoryRegion mr = pd.allocate(4096, Access.ALL);
            final QueuePair fresh = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(4).recvDepth(4));
            final ProtectionDomain peerPd = peer.allocateProtectionDomain();
            final CompletionQueue peerCq = peer.createCompletionQueue(256);
            final MemoryRegion peerMr = peerPd.allocate(4096, Access.ALL);
            final QueuePair peerQp = peerPd.createQueuePair(new QueuePairConfig(peerCq).sendDepth(4).recvDepth(4));
            final CompletableFuture<Void> accepted = CompletableFuture.runAsync(() ->
                listener.accept(Duration.ofSeconds(20)).accept(peerQp, new byte[0]));
            final QueuePair connected = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(4).recvDepth(4));
            device.connectionManager().connect(connected, listener.endpoint(), new byte[0], Duration.ofSeconds(20));
            accepted.join();

            final NullWalker walker = verbsSamples(new NullWalker(NULLABLE), cq, mr, fresh, temp);
            for (final Class<?> type : List.of(Verbs.class, Access.class, WcStatus.class, Opcode.class, QpState.class,
                QueuePair.class, QueuePairConfig.class, SendRequest.class, RecvRequest.class, CompletionBatch.class,
                Capabilities.class, DeviceContext.class, ClusterSecret.class))
            {
                walker.walkStatics(type);
            }
            walker.walkInstance(Device.class, device);
            walker.walkInstance(ProtectionDomain.class, pd);
            walker.walkInstance(CompletionQueue.class, cq);
            walker.walkInstance(MemoryRegion.class, mr);
            walker.walkInstance(QueuePair.class, fresh);
            walker.walkInstance(QueuePair.class, connected);
            walker.walkInstance(ConnectionManager.class, device.connectionManager());
            walker.walkInstance(Listener.class, listener);
            walker.walkInstance(SendRequest.class, new SendRequest(2));
            walker.walkInstance(RecvRequest.class, new RecvRequest(2));
            walker.walkInstance(CompletionBatch.class, new CompletionBatch(4));
            walker.walkInstance(QueuePairConfig.class, new QueuePairConfig(cq));
            walker.walkInstance(DeviceContext.class, new DeviceContext());
            if (device.capabilities().has(Capabilities.DIRECT_PEER_ACCESS))
            {
                try (RemoteMemory remote = connected.mapRemote(peerMr.address(), peerMr.rkey(), 64,
                    Access.REMOTE_READ | Access.REMOTE_WRITE))
                {
                    walker.walkInstance(RemoteMemory.class, remote);
                }
            }

            // A pending connection request: walked, then rejected (its connector gives up).
            final QueuePair waiting = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(4).recvDepth(4));
            final CompletableFuture<Void> connector = CompletableFuture.runAsync(() ->
                device.connectionManager().connect(waiting, listener.endpoint(), new byte[0], Duration.ofSeconds(20)));
            final ConnectionRequest request = listener.accept(Duration.ofSeconds(20));
            walker.walkInstance(ConnectionRequest.class, request);
            request.reject("walked");
            final Throwable refused = assertThrows(java.util.concurrent.CompletionException.class, connector::join)
                .getCause();
            assertTrue(refused instanceof ConnectionException, refused.toString());

            report(provider + " verbs", walker);
        }
    }

    @Test
    void everyCollectivesEntryPointNamesItsNullArgument(@TempDir final Path temp) throws Exception
    {
        try (InMemoryStore store = new InMemoryStore();
            Communicator comm = Communicator.create(new CommunicatorContext().rank(0).size(1).store(store)
                .name("nulls").calibrate(false)))
        {
            final MemoryRegion mr = comm.allocate(4096);
            final NullWalker walker = new NullWalker(NULLABLE)
                .sample(CommBuffer.class, () -> CommBuffer.of(new byte[64]))
                .sample(CommBuffer[].class, () -> new CommBuffer[]{CommBuffer.of(new byte[64])})
                .sample(long[].class, () -> new long[]{1})
                .sample(java.util.Collection.class, () -> List.of("k"))
                .sample(java.util.Map.class, java.util.Map::of)
                .sample(byte[].class, () -> new byte[64])
                .sample(short[].class, () -> new short[32])
                .sample(int[].class, () -> new int[16])
                .sample(float[].class, () -> new float[16])
                .sample(double[].class, () -> new double[8])
                .sample(ByteBuffer.class, () -> ByteBuffer.allocateDirect(64))
                .sample(MemoryRegion.class, () -> mr)
                .sample(String.class, () -> "x")
                .sample(Duration.class, () -> Duration.ofMillis(100))
                .sample(Path.class, () -> temp)
                .sample(CollectiveOp.class, () -> new CollectiveOp().barrier())
                .sample(RendezvousStore.class, InMemoryStore::new)
                .sample(AddressExchange.class, () -> (rank, size, mine, timeout) -> new byte[][]{mine})
                .sample(Communicator.class, () -> comm)
                .sample(CommunicatorContext.class, CommunicatorContext::new);
            for (final Class<?> type : List.of(Communicator.class, CommunicatorContext.class, CollectiveOp.class,
                CommBuffer.class, InMemoryStore.class, FileStore.class, PrefixStore.class))
            {
                walker.walkStatics(type);
            }
            walker.walkInstance(Communicator.class, comm);
            walker.walkInstance(AsyncCollectives.class, comm.async());
            walker.walkInstance(CommunicatorContext.class, new CommunicatorContext());
            // A reusable descriptor may hold a null until it is run (a null buffer is fine with a count of 0): the run
            // must then name what is missing.
            walker.walkDescriptor(CollectiveOp.class, CollectiveOp::new, op -> comm.run((CollectiveOp)op));
            walker.walkInstance(CommBuffer.class, CommBuffer.of(new byte[64]));
            walker.walkInstance(RendezvousStore.class, store);
            walker.walkInstance(RendezvousStore.class, new PrefixStore("p", store));
            final CollectiveHandle handle = comm.async().barrier();
            walker.walkInstance(CollectiveHandle.class, handle);
            assertTrue(handle.await(Duration.ofSeconds(10)), "the barrier of one rank completes");
            report("collectives", walker);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aNullHandlerOrBatchTakesNoCompletion(final String provider) throws Exception
    {
        try (Device device = Verbs.open(provider, SystemTests.context(provider, shmDir)))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(16);
            final MemoryRegion mr = pd.allocate(64, Access.ALL);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(4).recvDepth(4));
            qp.modify(QpState.INIT);
            assertEquals(QueuePair.OK, qp.postRecv(new RecvRequest(1).wrId(41).sge(mr, 0, 8)));
            assertEquals(QueuePair.OK, qp.postRecv(new RecvRequest(1).wrId(42).sge(mr, 8, 8)));
            qp.modify(QpState.ERROR); // flushes both receives into the queue

            final NullPointerException handler = assertThrows(NullPointerException.class, () -> cq.poll(null, 4));
            assertTrue(handler.getMessage().contains("handler"), handler.getMessage());
            assertThrows(NullPointerException.class, () -> cq.poll((CompletionBatch)null));
            assertThrows(NullPointerException.class, () -> cq.poll(null, 4, 1, TimeUnit.MILLISECONDS));
            final IllegalArgumentException limit = assertThrows(IllegalArgumentException.class,
                () -> cq.poll((w, s, o, b, i, f, q) -> { }, -1));
            assertTrue(limit.getMessage().contains("limit"), limit.getMessage());

            final CompletionBatch batch = new CompletionBatch(4);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            int seen = 0;
            final long[] wrIds = new long[2];
            while (seen < 2 && System.nanoTime() < deadline)
            {
                final int n = cq.poll(batch);
                for (int i = 0; i < n; i++)
                {
                    assertEquals(WcStatus.name(WcStatus.WR_FLUSH_ERR), WcStatus.name(batch.status(i)));
                    wrIds[seen++] = batch.wrId(i);
                }
            }
            assertEquals(2, seen, "both flushed receives are still delivered after the refused polls");
            assertEquals(41, wrIds[0]);
            assertEquals(42, wrIds[1]);
        }
    }

    private static NullWalker verbsSamples(final NullWalker walker, final CompletionQueue cq, final MemoryRegion mr,
        final QueuePair qp, final Path temp)
    {
        final CompletionHandler ignore = (w, s, o, b, i, f, q) -> { };
        final Supplier<IdleStrategy> idle = NoOpIdleStrategy::new;
        final UnaryOperator<String> none = name -> null;
        return walker
            .sample(String.class, () -> "x")
            .sample(byte[].class, () -> new byte[64])
            .sample(ByteBuffer.class, () -> ByteBuffer.allocateDirect(64))
            .sample(UnsafeBuffer.class, () -> new UnsafeBuffer(new byte[64]))
            .sample(Duration.class, () -> Duration.ofMillis(100))
            .sample(Path.class, () -> temp)
            .sample(Supplier.class, () -> idle)
            .sample(UnaryOperator.class, () -> none)
            .sample(CompletionHandler.class, () -> ignore)
            .sample(CompletionBatch.class, () -> new CompletionBatch(4))
            .sample(CompletionQueue.class, () -> cq)
            .sample(MemoryRegion.class, () -> mr)
            .sample(QueuePair.class, () -> qp)
            .sample(QueuePairConfig.class, () -> new QueuePairConfig(cq))
            .sample(SendRequest.class, () -> new SendRequest(1))
            .sample(RecvRequest.class, () -> new RecvRequest(1))
            .sample(DeviceContext.class, DeviceContext::new);
    }

    private static void report(final String label, final NullWalker walker)
    {
        System.out.println("[nulls] " + label + ": " + walker.calls() + " calls with a null argument, " +
            walker.failures().size() + " did not name it");
        assertTrue(walker.calls() > 20, label + ": the walk made calls");
        assertEquals("", String.join("\n", walker.failures()), label + ": every null argument is named");
    }
}
