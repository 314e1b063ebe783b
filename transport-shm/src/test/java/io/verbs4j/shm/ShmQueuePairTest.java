// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionException;
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
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every verb and every status between two shm devices of one JVM.
 */
@Timeout(30)
class ShmQueuePairTest
{
    private static final int MIB = 1 << 20;
    private static Path dir;
    private static int counter;

    private Device serverDevice;
    private Device clientDevice;
    private ProtectionDomain serverPd;
    private ProtectionDomain clientPd;
    private CompletionQueue serverCq;
    private CompletionQueue clientCq;
    private QueuePair server;
    private QueuePair client;
    private final CompletionBatch batch = new CompletionBatch(64);

    @BeforeAll
    static void createDir()
    {
        dir = ShmTestSupport.newDir("qp");
    }

    @AfterAll
    static void deleteDir()
    {
        ShmTestSupport.deleteDir(dir);
    }

    @AfterEach
    void closeAll()
    {
        if (null != clientDevice)
        {
            clientDevice.close();
        }
        if (null != serverDevice)
        {
            serverDevice.close();
        }
        assertEquals(0, ShmTestSupport.fileCount(dir), "files left in " + dir);
    }

    private void setUp(final boolean progressThread, final QueuePairConfigurer configurer)
    {
        serverDevice = ShmTestSupport.open(dir, progressThread);
        clientDevice = ShmTestSupport.open(dir, progressThread);
        serverPd = serverDevice.allocateProtectionDomain();
        clientPd = clientDevice.allocateProtectionDomain();
        serverCq = serverDevice.createCompletionQueue(1024);
        clientCq = clientDevice.createCompletionQueue(1024);
        final QueuePairConfig serverConfig = new QueuePairConfig(serverCq).maxSendSge(4).maxRecvSge(4)
            .maxInlineLength(256);
        final QueuePairConfig clientConfig = new QueuePairConfig(clientCq).maxSendSge(4).maxRecvSge(4)
            .maxInlineLength(256);
        configurer.configure(serverConfig, clientConfig);
        server = serverPd.createQueuePair(serverConfig);
        client = clientPd.createQueuePair(clientConfig);
        server.modify(QpState.INIT);
        client.modify(QpState.INIT);
    }

    private void connect()
    {
        final byte[] answer = ShmTestSupport.connect(serverDevice, server, client, "qp" + (counter++),
            new byte[]{1, 2, 3}, new byte[]{4, 5});
        assertArrayEquals(new byte[]{4, 5}, answer);
        assertEquals(QpState.RTS, server.state());
        assertEquals(QpState.RTS, client.state());
    }

    private void setUpConnected()
    {
        setUp(true, (s, c) -> { });
        connect();
    }

    interface QueuePairConfigurer
    {
        void configure(QueuePairConfig server, QueuePairConfig client);
    }

    private void expect(final CompletionQueue cq, final long wrId, final int status, final int opcode)
    {
        ShmTestSupport.pollOne(cq, batch);
        assertEquals(WcStatus.name(status), WcStatus.name(batch.status(0)), "status of wrId " + batch.wrId(0));
        assertEquals(wrId, batch.wrId(0));
        assertEquals(Opcode.name(opcode), Opcode.name(batch.opcode(0)));
    }

