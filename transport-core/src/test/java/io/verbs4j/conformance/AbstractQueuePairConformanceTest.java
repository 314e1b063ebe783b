// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.util.List;

import io.verbs4j.Access;
import io.verbs4j.Capabilities;
import io.verbs4j.CompletionHandler;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.PostList;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every verb and every work-completion status, end to end against a {@link Peer}: SEND/SEND_WITH_IMM/RECV,
 * RDMA WRITE/WRITE_WITH_IMM/READ, both atomics, scatter-gather, inline, unsignaled requests, RC ordering, the
 * state machine, RNR, remote and local protection errors, flush on error, post return codes, post lists
 * ({@link PostList}) and injects ({@link SendRequest#INJECT}).
 */
public abstract class AbstractQueuePairConformanceTest extends AbstractConformanceTest
{
    private static final int ALL_REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ |
        Access.REMOTE_ATOMIC;

    @Test
    void shouldFollowTheStateMachine()
    {
        final QueuePair qp = pd.createQueuePair(defaultConfig());
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        assertEquals(QpState.RESET, qp.state());
        assertEquals(QueuePair.INVALID_STATE, qp.postSend(new SendRequest(1).sge(mr, 0, 8)));
        assertEquals(QueuePair.INVALID_STATE, qp.postRecv(new RecvRequest(1).sge(mr, 0, 8)));
        assertThrows(IllegalStateException.class, () -> qp.modify(QpState.RTS));
        qp.modify(QpState.INIT);
        assertEquals(QpState.INIT, qp.state());
        assertEquals(QueuePair.OK, qp.postRecv(new RecvRequest(1).wrId(7).sge(mr, 0, 8)));
        assertEquals(QueuePair.INVALID_STATE, qp.postSend(new SendRequest(1).sge(mr, 0, 8)));
        assertThrows(IllegalStateException.class, () -> qp.modify(QpState.RTR));
        qp.modify(QpState.ERROR);
        assertEquals(QpState.ERROR, qp.state());
        final Peer.Completion flushed = awaitOne(cq);
        assertEquals(7, flushed.wrId());
        assertStatus(WcStatus.WR_FLUSH_ERR, flushed);
        qp.modify(QpState.RESET);
        assertEquals(QpState.RESET, qp.state());
        qp.close();
        assertEquals(QueuePair.CLOSED, qp.postSend(new SendRequest(1).sge(mr, 0, 8)));
        qp.close();
    }

    @Test
    void shouldConnectToRts()
    {
        final QueuePair qp = connect(1, 64);
        assertEquals(QpState.RTS, qp.state());
        assertEquals(QpState.RTS, peer.qpState());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 8, 63, 64, 65, 255, 4096, 65_537, 1 << 20})
    void shouldSendAndReceive(final int length)
    {
        final QueuePair qp = connect(1, Math.max(1, length));
        final MemoryRegion mr = allocate(Math.max(1, length), Access.LOCAL_WRITE);
        final byte[] data = pattern(length, length);
        mr.putBytes(0, data, 0, length);
        post(qp, new SendRequest(1).wrId(42).opcode(Opcode.SEND).sge(mr, 0, length));
        final Peer.Completion sent = awaitOne(cq);
        assertStatus(WcStatus.SUCCESS, sent);
        assertEquals(42, sent.wrId());
        assertEquals(Opcode.SEND, sent.opcode());
        assertEquals(qp.qpNumber(), sent.qpNumber());
        final Peer.Completion received = peer.pollRecv(1, WAIT_MS)[0];
        assertStatus(WcStatus.SUCCESS, received);
        assertEquals(Opcode.RECV, received.opcode());
        assertEquals(length, received.byteLength());
        assertEquals(0, received.flags() & CompletionHandler.WITH_IMM);
        assertArrayEquals(data, peer.recvData(received.wrId(), length));
    }

    @Test
    void shouldDeliverImmediateDataWithSend()
    {
        final QueuePair qp = connect(1, 16);
        final MemoryRegion mr = allocate(16, Access.LOCAL_WRITE);
        mr.putLong(0, 0x1122334455667788L);
        post(qp, new SendRequest(1).opcode(Opcode.SEND_WITH_IMM).immediateData(0xCAFEBABE).sge(mr, 0, 8));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        final Peer.Completion received = peer.pollRecv(1, WAIT_MS)[0];
        assertStatus(WcStatus.SUCCESS, received);
        assertEquals(Opcode.RECV, received.opcode());
        assertEquals(CompletionHandler.WITH_IMM, received.flags() & CompletionHandler.WITH_IMM);
        assertEquals(0xCAFEBABE, received.immediate());
        assertEquals(8, received.byteLength());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 8, 64, 4095, 65_536, 1 << 20})
    void shouldWriteIntoPeerMemory(final int length)
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(length + 128, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(length, Access.LOCAL_WRITE);
        final byte[] data = pattern(length, 3);
        mr.putBytes(0, data, 0, length);
        post(qp, new SendRequest(1).wrId(5).opcode(Opcode.RDMA_WRITE).sge(mr, 0, length)
            .remote(remote.address() + 64, remote.rkey()));
        final Peer.Completion c = awaitOne(cq);
        assertStatus(WcStatus.SUCCESS, c);
        assertEquals(Opcode.RDMA_WRITE, c.opcode());
        assertEquals(length, c.byteLength());
        assertArrayEquals(data, peer.read(remote.id(), 64, length));
        assertArrayEquals(new byte[64], peer.read(remote.id(), 0, 64), "bytes before the target range changed");
        assertArrayEquals(new byte[64], peer.read(remote.id(), 64 + length, 64), "bytes after the range changed");
    }

    @Test
    void shouldWriteWithImmediateConsumingAReceive()
    {
        assumeTrue(device.capabilities().has(Capabilities.WRITE_IMM));
        final QueuePair qp = connect(1, 8);
        final Peer.RegionInfo remote = peer.allocate(4096, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(4096, Access.LOCAL_WRITE);
        final byte[] data = pattern(4096, 11);
        mr.putBytes(0, data, 0, 4096);
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_WRITE_WITH_IMM).immediateData(77).sge(mr, 0, 4096)
            .remote(remote.address(), remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        final Peer.Completion received = peer.pollRecv(1, WAIT_MS)[0];
        assertStatus(WcStatus.SUCCESS, received);
        assertEquals(Opcode.RECV_RDMA_WITH_IMM, received.opcode());
        assertEquals(77, received.immediate());
        assertEquals(CompletionHandler.WITH_IMM, received.flags() & CompletionHandler.WITH_IMM);
        assertEquals(4096, received.byteLength());
        assertArrayEquals(data, peer.read(remote.id(), 0, 4096));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 8, 64, 4097, 65_536, 1 << 20})
    void shouldReadPeerMemory(final int length)
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(length, ALL_REMOTE, false);
        final byte[] data = pattern(length, 5);
        peer.write(remote.id(), 0, data);
        final MemoryRegion mr = allocate(length, Access.LOCAL_WRITE);
        post(qp, new SendRequest(1).wrId(9).opcode(Opcode.RDMA_READ).sge(mr, 0, length)
            .remote(remote.address(), remote.rkey()));
        final Peer.Completion c = awaitOne(cq);
        assertStatus(WcStatus.SUCCESS, c);
        assertEquals(Opcode.RDMA_READ, c.opcode());
        assertEquals(length, c.byteLength());
        final byte[] read = new byte[length];
        mr.getBytes(0, read, 0, length);
        assertArrayEquals(data, read);
    }

    @Test
    void shouldFetchAndAdd()
    {
        assumeTrue(device.capabilities().has(Capabilities.ATOMIC));
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(64, ALL_REMOTE, false);
        peer.write(remote.id(), 8, longBytes(100));
        final MemoryRegion result = allocate(8, Access.LOCAL_WRITE);
        post(qp, new SendRequest(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(result, 0, 8)
            .remote(remote.address() + 8, remote.rkey()).atomic(5, 0));
        final Peer.Completion c = awaitOne(cq);
        assertStatus(WcStatus.SUCCESS, c);
        assertEquals(Opcode.ATOMIC_FETCH_AND_ADD, c.opcode());
        assertEquals(100, result.getLong(0));
        assertEquals(105, peer.getLongVolatile(remote.id(), 8));
    }

    @Test
    void shouldCompareAndSwap()
    {
        assumeTrue(device.capabilities().has(Capabilities.ATOMIC));
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(64, ALL_REMOTE, false);
        peer.write(remote.id(), 16, longBytes(7));
        final MemoryRegion result = allocate(8, Access.LOCAL_WRITE);
        final SendRequest cas = new SendRequest(1).opcode(Opcode.ATOMIC_CMP_AND_SWP).sge(result, 0, 8)
            .remote(remote.address() + 16, remote.rkey());
        post(qp, cas.atomic(6, 99));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        assertEquals(7, result.getLong(0), "a failed compare returns the current value");
        assertEquals(7, peer.getLongVolatile(remote.id(), 16));
        post(qp, cas.atomic(7, 99));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        assertEquals(7, result.getLong(0));
        assertEquals(99, peer.getLongVolatile(remote.id(), 16));
    }

    @Test
    void shouldBeAtomicWithRespectToTheTargetsCpuAtomics()
    {
        assumeTrue(device.capabilities().has(Capabilities.ATOMIC));
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(64, ALL_REMOTE, false);
        final MemoryRegion result = allocate(8, Access.LOCAL_WRITE);
        final int n = 5_000;
        peer.startLocalAdds(remote.id(), 0, n);
        final SendRequest faa = new SendRequest(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(0).sge(result, 0, 8)
            .remote(remote.address(), remote.rkey()).atomic(1, 0);
        for (int i = 0; i < n; i++)
        {
            faa.flags(i % 32 == 31 || i == n - 1 ? SendRequest.SIGNALED : 0);
            int rc;
            while (QueuePair.BACK_PRESSURED == (rc = qp.postSend(faa)))
            {
                await(cq, 1).forEach(c -> assertStatus(WcStatus.SUCCESS, c));
            }
            assertEquals(QueuePair.OK, rc);
        }
        while (qp.sendQueueFree() < qp.config().sendDepth())
        {
            await(cq, 1).forEach(c -> assertStatus(WcStatus.SUCCESS, c));
        }
        peer.awaitLocalAdds();
        assertEquals(2L * n, peer.getLongVolatile(remote.id(), 0));
    }

    @Test
    void shouldGatherAndScatter()
    {
        assumeTrue(device.capabilities().maxSge() >= 3);
        final QueuePair qp = connect(1, 64);
        final MemoryRegion a = allocate(64, Access.LOCAL_WRITE);
        final MemoryRegion b = allocate(64, Access.LOCAL_WRITE);
        final byte[] x = pattern(10, 1);
        final byte[] y = pattern(20, 2);
        final byte[] z = pattern(30, 3);
        a.putBytes(5, x, 0, 10);
        b.putBytes(0, y, 0, 20);
        a.putBytes(30, z, 0, 30);
        post(qp, new SendRequest(3).sge(a, 5, 10).sge(b, 0, 20).sge(a, 30, 30));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        final Peer.Completion received = peer.pollRecv(1, WAIT_MS)[0];
        assertEquals(60, received.byteLength());
        final byte[] expected = new byte[60];
        System.arraycopy(x, 0, expected, 0, 10);
        System.arraycopy(y, 0, expected, 10, 20);
        System.arraycopy(z, 0, expected, 30, 30);
        assertArrayEquals(expected, peer.recvData(received.wrId(), 60));

        final Peer.RegionInfo remote = peer.allocate(128, ALL_REMOTE, false);
        post(qp, new SendRequest(3).opcode(Opcode.RDMA_WRITE).sge(a, 5, 10).sge(b, 0, 20).sge(a, 30, 30)
            .remote(remote.address(), remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        assertArrayEquals(expected, peer.read(remote.id(), 0, 60));

        final MemoryRegion c = allocate(128, Access.LOCAL_WRITE);
        post(qp, new SendRequest(2).opcode(Opcode.RDMA_READ).sge(c, 100, 25).sge(c, 0, 35)
            .remote(remote.address(), remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        final byte[] first = new byte[25];
        final byte[] second = new byte[35];
        c.getBytes(100, first, 0, 25);
        c.getBytes(0, second, 0, 35);
        final byte[] joined = new byte[60];
        System.arraycopy(first, 0, joined, 0, 25);
        System.arraycopy(second, 0, joined, 25, 35);
        assertArrayEquals(expected, joined);
    }

    @Test
    void shouldScatterAReceiveOverSeveralBuffers()
    {
        final MemoryRegion mr = allocate(256, Access.LOCAL_WRITE);
        // The peer only receives into single buffers, so receive-side scatter is checked with two local queue
        // pairs connected through a listener of the test's own device.
        try (io.verbs4j.Listener listener = device.connectionManager().listen(
            io.verbs4j.Verbs.provider(device.name()).listenEndpoint("127.0.0.1", uniqueName())))
        {
            final QueuePair receiver = pd.createQueuePair(defaultConfig());
            receiver.modify(QpState.INIT);
            assertEquals(QueuePair.OK, receiver.postRecv(new RecvRequest(2).wrId(1).sge(mr, 100, 10).sge(mr, 0, 50)));
            final java.util.concurrent.CompletableFuture<Void> accepted = java.util.concurrent.CompletableFuture
                .runAsync(() -> listener.accept(java.time.Duration.ofSeconds(10)).accept(receiver, new byte[0]));
            final QueuePair sender = pd.createQueuePair(defaultConfig());
            device.connectionManager().connect(sender, listener.endpoint(), new byte[0],
                java.time.Duration.ofSeconds(10));
            accepted.join();
            final MemoryRegion src = allocate(64, Access.LOCAL_WRITE);
            final byte[] data = pattern(40, 9);
            src.putBytes(0, data, 0, 40);
            post(sender, new SendRequest(1).wrId(2).sge(src, 0, 40));
            final List<Peer.Completion> both = await(cq, 2);
            both.forEach(c -> assertStatus(WcStatus.SUCCESS, c));
            final byte[] got = new byte[40];
            mr.getBytes(100, got, 0, 10);
            mr.getBytes(0, got, 10, 30);
            assertArrayEquals(data, got);
        }
    }

    @Test
    void shouldSendInlineAndLetTheBufferBeReusedAtOnce()
    {
        assumeTrue(device.capabilities().has(Capabilities.INLINE) && device.capabilities().maxInlineLength() >= 32);
        final QueuePair qp = connect(1, 64);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        final byte[] data = pattern(32, 4);
        mr.putBytes(0, data, 0, 32);
        post(qp, new SendRequest(1).flags(SendRequest.SIGNALED | SendRequest.INLINE).sge(mr, 0, 32));
        mr.setMemory(0, 32, (byte)0xFF);
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        final Peer.Completion received = peer.pollRecv(1, WAIT_MS)[0];
        assertArrayEquals(data, peer.recvData(received.wrId(), 32));
    }

    @Test
    void shouldPostAListOfMixedOpcodesInOneCallAndCompleteItInOrder()
    {
        final Capabilities caps = device.capabilities();
        final QueuePair qp = connect(3, 64);
        final Peer.RegionInfo remote = peer.allocate(4096, ALL_REMOTE, false);
        final byte[] remoteData = pattern(128, 21);
        peer.write(remote.id(), 2048, remoteData);
        final MemoryRegion mr = allocate(4096, Access.LOCAL_WRITE);
        final byte[] written = pattern(256, 22);
        final byte[] sent = pattern(48, 23);
        mr.putBytes(0, written, 0, 256);
        mr.putBytes(512, sent, 0, 48);
        final PostList<SendRequest> list = new PostList<>(8);
        list.add(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 256)
            .remote(remote.address(), remote.rkey()));
        list.add(new SendRequest(1).wrId(2).opcode(Opcode.SEND).sge(mr, 512, 48));
        list.add(new SendRequest(1).wrId(3).opcode(Opcode.RDMA_READ).sge(mr, 1024, 128)
            .remote(remote.address() + 2048, remote.rkey()));
        list.add(new SendRequest(1).wrId(4).opcode(Opcode.SEND_WITH_IMM).flags(0).immediateData(44)
            .sge(mr, 512, 8));
        if (caps.has(Capabilities.ATOMIC))
        {
            list.add(new SendRequest(1).wrId(5).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(mr, 2048, 8)
                .remote(remote.address() + 3072, remote.rkey()).atomic(3, 0));
        }
        if (caps.has(Capabilities.INJECT))
        {
            list.add(new SendRequest(1).wrId(6).opcode(Opcode.RDMA_WRITE).flags(SendRequest.INJECT)
                .sge(mr, 0, 16).remote(remote.address() + 256, remote.rkey()));
        }
        if (caps.has(Capabilities.WRITE_IMM))
        {
            list.add(new SendRequest(1).wrId(7).opcode(Opcode.RDMA_WRITE_WITH_IMM).immediateData(77)
                .sge(mr, 0, 32).remote(remote.address() + 512, remote.rkey()));
        }
        assertEquals(QueuePair.OK, qp.postSend(list));
        assertEquals(list.size(), list.accepted());
        assertEquals(QueuePair.OK, list.status());
        final int expected = list.size() - 1 - (caps.has(Capabilities.INJECT) ? 1 : 0);
        final List<Peer.Completion> cs = await(cq, expected);
        final long[] wrIds = cs.stream().mapToLong(Peer.Completion::wrId).toArray();
        final long[] expectedIds = java.util.stream.LongStream.of(1, 2, 3, 5, 7)
            .filter(id -> id != 5 || caps.has(Capabilities.ATOMIC))
            .filter(id -> id != 7 || caps.has(Capabilities.WRITE_IMM)).toArray();
        assertArrayEquals(expectedIds, wrIds, "signaled requests complete in list order; unsignaled ones do not");
        cs.forEach(c -> assertStatus(WcStatus.SUCCESS, c));
        assertQuiet(cq, 50);
        assertArrayEquals(written, peer.read(remote.id(), 0, 256));
        final byte[] read = new byte[128];
        mr.getBytes(1024, read, 0, 128);
        assertArrayEquals(remoteData, read);
        final int messages = caps.has(Capabilities.WRITE_IMM) ? 3 : 2;
        final Peer.Completion[] received = peer.pollRecv(messages, WAIT_MS);
        assertEquals(messages, received.length);
        assertArrayEquals(sent, peer.recvData(received[0].wrId(), 48));
        assertEquals(44, received[1].immediate());
        if (caps.has(Capabilities.ATOMIC))
        {
            assertEquals(0, mr.getLong(2048));
            assertEquals(3, peer.getLongVolatile(remote.id(), 3072));
        }
        if (caps.has(Capabilities.INJECT))
        {
            assertArrayEquals(java.util.Arrays.copyOf(written, 16), peer.read(remote.id(), 256, 16));
        }
        if (caps.has(Capabilities.WRITE_IMM))
        {
            assertEquals(77, received[2].immediate());
            assertArrayEquals(java.util.Arrays.copyOf(written, 32), peer.read(remote.id(), 512, 32));
        }
    }

    @Test
    void shouldPostExactlyTheRequestsBeforeTheFirstRefusedOneOfAList()
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(1024, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(1024, Access.LOCAL_WRITE);
        final PostList<SendRequest> list = new PostList<>(8);
        for (int i = 0; i < 5; i++)
        {
            final SendRequest write = new SendRequest(1).wrId(i).opcode(Opcode.RDMA_WRITE).sge(mr, i * 64L, 64)
                .remote(remote.address() + i * 64L, remote.rkey());
            list.add(2 == i ? write.opcode(99) : write);
        }
        mr.setMemory(0, 1024, (byte)7);
        assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(list));
        assertEquals(2, list.accepted(), "bad_wr is the third request");
        assertEquals(QueuePair.INVALID_REQUEST, list.status());
        assertEquals(99, list.request(list.accepted()).opcode());
        final List<Peer.Completion> cs = await(cq, 2);
        assertEquals(0, cs.get(0).wrId());
        assertEquals(1, cs.get(1).wrId());
        cs.forEach(c -> assertStatus(WcStatus.SUCCESS, c));
        assertQuiet(cq, 100);
        assertEquals(QpState.RTS, qp.state(), "a refused request changes nothing");
        assertEquals(qp.config().sendDepth(), qp.sendQueueFree());
        final byte[] sevens = new byte[128];
        java.util.Arrays.fill(sevens, (byte)7);
        assertArrayEquals(sevens, peer.read(remote.id(), 0, 128));
        assertArrayEquals(new byte[192], peer.read(remote.id(), 128, 192), "nothing after the refused request ran");

        final QueuePair unconnected = pd.createQueuePair(defaultConfig());
        assertEquals(QueuePair.INVALID_STATE, unconnected.postSend(list));
        assertEquals(0, list.accepted());
        unconnected.close();
    }

    @Test
    void shouldStopAListAtAFullSendQueueAndCarryOnAfterPolling()
    {
        final QueuePair qp = connect(defaultConfig().sendDepth(4), 0, 1, QueuePairConfig.RNR_RETRY_INFINITE);
        final Peer.RegionInfo remote = peer.allocate(1024, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(1024, Access.LOCAL_WRITE);
        final byte[] data = pattern(7 * 64, 31);
        mr.putBytes(0, data, 0, data.length);
        final PostList<SendRequest> list = new PostList<>(8);
        for (int i = 0; i < 7; i++)
        {
            list.add(new SendRequest(1).wrId(i).opcode(Opcode.RDMA_WRITE).sge(mr, i * 64L, 64)
                .remote(remote.address() + i * 64L, remote.rkey()));
        }
        assertEquals(QueuePair.BACK_PRESSURED, qp.postSend(list));
        assertEquals(4, list.accepted(), "as many as the queue holds");
        final List<Peer.Completion> first = await(cq, 4);
        assertEquals(QueuePair.OK, qp.postSend(list.removeAccepted()));
        assertEquals(3, list.size());
        assertEquals(3, list.accepted());
        final List<Peer.Completion> rest = await(cq, 3);
        for (int i = 0; i < 7; i++)
        {
            final Peer.Completion c = i < 4 ? first.get(i) : rest.get(i - 4);
            assertEquals(i, c.wrId());
            assertStatus(WcStatus.SUCCESS, c);
        }
        assertArrayEquals(data, peer.read(remote.id(), 0, data.length));
    }

    @Test
    void shouldPostAListOfReceivesStoppingAtTheFirstRefusedOne()
    {
        final QueuePair qp = pd.createQueuePair(defaultConfig().recvDepth(4));
        final MemoryRegion mr = allocate(256, Access.LOCAL_WRITE);
        final PostList<RecvRequest> list = new PostList<>(8);
        list.add(new RecvRequest(1).wrId(10).sge(mr, 0, 64));
        assertEquals(QueuePair.INVALID_STATE, qp.postRecv(list), "a RESET queue pair takes no receives");
        assertEquals(0, list.accepted());
        qp.modify(QpState.INIT);
        final int maxSge = qp.config().maxRecvSge();
        final RecvRequest tooMany = new RecvRequest(maxSge + 1);
        for (int i = 0; i <= maxSge; i++)
        {
            tooMany.sge(mr, 0, 8);
        }
        list.add(new RecvRequest(1).wrId(11).sge(mr, 64, 64)).add(tooMany.wrId(12))
            .add(new RecvRequest(1).wrId(13).sge(mr, 128, 64));
        assertEquals(QueuePair.INVALID_REQUEST, qp.postRecv(list));
        assertEquals(2, list.accepted());
        assertEquals(2, qp.recvQueueFree());
        list.clear();
        for (int i = 0; i < 3; i++)
        {
            list.add(new RecvRequest(1).wrId(20 + i).sge(mr, 192, 64));
        }
        assertEquals(QueuePair.BACK_PRESSURED, qp.postRecv(list));
        assertEquals(2, list.accepted());
        qp.modify(QpState.ERROR);
        final List<Peer.Completion> flushed = await(cq, 4);
        assertArrayEquals(new long[] {10, 11, 20, 21}, flushed.stream().mapToLong(Peer.Completion::wrId).toArray());
        flushed.forEach(c -> assertStatus(WcStatus.WR_FLUSH_ERR, c));
        qp.close();
    }

    @Test
    void shouldInjectASendWithoutACompletionAndLetTheBufferBeReusedAtOnce()
    {
        assumeTrue(device.capabilities().has(Capabilities.INJECT) && device.capabilities().maxInlineLength() >= 32);
        final QueuePair qp = connect(3, 64);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        final byte[] data = pattern(32, 41);
        mr.putBytes(0, data, 0, 32);
        post(qp, new SendRequest(1).wrId(1).flags(SendRequest.INJECT | SendRequest.SIGNALED).sge(mr, 0, 32));
        mr.setMemory(0, 32, (byte)0xEE);
        final byte[] imm = pattern(qp.config().maxInlineLength(), 42);
        mr.putBytes(0, imm, 0, imm.length);
        post(qp, new SendRequest(1).wrId(2).opcode(Opcode.SEND_WITH_IMM).immediateData(5)
            .flags(SendRequest.INJECT).sge(mr, 0, imm.length));
        mr.setMemory(0, imm.length, (byte)0xDD);
        final Peer.Completion[] received = peer.pollRecv(2, WAIT_MS);
        assertEquals(2, received.length);
        assertArrayEquals(data, peer.recvData(received[0].wrId(), 32), "the bytes at post time, not the new ones");
        assertArrayEquals(imm, peer.recvData(received[1].wrId(), imm.length), "an inject as long as max inline");
        assertEquals(5, received[1].immediate());
        assertQuiet(cq, 100);
        assertEquals(qp.config().sendDepth() - 2, qp.sendQueueFree(), "injects hold slots like unsignaled requests");
        post(qp, new SendRequest(1).wrId(3).sge(mr, 0, 8));
        final Peer.Completion c = awaitOne(cq);
        assertEquals(3, c.wrId(), "completions are in order: an inject completion would come first");
        assertStatus(WcStatus.SUCCESS, c);
        assertEquals(qp.config().sendDepth(), qp.sendQueueFree());
    }

    @Test
    void shouldInjectAWriteWithoutACompletionAndLetTheBufferBeReusedAtOnce()
    {
        assumeTrue(device.capabilities().has(Capabilities.INJECT) && device.capabilities().maxInlineLength() >= 16);
        final boolean withImm = device.capabilities().has(Capabilities.WRITE_IMM);
        final QueuePair qp = connect(1, 8);
        final Peer.RegionInfo remote = peer.allocate(256, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        final byte[] data = pattern(16, 43);
        mr.putBytes(0, data, 0, 16);
        post(qp, new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.INJECT).sge(mr, 0, 16)
            .remote(remote.address() + 16, remote.rkey()));
        mr.setMemory(0, 16, (byte)0xEE);
        if (withImm)
        {
            mr.putBytes(0, data, 0, 16);
            post(qp, new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE_WITH_IMM).immediateData(9)
                .flags(SendRequest.INJECT | SendRequest.SIGNALED).sge(mr, 0, 16)
                .remote(remote.address() + 64, remote.rkey()));
            mr.setMemory(0, 16, (byte)0xDD);
            final Peer.Completion received = peer.pollRecv(1, WAIT_MS)[0];
            assertStatus(WcStatus.SUCCESS, received);
            assertEquals(9, received.immediate());
            assertArrayEquals(data, peer.read(remote.id(), 64, 16));
        }
        post(qp, new SendRequest(1).wrId(3).opcode(Opcode.RDMA_READ).sge(mr, 32, 16)
            .remote(remote.address() + 16, remote.rkey()));
        final Peer.Completion c = awaitOne(cq);
        assertEquals(3, c.wrId(), "no completion for the injects");
        assertStatus(WcStatus.SUCCESS, c);
        final byte[] readBack = new byte[16];
        mr.getBytes(32, readBack, 0, 16);
        assertArrayEquals(data, readBack, "the peer holds the bytes of post time");
        assertArrayEquals(data, peer.read(remote.id(), 16, 16));
        assertArrayEquals(new byte[16], peer.read(remote.id(), 0, 16));
        assertQuiet(cq, 50);
    }

    @Test
    void shouldRefuseAnInjectTooLongOrWithAResult()
    {
        assumeTrue(device.capabilities().has(Capabilities.INJECT));
        final QueuePair qp = connect(1, 64);
        final Peer.RegionInfo remote = peer.allocate(4096, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(4096, Access.LOCAL_WRITE);
        final int max = qp.config().maxInlineLength();
        assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(new SendRequest(1).flags(SendRequest.INJECT)
            .sge(mr, 0, max + 1)), "a SEND longer than max inline");
        assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(new SendRequest(1).opcode(Opcode.RDMA_WRITE)
            .flags(SendRequest.INJECT).sge(mr, 0, max + 1).remote(remote.address(), remote.rkey())),
            "a WRITE longer than max inline");
        assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(new SendRequest(1).opcode(Opcode.RDMA_READ)
            .flags(SendRequest.INJECT).sge(mr, 0, 8).remote(remote.address(), remote.rkey())), "a READ has a result");
        final SendRequest atomic = new SendRequest(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendRequest.INJECT)
            .sge(mr, 0, 8).remote(remote.address(), remote.rkey()).atomic(1, 0);
        assertEquals(device.capabilities().has(Capabilities.ATOMIC) ? QueuePair.INVALID_REQUEST :
            QueuePair.NOT_SUPPORTED, qp.postSend(atomic), "an atomic has a result");
        final PostList<SendRequest> list = new PostList<SendRequest>(2)
            .add(new SendRequest(1).wrId(1).sge(mr, 0, 8)).add(atomic);
        assertTrue(QueuePair.OK != qp.postSend(list));
        assertEquals(1, list.accepted());
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        assertEquals(QpState.RTS, qp.state());
        assertEquals(qp.config().sendDepth(), qp.sendQueueFree(), "refused injects take no slot");
    }

    @Test
    void shouldReportAFailedInjectWithItsErrorCompletion()
    {
        assumeTrue(device.capabilities().has(Capabilities.INJECT) && device.capabilities().maxInlineLength() >= 8);
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(256, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        mr.setMemory(0, 64, (byte)1);
        post(qp, new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.INJECT).sge(mr, 0, 8)
            .remote(remote.address(), remote.rkey() ^ 0x5A5A5A5A));
        final Peer.Completion c = awaitOne(cq);
        assertEquals(1, c.wrId());
        assertStatus(WcStatus.REM_ACCESS_ERR, c);
        assertEquals(QpState.ERROR, qp.state());
        assertArrayEquals(new byte[256], peer.read(remote.id(), 0, 256), "target memory must be untouched");
        post(qp, new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE).flags(SendRequest.INJECT).sge(mr, 0, 8)
            .remote(remote.address(), remote.rkey()));
        final Peer.Completion flushed = awaitOne(cq);
        assertEquals(2, flushed.wrId(), "an inject posted in ERROR reports its flush");
        assertStatus(WcStatus.WR_FLUSH_ERR, flushed);
    }

    @Test
    void shouldReportAnInjectWithABadLkeyAsALocalProtectionError()
    {
        assumeTrue(device.capabilities().has(Capabilities.INJECT) && device.capabilities().maxInlineLength() >= 8);
        final QueuePair qp = connect(1, 64);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        post(qp, new SendRequest(1).wrId(1).flags(SendRequest.INJECT).sge(mr.address(), 8, mr.lkey() ^ 0x77));
        final Peer.Completion c = awaitOne(cq);
        assertEquals(1, c.wrId());
        assertStatus(WcStatus.LOC_PROT_ERR, c);
        assertEquals(QpState.ERROR, qp.state());
    }

    @Test
    void shouldCompleteOnlySignaledRequestsAndReleaseUnsignaledSlots()
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(4096, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(4096, Access.LOCAL_WRITE);
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(0).sge(mr, 0, 64)
            .remote(remote.address(), remote.rkey());
        final int depth = qp.config().sendDepth();
        for (int round = 0; round < 4; round++)
        {
            for (int i = 0; i < depth - 1; i++)
            {
                post(qp, write.wrId(i).flags(0));
            }
            post(qp, write.wrId(1000 + round).flags(SendRequest.SIGNALED));
            assertEquals(QueuePair.BACK_PRESSURED, qp.postSend(write.flags(0)));
            final Peer.Completion c = awaitOne(cq);
            assertEquals(1000 + round, c.wrId(), "only the signaled request completes");
            assertStatus(WcStatus.SUCCESS, c);
            assertEquals(depth, qp.sendQueueFree(), "polling the signaled completion frees the earlier slots");
        }
    }

    @Test
    void shouldDeliverInOrderSoAWriteIsVisibleWhenTheFollowingSendArrives()
    {
        final QueuePair qp = connect(50, 8);
        final Peer.RegionInfo remote = peer.allocate(50 * 4096, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(50 * 4096, Access.LOCAL_WRITE);
        for (int i = 0; i < 50; i++)
        {
            final byte[] data = pattern(4096, 100 + i);
            mr.putBytes(i * 4096L, data, 0, 4096);
            post(qp, new SendRequest(1).wrId(2L * i).opcode(Opcode.RDMA_WRITE).flags(0).sge(mr, i * 4096L, 4096)
                .remote(remote.address() + i * 4096L, remote.rkey()));
            mr.putLong(0, i);
            post(qp, new SendRequest(1).wrId(2L * i + 1).opcode(Opcode.SEND).flags(SendRequest.SIGNALED |
                (device.capabilities().maxInlineLength() >= 8 ? SendRequest.INLINE : 0)).sge(mr, 0, 8));
            if (i % 16 == 15)
            {
                await(cq, 16).forEach(c -> assertStatus(WcStatus.SUCCESS, c));
            }
        }
        await(cq, 50 % 16).forEach(c -> assertStatus(WcStatus.SUCCESS, c));
        final Peer.Completion[] received = peer.pollRecv(50, WAIT_MS);
        assertEquals(50, received.length);
        for (int i = 0; i < 50; i++)
        {
            assertEquals(i, received[i].wrId(), "receives complete in order");
        }
        for (int i = 0; i < 50; i++)
        {
            final byte[] expected = pattern(4096, 100 + i);
            if (0 == i)
            {
                continue;
            }
            assertArrayEquals(expected, peer.read(remote.id(), i * 4096L, 4096), "write " + i);
        }
    }

    @Test
    void shouldRefuseAnUnknownRkeyAndFlushTheRest()
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(256, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(256, Access.LOCAL_WRITE);
        mr.setMemory(0, 256, (byte)1);
        post(qp, new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 64)
            .remote(remote.address(), remote.rkey() ^ 0x5A5A5A5A));
        post(qp, new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE).flags(0).sge(mr, 0, 64)
            .remote(remote.address(), remote.rkey()));
        final List<Peer.Completion> cs = await(cq, 2);
        assertEquals(1, cs.get(0).wrId());
        assertStatus(WcStatus.REM_ACCESS_ERR, cs.get(0));
        assertEquals(2, cs.get(1).wrId(), "an unsignaled request still reports its flush");
        assertStatus(WcStatus.WR_FLUSH_ERR, cs.get(1));
        assertEquals(QpState.ERROR, qp.state());
        assertArrayEquals(new byte[256], peer.read(remote.id(), 0, 256), "target memory must be untouched");
        post(qp, new SendRequest(1).wrId(3).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 8)
            .remote(remote.address(), remote.rkey()));
        final Peer.Completion later = awaitOne(cq);
        assertEquals(3, later.wrId());
        assertStatus(WcStatus.WR_FLUSH_ERR, later);
    }

    @Test
    void shouldRefuseAWriteWithoutRemoteWriteAccess()
    {
        expectRemoteAccessError(Access.LOCAL_WRITE | Access.REMOTE_READ, Opcode.RDMA_WRITE, 0, 64);
    }

    @Test
    void shouldRefuseAReadWithoutRemoteReadAccess()
    {
        expectRemoteAccessError(Access.LOCAL_WRITE | Access.REMOTE_WRITE, Opcode.RDMA_READ, 0, 64);
    }

    @Test
    void shouldRefuseAnAtomicWithoutRemoteAtomicAccess()
    {
        assumeTrue(device.capabilities().has(Capabilities.ATOMIC));
        expectRemoteAccessError(Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ,
            Opcode.ATOMIC_FETCH_AND_ADD, 0, 8);
    }

    @Test
    void shouldRefuseAWritePastTheEndOfTheRegion()
    {
        expectRemoteAccessError(ALL_REMOTE, Opcode.RDMA_WRITE, 200, 64);
    }

    @Test
    void shouldRefuseAReadBeforeTheStartOfTheRegion()
    {
        expectRemoteAccessError(ALL_REMOTE, Opcode.RDMA_READ, -8, 16);
    }

    @Test
    void shouldRefuseTheRkeyOfADeregisteredRegion()
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(256, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(256, Access.LOCAL_WRITE);
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 64).remote(remote.address(), remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        peer.deregister(remote.id());
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 64).remote(remote.address(), remote.rkey()));
        assertStatus(WcStatus.REM_ACCESS_ERR, awaitOne(cq));
        assertEquals(QpState.ERROR, qp.state());
    }

    @Test
    void shouldRefuseAnRkeyOfAnotherProtectionDomain()
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo foreign = peer.allocate(256, ALL_REMOTE, true);
        final MemoryRegion mr = allocate(256, Access.LOCAL_WRITE);
        mr.setMemory(0, 256, (byte)3);
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 64)
            .remote(foreign.address(), foreign.rkey()));
        assertStatus(WcStatus.REM_ACCESS_ERR, awaitOne(cq));
        assertArrayEquals(new byte[64], peer.read(foreign.id(), 0, 64));
    }

    @Test
    void shouldReportALocalProtectionErrorForABadLkey()
    {
        final QueuePair qp = connect(1, 64);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        post(qp, new SendRequest(1).wrId(1).sge(mr.address(), 8, mr.lkey() ^ 0x77)); // unknown key
        final Peer.Completion c = awaitOne(cq);
        assertStatus(WcStatus.LOC_PROT_ERR, c);
        assertEquals(QpState.ERROR, qp.state());
    }

    @Test
    void shouldReportALocalProtectionErrorForAKeyOfARegionClosedAfterUse()
    {
        // A posting thread may remember the last region it resolved: a closed one must not be found that way.
        final QueuePair qp = connect(1, 64);
        final Peer.RegionInfo remote = peer.allocate(256, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        final long address = mr.address();
        final int lkey = mr.lkey();
        mr.setMemory(0, 64, (byte)9);
        post(qp, new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(address, 8, lkey)
            .remote(remote.address(), remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        mr.close();
        post(qp, new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE).sge(address, 8, lkey)
            .remote(remote.address() + 64, remote.rkey()));
        final Peer.Completion c = awaitOne(cq);
        assertStatus(WcStatus.LOC_PROT_ERR, c);
        assertEquals(2, c.wrId());
        assertArrayEquals(new byte[8], peer.read(remote.id(), 64, 8), "nothing written from the closed region");
    }

    @Test
    void shouldCheckTheSameRequestObjectAgainWhenItsRegionClosedOrItsSgeChanged()
    {
        // A queue pair may skip the checks of the request object it checked last when it comes back unchanged: a
        // closed region or a changed SGE must still be caught.
        final QueuePair qp = connect(1, 64);
        final Peer.RegionInfo remote = peer.allocate(256, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        mr.setMemory(0, 64, (byte)9);
        final SendRequest request = new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 8)
            .remote(remote.address(), remote.rkey());
        post(qp, request);
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        post(qp, request.wrId(2));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        post(qp, request.wrId(3).sgeLength(0, 128));
        final Peer.Completion tooLong = awaitOne(cq);
        assertStatus(WcStatus.LOC_PROT_ERR, tooLong);
        assertEquals(3, tooLong.wrId());
        final QueuePair again = connect(1, 64);
        request.sgeLength(0, 8).remote(remote.address() + 64, remote.rkey());
        post(again, request.wrId(4));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        mr.close();
        post(again, request.wrId(5).remote(remote.address() + 128, remote.rkey()));
        final Peer.Completion closed = awaitOne(cq);
        assertStatus(WcStatus.LOC_PROT_ERR, closed);
        assertEquals(5, closed.wrId());
        assertArrayEquals(new byte[8], peer.read(remote.id(), 128, 8), "nothing written from the closed region");
    }

    @Test
    void shouldReportALocalProtectionErrorForAnSgeOutsideItsRegion()
    {
        final QueuePair qp = connect(1, 64);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        post(qp, new SendRequest(1).sge(mr, 60, 8));
        assertStatus(WcStatus.LOC_PROT_ERR, awaitOne(cq));
    }

    @Test
    void shouldReportALocalProtectionErrorForAReadIntoMemoryWithoutLocalWrite()
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(64, ALL_REMOTE, false);
        final MemoryRegion readOnly = allocate(64, 0);
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_READ).sge(readOnly, 0, 8)
            .remote(remote.address(), remote.rkey()));
        assertStatus(WcStatus.LOC_PROT_ERR, awaitOne(cq));
    }

    @Test
    void shouldRetryAReceiverNotReadyUntilTheBudgetIsSpent()
    {
        final QueuePair qp = connect(defaultConfig().rnrRetry(2).rnrTimerNs(1_000_000), 0, 1,
            QueuePairConfig.RNR_RETRY_INFINITE);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        post(qp, new SendRequest(1).wrId(1).sge(mr, 0, 8));
        final Peer.Completion c = awaitOne(cq);
        assertEquals(1, c.wrId());
        assertStatus(WcStatus.RNR_RETRY_EXC_ERR, c);
        assertEquals(QpState.ERROR, qp.state());
    }

    @Test
    void shouldDeliverASendOnceTheReceiverPostsWithInfiniteRnrRetry()
    {
        final QueuePair qp = connect(defaultConfig().rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE)
            .rnrTimerNs(100_000), 0, 64, QueuePairConfig.RNR_RETRY_INFINITE);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        final byte[] data = pattern(16, 8);
        mr.putBytes(0, data, 0, 16);
        post(qp, new SendRequest(1).wrId(1).sge(mr, 0, 16));
        assertQuiet(cq, 200);
        peer.postRecvs(1);
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        final Peer.Completion received = peer.pollRecv(1, WAIT_MS)[0];
        assertArrayEquals(data, peer.recvData(received.wrId(), 16));
    }

    @Test
    void shouldReportLengthErrorsWhenTheReceiveBufferIsTooSmall()
    {
        final QueuePair qp = connect(1, 16);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        post(qp, new SendRequest(1).sge(mr, 0, 64));
        final Peer.Completion sent = awaitOne(cq);
        assertStatus(WcStatus.REM_INV_REQ_ERR, sent);
        final Peer.Completion received = peer.pollRecv(1, WAIT_MS)[0];
        assertStatus(WcStatus.LOC_LEN_ERR, received);
        assertEquals(QpState.ERROR, qp.state());
    }

    @Test
    void shouldFlushEverythingOutstandingInOrderOnError()
    {
        final QueuePair qp = connect(0, 1);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        for (int i = 0; i < 8; i++)
        {
            assertEquals(QueuePair.OK, qp.postRecv(new RecvRequest(1).wrId(100 + i).sge(mr, 0, 64)));
        }
        qp.modify(QpState.ERROR);
        for (int i = 0; i < 3; i++)
        {
            post(qp, new SendRequest(1).wrId(i).sge(mr, 0, 8));
        }
        final List<Peer.Completion> cs = await(cq, 11);
        long expectRecv = 100;
        long expectSend = 0;
        for (final Peer.Completion c : cs)
        {
            assertStatus(WcStatus.WR_FLUSH_ERR, c);
            if (c.wrId() >= 100)
            {
                assertEquals(expectRecv++, c.wrId());
            }
            else
            {
                assertEquals(expectSend++, c.wrId());
            }
        }
        assertEquals(108, expectRecv);
        assertEquals(3, expectSend);
    }

    @Test
    void shouldCompleteSendsWithSuccessWhenTheReceiverClosesRightAfterReceivingThem()
    {
        // As on an HCA, a SEND that landed in a receive completes with SUCCESS at the sender, even when the receiver
        // closes its queue pair right after polling the receive: an acknowledgement it held back or deferred goes
        // out before the close, not lost with it (the sender would see an error for a message that arrived).
        final QueuePair qp = connect(3, 8);
        final MemoryRegion mr = allocate(24, Access.LOCAL_WRITE);
        for (int i = 0; i < 3; i++)
        {
            mr.putLong(8L * i, 1000 + i);
            post(qp, new SendRequest(1).wrId(i).opcode(Opcode.SEND).sge(mr, 8L * i, 8));
        }
        final Peer.Completion[] received = peer.pollRecv(3, WAIT_MS);
        assertEquals(3, received.length);
        peer.closeQp();
        final List<Peer.Completion> sent = await(cq, 3);
        for (int i = 0; i < 3; i++)
        {
            assertStatus(WcStatus.SUCCESS, sent.get(i));
            assertEquals(i, sent.get(i).wrId());
            assertStatus(WcStatus.SUCCESS, received[i]);
        }
    }

    @Test
    void shouldTellThePeerWhenAQueuePairIsClosed()
    {
        final QueuePair qp = connect(0, 1);
        peer.closeQp();
        final long deadline = System.nanoTime() + WAIT_MS * 1_000_000L;
        while (QpState.ERROR != qp.state() && System.nanoTime() < deadline)
        {
            cq.poll((w, s, o, b, i, f, q) -> { }, 16);
            Thread.onSpinWait();
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        assertEquals(QpState.ERROR, qp.state());
    }

    @Test
    void shouldReturnBackPressureWhenTheSendQueueIsFull()
    {
        final QueuePair qp = connect(defaultConfig().sendDepth(4), 0, 1, QueuePairConfig.RNR_RETRY_INFINITE);
        final Peer.RegionInfo remote = peer.allocate(64, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 8)
            .remote(remote.address(), remote.rkey());
        for (int i = 0; i < 4; i++)
        {
            post(qp, write.wrId(i));
        }
        assertEquals(QueuePair.BACK_PRESSURED, qp.postSend(write));
        await(cq, 4);
        post(qp, write.wrId(4));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
    }

    @Test
    void shouldReturnBackPressureWhenTheReceiveQueueIsFull()
    {
        final QueuePair qp = pd.createQueuePair(defaultConfig().recvDepth(2));
        qp.modify(QpState.INIT);
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        final RecvRequest recv = new RecvRequest(1).sge(mr, 0, 8);
        assertEquals(QueuePair.OK, qp.postRecv(recv));
        assertEquals(QueuePair.OK, qp.postRecv(recv));
        assertEquals(QueuePair.BACK_PRESSURED, qp.postRecv(recv));
        qp.close();
    }

    @Test
    void shouldRefuseMalformedRequestsWithoutSideEffects()
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(64, ALL_REMOTE, false);
        final MemoryRegion mr = allocate(256, Access.LOCAL_WRITE);
        final int maxSge = qp.config().maxSendSge();
        final SendRequest tooMany = new SendRequest(maxSge + 1);
        for (int i = 0; i <= maxSge; i++)
        {
            tooMany.sge(mr, 0, 8);
        }
        assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(tooMany));
        assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(new SendRequest(1).opcode(99).sge(mr, 0, 8)));
        final SendRequest atomic = new SendRequest(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(mr, 0, 8)
            .remote(remote.address() + 4, remote.rkey());
        if (device.capabilities().has(Capabilities.ATOMIC))
        {
            assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(atomic), "misaligned remote address");
            assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(atomic.remote(remote.address(), remote.rkey())
                .clearSges().sge(mr, 0, 4)), "atomic needs one 8-byte SGE");
        }
        else
        {
            assertEquals(QueuePair.NOT_SUPPORTED, qp.postSend(atomic));
        }
        if (device.capabilities().has(Capabilities.INLINE))
        {
            assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(new SendRequest(1)
                .flags(SendRequest.SIGNALED | SendRequest.INLINE).sge(mr, 0, qp.config().maxInlineLength() + 1)));
        }
        assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(new SendRequest(1).sge(mr.address(), -1, mr.lkey())));
        assertEquals(QpState.RTS, qp.state(), "refused posts change nothing");
        assertEquals(qp.config().sendDepth(), qp.sendQueueFree());
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 8).remote(remote.address(), remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
    }

    @Test
    void shouldHonourAdvertisedCapabilities()
    {
        // SEND, SEND_WITH_IMM and RDMA_WRITE_WITH_IMM each consume a receive.
        final QueuePair qp = connect(3, 64);
        final Capabilities caps = device.capabilities();
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        final Peer.RegionInfo remote = peer.allocate(64, ALL_REMOTE, false);
        for (int opcode = 0; opcode < Opcode.SEND_OPCODE_COUNT; opcode++)
        {
            final SendRequest request = new SendRequest(1).opcode(opcode).sge(mr, 0, 8)
                .remote(remote.address(), remote.rkey());
            final int rc = qp.postSend(request);
            if (caps.supportsOpcode(opcode))
            {
                assertEquals(QueuePair.OK, rc, Opcode.name(opcode));
                assertStatus(WcStatus.SUCCESS, awaitOne(cq));
            }
            else
            {
                assertEquals(QueuePair.NOT_SUPPORTED, rc, Opcode.name(opcode));
            }
        }
        assertTrue(caps.maxMessageLength() > 0 && caps.maxSge() >= 1 && caps.maxQueueDepth() >= 1);
    }

    private void expectRemoteAccessError(final int access, final int opcode, final long offset, final int length)
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(256, access, false);
        final MemoryRegion mr = allocate(256, Access.LOCAL_WRITE);
        mr.setMemory(0, 256, (byte)0x5A);
        post(qp, new SendRequest(1).wrId(1).opcode(opcode).sge(mr, 0, length)
            .remote(remote.address() + offset, remote.rkey()).atomic(1, 1));
        final Peer.Completion c = awaitOne(cq);
        assertEquals(1, c.wrId());
        assertStatus(WcStatus.REM_ACCESS_ERR, c);
        assertEquals(QpState.ERROR, qp.state());
        assertArrayEquals(new byte[256], peer.read(remote.id(), 0, 256), "target memory must be untouched");
        if (Opcode.RDMA_READ == opcode)
        {
            final byte[] local = new byte[length];
            mr.getBytes(0, local, 0, length);
            final byte[] unchanged = new byte[length];
            java.util.Arrays.fill(unchanged, (byte)0x5A);
            assertArrayEquals(unchanged, local, "a refused READ writes nothing locally");
        }
    }

    private static byte[] longBytes(final long value)
    {
        return java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder()).putLong(value).array();
    }
}