    private static void fill(final MemoryRegion region, final long offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            region.putByte(offset + i, (byte)(seed + i * 31));
        }
    }

    private static void check(final MemoryRegion region, final long offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            if ((byte)(seed + i * 31) != region.getByte(offset + i))
            {
                throw new AssertionError("byte " + i + " differs");
            }
        }
    }

    @Test
    void shouldSendSmallMessageWithImmediate()
    {
        setUpConnected();
        final MemoryRegion src = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        fill(src, 0, 100, 7);
        assertEquals(QueuePair.OK, server.postRecv(new RecvRequest(1).wrId(11).sge(dst, 0, 4096)));
        assertEquals(QueuePair.OK, client.postSend(new SendRequest(1).wrId(22).opcode(Opcode.SEND_WITH_IMM)
            .immediateData(0xCAFE).sge(src, 0, 100)));
        expect(serverCq, 11, WcStatus.SUCCESS, Opcode.RECV);
        assertEquals(100, batch.byteLength(0));
        assertEquals(0xCAFE, batch.immediateData(0));
        assertEquals(CompletionHandler.WITH_IMM, batch.flags(0));
        check(dst, 0, 100, 7);
        expect(clientCq, 22, WcStatus.SUCCESS, Opcode.SEND_WITH_IMM);
        assertEquals(100, batch.byteLength(0));
    }

    @Test
    void shouldSendInlineAndZeroLength()
    {
        setUpConnected();
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        final ByteBuffer payload = ByteBuffer.allocateDirect(64);
        final MemoryRegion reg = clientPd.register(payload, Access.LOCAL_WRITE);
        fill(reg, 0, 64, 3);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 4096));
        server.postRecv(new RecvRequest(1).wrId(2).sge(dst, 0, 4096));
        client.postSend(new SendRequest(1).wrId(3).flags(SendRequest.SIGNALED | SendRequest.INLINE)
            .sge(reg.address(), 64, reg.lkey()));
        client.postSend(new SendRequest(1).wrId(4));
        expect(serverCq, 1, WcStatus.SUCCESS, Opcode.RECV);
        assertEquals(64, batch.byteLength(0));
        check(dst, 0, 64, 3);
        expect(serverCq, 2, WcStatus.SUCCESS, Opcode.RECV);
        assertEquals(0, batch.byteLength(0));
        expect(clientCq, 3, WcStatus.SUCCESS, Opcode.SEND);
        expect(clientCq, 4, WcStatus.SUCCESS, Opcode.SEND);
    }

    @Test
    void shouldSendLargeMessageByRendezvousIntoScatteredReceive()
    {
        setUpConnected();
        final int length = 3 * MIB + 17;
        final MemoryRegion src = clientPd.allocate(4 * MIB, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(4 * MIB, Access.LOCAL_WRITE);
        fill(src, 5, length, 9);
        server.postRecv(new RecvRequest(3).wrId(1).sge(dst, 0, MIB).sge(dst, 2 * MIB, 2 * MIB).sge(dst, MIB, MIB));
        client.postSend(new SendRequest(2).wrId(2).sge(src, 5, MIB).sge(src, 5 + MIB, length - MIB));
        expect(serverCq, 1, WcStatus.SUCCESS, Opcode.RECV);
        assertEquals(length, batch.byteLength(0));
        final MemoryRegion expected = serverPd.allocate(4 * MIB, Access.LOCAL_WRITE);
        fill(expected, 0, length, 9);
        for (int i = 0; i < MIB; i += 4093)
        {
            assertEquals(expected.getByte(i), dst.getByte(i));
            assertEquals(expected.getByte(MIB + i), dst.getByte(2 * MIB + i));
            assertEquals(expected.getByte(3 * MIB + 16), dst.getByte(MIB + 16));
        }
        expect(clientCq, 2, WcStatus.SUCCESS, Opcode.SEND);
    }

    @Test
    void shouldWriteReadAndRunAtomics()
    {
        setUpConnected();
        final MemoryRegion local = clientPd.allocate(MIB, Access.LOCAL_WRITE);
        final MemoryRegion remote = serverPd.allocate(MIB, Access.ALL);
        fill(local, 0, 1000, 1);
        client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 1000)
            .remote(remote.address() + 64, remote.rkey()));
        expect(clientCq, 1, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
        assertEquals(1000, batch.byteLength(0));
        check(remote, 64, 1000, 1);

        fill(remote, 4096, 500, 2);
        client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_READ).sge(local, 8192, 500)
            .remote(remote.address() + 4096, remote.rkey()));
        expect(clientCq, 2, WcStatus.SUCCESS, Opcode.RDMA_READ);
        check(local, 8192, 500, 2);

        remote.putLong(0, 40);
        client.postSend(new SendRequest(1).wrId(3).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(local, 0, 8)
            .remote(remote.address(), remote.rkey()).atomic(2, 0));
        expect(clientCq, 3, WcStatus.SUCCESS, Opcode.ATOMIC_FETCH_AND_ADD);
        assertEquals(8, batch.byteLength(0));
        assertEquals(40, local.getLong(0));
        assertEquals(42, remote.getLongVolatile(0));

        client.postSend(new SendRequest(1).wrId(4).opcode(Opcode.ATOMIC_CMP_AND_SWP).sge(local, 8, 8)
            .remote(remote.address(), remote.rkey()).atomic(42, 7));
        expect(clientCq, 4, WcStatus.SUCCESS, Opcode.ATOMIC_CMP_AND_SWP);
        assertEquals(42, local.getLong(8));
        assertEquals(7, remote.getLongVolatile(0));
        client.postSend(new SendRequest(1).wrId(5).opcode(Opcode.ATOMIC_CMP_AND_SWP).sge(local, 8, 8)
            .remote(remote.address(), remote.rkey()).atomic(42, 9));
        expect(clientCq, 5, WcStatus.SUCCESS, Opcode.ATOMIC_CMP_AND_SWP);
        assertEquals(7, local.getLong(8));
        assertEquals(7, remote.getLongVolatile(0));
    }

    @Test
    void shouldDeliverWriteWithImmediate()
    {
        setUpConnected();
        final MemoryRegion local = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion remote = serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        fill(local, 0, 300, 5);
        server.postRecv(new RecvRequest(1).wrId(1));
        client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE_WITH_IMM).immediateData(77)
            .sge(local, 0, 300).remote(remote.address() + 100, remote.rkey()));
        expect(serverCq, 1, WcStatus.SUCCESS, Opcode.RECV_RDMA_WITH_IMM);
        assertEquals(77, batch.immediateData(0));
        assertEquals(300, batch.byteLength(0));
        check(remote, 100, 300, 5);
        expect(clientCq, 2, WcStatus.SUCCESS, Opcode.RDMA_WRITE_WITH_IMM);
    }

    private void expectRemoteAccessError(final SendRequest request)
    {
        final SendRequest next = new SendRequest(1).wrId(99).opcode(Opcode.RDMA_WRITE);
        assertEquals(QueuePair.OK, client.postSend(request));
        assertEquals(QueuePair.OK, client.postSend(next));
        expect(clientCq, request.wrId(), WcStatus.REM_ACCESS_ERR, request.opcode());
        expect(clientCq, 99, WcStatus.WR_FLUSH_ERR, Opcode.RDMA_WRITE);
        assertEquals(QpState.ERROR, client.state());
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (QpState.ERROR != server.state() && System.nanoTime() < deadline)
        {
            serverCq.poll(batch, 1);
            Thread.yield();
        }
        assertEquals(QpState.ERROR, server.state(), "the peer's QP follows into ERROR");
    }

    @Test
    void shouldRefuseUnknownRkey()
    {
        setUpConnected();
        final MemoryRegion local = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion remote = serverPd.allocate(4096, Access.ALL);
        expectRemoteAccessError(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 8)
            .remote(remote.address(), remote.rkey() ^ 0x5A5A));
    }

    @Test
    void shouldRefuseMissingAccessAndLeaveTargetUntouched()
    {
        setUpConnected();
        final MemoryRegion local = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion remote = serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_READ);
        fill(local, 0, 16, 1);
        expectRemoteAccessError(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 16)
            .remote(remote.address(), remote.rkey()));
        assertEquals(0, remote.getLong(0));
    }

    @Test
    void shouldRefuseAtomicWithoutAtomicAccess()
    {
        setUpConnected();
        final MemoryRegion local = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion remote = serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        expectRemoteAccessError(new SendRequest(1).wrId(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(local, 0, 8)
            .remote(remote.address(), remote.rkey()).atomic(1, 0));
        assertEquals(0, remote.getLong(0));
    }

    @Test
    void shouldRefuseOutOfBounds()
    {
        setUpConnected();
        final MemoryRegion local = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion remote = serverPd.allocate(4096, Access.ALL);
        expectRemoteAccessError(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_READ).sge(local, 0, 16)
            .remote(remote.address() + 4090, remote.rkey()));
    }

    @Test
    void shouldRefuseDeregisteredRkey()
    {
        setUpConnected();
        final MemoryRegion local = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion remote = serverPd.allocate(4096, Access.ALL);
        client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 8)
            .remote(remote.address(), remote.rkey()));
        expect(clientCq, 1, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
        final long address = remote.address();
        final int rkey = remote.rkey();
        remote.close();
        expectRemoteAccessError(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE).sge(local, 0, 8)
            .remote(address, rkey));
    }

    @Test
    void shouldRefuseRkeyOfAnotherProtectionDomain()
    {
        setUpConnected();
        final MemoryRegion local = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final ProtectionDomain otherPd = serverDevice.allocateProtectionDomain();
        final MemoryRegion remote = otherPd.allocate(4096, Access.ALL);
        expectRemoteAccessError(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 8)
            .remote(remote.address(), remote.rkey()));
        assertEquals(0, remote.getLong(0));
    }

    @Test
    void shouldFailWithRnrRetryExceeded()
    {
        setUp(true, (s, c) -> c.rnrRetry(1).rnrTimerNs(1_000));
        connect();
        client.postSend(new SendRequest(1).wrId(1));
        client.postSend(new SendRequest(1).wrId(2));
        expect(clientCq, 1, WcStatus.RNR_RETRY_EXC_ERR, Opcode.SEND);
        expect(clientCq, 2, WcStatus.WR_FLUSH_ERR, Opcode.SEND);
    }

    @Test
    void shouldRetryRnrUntilReceiveIsPostedAndKeepOrder()
    {
        setUp(true, (s, c) -> c.rnrTimerNs(100_000));
        connect();
        final MemoryRegion src = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        for (int i = 0; i < 4; i++)
        {
            src.putInt(i * 4, 100 + i);
            client.postSend(new SendRequest(1).wrId(i).sge(src, i * 4, 4));
        }
        sleep(20);
        for (int i = 0; i < 4; i++)
        {
            server.postRecv(new RecvRequest(1).wrId(10 + i).sge(dst, i * 4, 4));
            sleep(5);
        }
        for (int i = 0; i < 4; i++)
        {
            expect(serverCq, 10 + i, WcStatus.SUCCESS, Opcode.RECV);
            assertEquals(100 + i, dst.getInt(i * 4));
        }
        for (int i = 0; i < 4; i++)
        {
            expect(clientCq, i, WcStatus.SUCCESS, Opcode.SEND);
        }
    }

    @Test
    void shouldReportLengthErrorsOnBothSides()
    {
        setUpConnected();
        final MemoryRegion src = clientPd.allocate(MIB, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 16));
        client.postSend(new SendRequest(1).wrId(2).sge(src, 0, 17));
        expect(serverCq, 1, WcStatus.LOC_LEN_ERR, Opcode.RECV);
        expect(clientCq, 2, WcStatus.REM_INV_REQ_ERR, Opcode.SEND);
    }

    @Test
    void shouldReportLengthErrorOfRendezvous()
    {
        setUpConnected();
        final MemoryRegion src = clientPd.allocate(MIB, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(MIB, Access.LOCAL_WRITE);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 65536));
        client.postSend(new SendRequest(1).wrId(2).sge(src, 0, 65537));
        expect(serverCq, 1, WcStatus.LOC_LEN_ERR, Opcode.RECV);
        expect(clientCq, 2, WcStatus.REM_INV_REQ_ERR, Opcode.SEND);
    }

    @Test
    void shouldFlushWhenPeerCloses()
    {
        setUpConnected();
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 4096));
        client.close();
        expect(serverCq, 1, WcStatus.WR_FLUSH_ERR, Opcode.RECV);
        assertEquals(QpState.ERROR, server.state());
    }

    @Test
    void shouldSurviveBackPressureOfSmallRing()
    {
        serverDevice = io.verbs4j.Verbs.open("shm", ShmTestSupport.context(dir, true)
            .property(ShmConfiguration.RING_CAPACITY_PROP_NAME, "65536"));
        clientDevice = io.verbs4j.Verbs.open("shm", ShmTestSupport.context(dir, true)
            .property(ShmConfiguration.RING_CAPACITY_PROP_NAME, "65536"));
        serverPd = serverDevice.allocateProtectionDomain();
        clientPd = clientDevice.allocateProtectionDomain();
        serverCq = serverDevice.createCompletionQueue(1024);
        clientCq = clientDevice.createCompletionQueue(1024);
        server = serverPd.createQueuePair(new QueuePairConfig(serverCq).recvDepth(512).sendDepth(16));
        client = clientPd.createQueuePair(new QueuePairConfig(clientCq).sendDepth(512).recvDepth(16));
        server.modify(QpState.INIT);
        connect();
        final MemoryRegion src = clientPd.allocate(MIB, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(MIB, Access.LOCAL_WRITE);
        final int count = 2000;
        int posted = 0;
        int received = 0;
        int sent = 0;
        final RecvRequest recv = new RecvRequest(1);
        final SendRequest send = new SendRequest(1);
        int recvPosted = 0;
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (received < count || sent < count)
        {
            assertTrue(System.nanoTime() < deadline, "stuck at sent=" + sent + " received=" + received);
            while (recvPosted < count && QueuePair.OK == server.postRecv(recv.clearSges().wrId(recvPosted)
                .sge(dst, (recvPosted % 256) * 1024L, 1024)))
            {
                recvPosted++;
            }
            while (posted < count)
            {
                src.putInt((posted % 256) * 1024L, posted);
                final SendRequest next = send.clearSges().wrId(posted).sge(src, (posted % 256) * 1024L, 1000);
                if (QueuePair.OK != client.postSend(next))
                {
                    break;
                }
                posted++;
            }
            batch.clear();
            serverCq.poll(batch, 64);
            for (int i = 0; i < batch.size(); i++)
            {
                assertEquals(WcStatus.SUCCESS, batch.status(i));
                assertEquals(received, batch.wrId(i));
                received++;
            }
            batch.clear();
            clientCq.poll(batch, 64);
            for (int i = 0; i < batch.size(); i++)
            {
                assertEquals(WcStatus.SUCCESS, batch.status(i));
                assertEquals(sent, batch.wrId(i));
                sent++;
            }
        }
    }

    @Test
    void shouldWorkWithoutProgressThreadByPolling()
    {
        setUp(false, (s, c) -> { });
        connect();
        final MemoryRegion src = clientPd.allocate(MIB, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(MIB, Access.LOCAL_WRITE);
        fill(src, 0, 100_000, 4);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, MIB));
        client.postSend(new SendRequest(1).wrId(2).sge(src, 0, 100_000));
        expect(serverCq, 1, WcStatus.SUCCESS, Opcode.RECV);
        check(dst, 0, 100_000, 4);
        expect(clientCq, 2, WcStatus.SUCCESS, Opcode.SEND);
    }

    @Test
    void shouldExchangeMaximumPrivateDataAndReject()
    {
        setUp(true, (s, c) -> { });
        final byte[] big = new byte[ShmConfiguration.MAX_PRIVATE_DATA_LENGTH];
        big[4095] = 42;
        final byte[] answer = ShmTestSupport.connect(serverDevice, server, client, "big", big, big);
        assertArrayEquals(big, answer);

        final QueuePair other = clientPd.createQueuePair(new QueuePairConfig(clientCq).sendDepth(4).recvDepth(4));
        try (Listener listener = serverDevice.connectionManager().listen("shm://rejecting"))
        {
            final Thread rejecter = new Thread(() ->
            {
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(10));
                request.reject("go away");
            });
            rejecter.start();
            final ConnectionException ex = assertThrows(ConnectionException.class, () -> clientDevice
                .connectionManager().connect(other, "shm://rejecting", new byte[0], Duration.ofSeconds(10)));
            assertTrue(ex.getMessage().contains("go away"), ex.getMessage());
            assertNull(listener.accept(Duration.ofMillis(10)));
        }
        other.close();
    }

    @Test
    void shouldTimeOutAndRefuseMissingListener()
    {
        setUp(true, (s, c) -> { });
        assertThrows(ConnectionException.class, () -> clientDevice.connectionManager()
            .connect(client, "shm://nobody", new byte[0], Duration.ofMillis(100)));
        assertThrows(ConnectionException.class, () -> clientDevice.connectionManager()
            .connect(client, "tcp://x:1", new byte[0], Duration.ofMillis(100)));
        try (Listener listener = serverDevice.connectionManager().listen("shm://silent"))
        {
            assertThrows(ConnectionException.class, () -> serverDevice.connectionManager().listen("shm://silent"));
            final long start = System.nanoTime();
            assertThrows(ConnectionException.class, () -> clientDevice.connectionManager()
                .connect(client, listener.endpoint(), new byte[0], Duration.ofMillis(200)));
            assertTrue(System.nanoTime() - start < 5_000_000_000L);
            final ConnectionRequest late = listener.accept(Duration.ofSeconds(1));
            assertThrows(ConnectionException.class, () -> late.accept(server, new byte[0]));
        }
        assertEquals(QpState.INIT, client.state());
    }

    @Test
    void shouldMoveToErrorOnMalformedRecordsWithoutThrowing()
    {
        setUpConnected();
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 4096));
        final org.agrona.concurrent.UnsafeBuffer garbage = new org.agrona.concurrent.UnsafeBuffer(new byte[64]);
        garbage.putShort(0, (short)99);
        assertTrue(((ShmQueuePair)client).connection().out.write(1, garbage, 0, 64));
        expect(serverCq, 1, WcStatus.WR_FLUSH_ERR, Opcode.RECV);
        assertEquals(QpState.ERROR, server.state());
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (QpState.ERROR != client.state() && System.nanoTime() < deadline)
        {
            clientCq.poll(batch, 1);
            Thread.yield();
        }
        assertEquals(QpState.ERROR, client.state());
    }

    @Test
    void shouldRejectRecordWithLyingLength()
    {
        setUpConnected();
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 4096));
        final org.agrona.concurrent.UnsafeBuffer record = new org.agrona.concurrent.UnsafeBuffer(new byte[32]);
        record.putShort(io.verbs4j.shm.protocol.FrameDescriptor.VERSION_OFFSET, (short)1);
        record.putLong(io.verbs4j.shm.protocol.FrameDescriptor.MSN_OFFSET, 0);
        record.putInt(io.verbs4j.shm.protocol.FrameDescriptor.MESSAGE_LENGTH_OFFSET, 1 << 30);
        assertTrue(((ShmQueuePair)client).connection().out.write(
            io.verbs4j.shm.protocol.FrameDescriptor.TYPE_SEND_INLINE, record, 0, 32));
        expect(serverCq, 1, WcStatus.WR_FLUSH_ERR, Opcode.RECV);
        assertEquals(0, dst.getLong(0));
    }

    private static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
