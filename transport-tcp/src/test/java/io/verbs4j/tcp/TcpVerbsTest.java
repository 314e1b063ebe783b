// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionHandler;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every verb between two tcp devices in one JVM over loopback.
 */
@Timeout(30)
class TcpVerbsTest
{
    private TcpPair pair;

    @BeforeEach
    void connect()
    {
        pair = new TcpPair();
    }

    @AfterEach
    void close()
    {
        pair.close();
    }

    @Test
    void shouldExchangePrivateData()
    {
        assertArrayEquals(new byte[]{1, 2, 3}, pair.serverGot);
        assertArrayEquals(new byte[]{4, 5, 6}, pair.clientGot);
    }

    @Test
    void shouldSendAndReceiveWithImmediate()
    {
        final MemoryRegion src = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(4096, Access.LOCAL_WRITE);
        for (int i = 0; i < 100; i++)
        {
            src.putByte(i, (byte)i);
        }
        assertEquals(QueuePair.OK, pair.server.postRecv(new RecvRequest(1).wrId(7).sge(dst, 0, 4096)));
        assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(8).opcode(Opcode.SEND_WITH_IMM)
            .immediateData(0x1234).sge(src, 0, 100)));
        final CompletionBatch sent = TcpPair.await(pair.clientCq, 1);
        assertEquals(1, sent.size());
        assertEquals(WcStatus.SUCCESS, sent.status(0), WcStatus.name(sent.status(0)));
        assertEquals(8, sent.wrId(0));
        final CompletionBatch received = TcpPair.await(pair.serverCq, 1);
        assertEquals(WcStatus.SUCCESS, received.status(0));
        assertEquals(7, received.wrId(0));
        assertEquals(Opcode.RECV, received.opcode(0));
        assertEquals(100, received.byteLength(0));
        assertEquals(0x1234, received.immediateData(0));
        assertEquals(CompletionHandler.WITH_IMM, received.flags(0));
        for (int i = 0; i < 100; i++)
        {
            assertEquals((byte)i, dst.getByte(i));
        }
    }

    @Test
    void shouldWrite()
    {
        final MemoryRegion src = pair.clientPd.allocate(1 << 20, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(1 << 20, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        for (int i = 0; i < 1 << 20; i += 8)
        {
            src.putLong(i, i * 31L);
        }
        assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE)
            .sge(src, 0, 1 << 20).remote(dst.address(), dst.rkey())));
        final CompletionBatch sent = TcpPair.await(pair.clientCq, 1);
        assertEquals(WcStatus.SUCCESS, sent.status(0), WcStatus.name(sent.status(0)));
        assertEquals(1 << 20, sent.byteLength(0));
        for (int i = 0; i < 1 << 20; i += 8)
        {
            assertEquals(i * 31L, dst.getLong(i));
        }
    }

    private static void assertStatus(final int expected, final CompletionBatch batch, final int i)
    {
        assertTrue(batch.size() > i, "completion " + i + " missing; got " + batch.size());
        assertEquals(WcStatus.name(expected), WcStatus.name(batch.status(i)), "wrId " + batch.wrId(i));
    }

    @Test
    void shouldReadIntoScatteredSges()
    {
        final MemoryRegion remote = pair.serverPd.allocate(1 << 16, Access.LOCAL_WRITE | Access.REMOTE_READ);
        final MemoryRegion local = pair.clientPd.allocate(1 << 16, Access.LOCAL_WRITE);
        for (int i = 0; i < 1 << 16; i++)
        {
            remote.putByte(i, (byte)(i * 7));
        }
        assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(2).wrId(3).opcode(Opcode.RDMA_READ)
            .sge(local, 1000, 5000).sge(local, 20000, 3000).remote(remote.address() + 100, remote.rkey())));
        final CompletionBatch done = TcpPair.await(pair.clientCq, 1);
        assertStatus(WcStatus.SUCCESS, done, 0);
        assertEquals(8000, done.byteLength(0));
        for (int i = 0; i < 5000; i++)
        {
            assertEquals((byte)((100 + i) * 7), local.getByte(1000 + i));
        }
        for (int i = 0; i < 3000; i++)
        {
            assertEquals((byte)((5100 + i) * 7), local.getByte(20000 + i));
        }
    }

    @Test
    void shouldRunAtomicsAtomicallyWithLocalCpuAtomics() throws Exception
    {
        final MemoryRegion counter = pair.serverPd.allocate(64, Access.LOCAL_WRITE | Access.REMOTE_ATOMIC);
        final MemoryRegion result = pair.clientPd.allocate(64, Access.LOCAL_WRITE);
        final int rounds = 2000;
        final Thread local = new Thread(() ->
        {
            for (int i = 0; i < rounds; i++)
            {
                counter.getAndAddLong(0, 1);
            }
        });
        local.start();
        final SendRequest add = new SendRequest(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(result, 0, 8)
            .remote(counter.address(), counter.rkey()).atomic(1, 0);
        int completed = 0;
        final CompletionBatch batch = new CompletionBatch(64);
        for (int i = 0; i < rounds; i++)
        {
            while (QueuePair.BACK_PRESSURED == pair.client.postSend(add.wrId(i)))
            {
                completed += count(batch, WcStatus.SUCCESS);
            }
        }
        while (completed < rounds)
        {
            completed += count(batch, WcStatus.SUCCESS);
        }
        local.join();
        assertEquals(2L * rounds, counter.getLongVolatile(0));

        assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(9).opcode(Opcode.ATOMIC_CMP_AND_SWP)
            .sge(result, 8, 8).remote(counter.address(), counter.rkey()).atomic(2L * rounds, 42)));
        assertStatus(WcStatus.SUCCESS, TcpPair.await(pair.clientCq, 1), 0);
        assertEquals(2L * rounds, result.getLong(8));
        assertEquals(42, counter.getLongVolatile(0));
        assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(10).opcode(Opcode.ATOMIC_CMP_AND_SWP)
            .sge(result, 16, 8).remote(counter.address(), counter.rkey()).atomic(7, 99)));
        final CompletionBatch failedCas = TcpPair.await(pair.clientCq, 1);
        assertStatus(WcStatus.SUCCESS, failedCas, 0);
        assertEquals(8, failedCas.byteLength(0));
        assertEquals(42, result.getLong(16));
        assertEquals(42, counter.getLongVolatile(0));
    }

    private int count(final CompletionBatch batch, final int expectedStatus)
    {
        try
        {
            final int n = pair.clientCq.poll(batch, batch.capacity(), 10, TimeUnit.MILLISECONDS);
            for (int i = 0; i < n; i++)
            {
                assertStatus(expectedStatus, batch, i);
            }
            batch.clear();
            return n;
        }
        catch (final InterruptedException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Test
    void shouldWriteWithImmediateConsumingAReceive()
    {
        final MemoryRegion src = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        src.putLong(0, 0x1122334455667788L);
        assertEquals(QueuePair.OK, pair.server.postRecv(new RecvRequest(1).wrId(5)));
        assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(6)
            .opcode(Opcode.RDMA_WRITE_WITH_IMM).immediateData(77).sge(src, 0, 8)
            .remote(dst.address() + 8, dst.rkey())));
        assertStatus(WcStatus.SUCCESS, TcpPair.await(pair.clientCq, 1), 0);
        final CompletionBatch received = TcpPair.await(pair.serverCq, 1);
        assertStatus(WcStatus.SUCCESS, received, 0);
        assertEquals(Opcode.RECV_RDMA_WITH_IMM, received.opcode(0));
        assertEquals(77, received.immediateData(0));
        assertEquals(8, received.byteLength(0));
        assertEquals(0x1122334455667788L, dst.getLong(8));
    }

    @Test
    void shouldGatherAndScatterAndSendInline()
    {
        final MemoryRegion src = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(4096, Access.LOCAL_WRITE);
        for (int i = 0; i < 500; i++)
        {
            src.putByte(i, (byte)(i + 1));
        }
        pair.server.postRecv(new RecvRequest(2).wrId(1).sge(dst, 0, 50).sge(dst, 1000, 1000));
        pair.server.postRecv(new RecvRequest(1).wrId(2).sge(dst, 3000, 100));
        pair.client.postSend(new SendRequest(3).wrId(1).sge(src, 0, 10).sge(src, 100, 90).sge(src, 200, 20));
        assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(2).flags(SendRequest.SIGNALED |
            SendRequest.INLINE).sge(src, 400, 64)));
        src.setMemory(400, 64, (byte)0);
        final CompletionBatch sent = TcpPair.await(pair.clientCq, 2);
        assertStatus(WcStatus.SUCCESS, sent, 0);
        assertStatus(WcStatus.SUCCESS, sent, 1);
        final CompletionBatch received = TcpPair.await(pair.serverCq, 2);
        assertEquals(120, received.byteLength(0));
        assertEquals(64, received.byteLength(1));
        for (int i = 0; i < 10; i++)
        {
            assertEquals((byte)(i + 1), dst.getByte(i));
        }
        for (int i = 0; i < 40; i++)
        {
            assertEquals((byte)(101 + i), dst.getByte(10 + i));
        }
        for (int i = 0; i < 50; i++)
        {
            assertEquals((byte)(141 + i), dst.getByte(1000 + i));
        }
        for (int i = 0; i < 20; i++)
        {
            assertEquals((byte)(201 + i), dst.getByte(1050 + i));
        }
        for (int i = 0; i < 64; i++)
        {
            assertEquals((byte)(401 + i), dst.getByte(3000 + i));
        }
        assertEquals(64, pair.clientTcp().counter(TcpCounter.BYTES_COPIED_ON_SEND));
    }

    @Test
    void shouldNakBadKeyMissingAccessAndOutOfBoundsLeavingMemoryUntouched()
    {
        final MemoryRegion src = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
        src.setMemory(0, 4096, (byte)0x55);
        final MemoryRegion readOnly = pair.serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_READ);
        final MemoryRegion writable = pair.serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        // Out of bounds by one byte: refused, nothing written; the QP goes to ERROR and the rest is flushed.
        pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(src, 0, 100)
            .remote(writable.address() + 3997, writable.rkey()));
        pair.client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE).sge(src, 0, 100)
            .remote(writable.address(), writable.rkey()));
        final CompletionBatch done = TcpPair.await(pair.clientCq, 2);
        assertStatus(WcStatus.REM_ACCESS_ERR, done, 0);
        assertStatus(WcStatus.WR_FLUSH_ERR, done, 1);
        for (int i = 0; i < 4096; i++)
        {
            assertEquals(0, writable.getByte(i));
        }
        assertEquals(1, pair.serverTcp().counter(TcpCounter.NAKS_SENT));
        assertEquals(0, readOnly.getLong(0));
    }

    @Test
    void shouldNakWriteToReadOnlyRegion()
    {
        expectRemoteAccessError(pair.serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_READ),
            Opcode.RDMA_WRITE, false);
    }

    @Test
    void shouldNakReadOfWriteOnlyRegion()
    {
        expectRemoteAccessError(pair.serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE),
            Opcode.RDMA_READ, false);
    }

    @Test
    void shouldNakAtomicWithoutAtomicAccess()
    {
        expectRemoteAccessError(pair.serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE |
            Access.REMOTE_READ), Opcode.ATOMIC_FETCH_AND_ADD, false);
    }

    @Test
    void shouldNakDeregisteredKey()
    {
        expectRemoteAccessError(pair.serverPd.allocate(4096, Access.ALL), Opcode.RDMA_WRITE, true);
    }

    private void expectRemoteAccessError(final MemoryRegion target, final int opcode, final boolean deregister)
    {
        final MemoryRegion local = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
        local.setMemory(0, 4096, (byte)1);
        final long address = target.address();
        final int rkey = target.rkey();
        if (deregister)
        {
            target.close();
        }
        pair.client.postSend(new SendRequest(1).wrId(1).opcode(opcode).sge(local, 0, 8).remote(address, rkey)
            .atomic(5, 0));
        final CompletionBatch done = TcpPair.await(pair.clientCq, 1);
        assertStatus(WcStatus.REM_ACCESS_ERR, done, 0);
        if (!deregister)
        {
            assertEquals(0, target.getLong(0));
        }
        assertEquals(io.verbs4j.QpState.ERROR, pair.client.state());
    }

    @Test
    void shouldReportLengthErrorOnBothSides()
    {
        final MemoryRegion src = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(4096, Access.LOCAL_WRITE);
        pair.server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 10));
        pair.server.postRecv(new RecvRequest(1).wrId(2).sge(dst, 100, 100));
        pair.client.postSend(new SendRequest(1).wrId(3).sge(src, 0, 11));
        assertStatus(WcStatus.REM_INV_REQ_ERR, TcpPair.await(pair.clientCq, 1), 0);
        final CompletionBatch received = TcpPair.await(pair.serverCq, 2);
        assertStatus(WcStatus.LOC_LEN_ERR, received, 0);
        assertStatus(WcStatus.WR_FLUSH_ERR, received, 1);
    }

    @Test
    void shouldRetryRnrUntilAReceiveIsPosted() throws Exception
    {
        final MemoryRegion src = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        src.putLong(0, 99);
        src.putLong(8, 1234);
        pair.client.postSend(new SendRequest(1).wrId(1).sge(src, 0, 8));
        pair.client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE).sge(src, 8, 8)
            .remote(dst.address() + 64, dst.rkey()));
        Thread.sleep(50);
        assertEquals(0, dst.getLong(64), "the WRITE behind an RNR-NAKed SEND must wait for it");
        pair.server.postRecv(new RecvRequest(1).wrId(3).sge(dst, 0, 8));
        final CompletionBatch sent = TcpPair.await(pair.clientCq, 2);
        assertStatus(WcStatus.SUCCESS, sent, 0);
        assertStatus(WcStatus.SUCCESS, sent, 1);
        assertStatus(WcStatus.SUCCESS, TcpPair.await(pair.serverCq, 1), 0);
        assertEquals(99, dst.getLong(0));
        assertEquals(1234, dst.getLong(64));
        assertTrue(pair.clientTcp().counter(TcpCounter.RNR_RETRIES) > 0);
    }

    @Test
    void shouldFlushOutstandingReceivesWhenThePeerCloses()
    {
        final MemoryRegion dst = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
        pair.client.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 100));
        pair.client.postRecv(new RecvRequest(1).wrId(2).sge(dst, 0, 100));
        pair.server.close();
        final CompletionBatch flushed = TcpPair.await(pair.clientCq, 2);
        assertStatus(WcStatus.WR_FLUSH_ERR, flushed, 0);
        assertStatus(WcStatus.WR_FLUSH_ERR, flushed, 1);
        assertEquals(io.verbs4j.QpState.ERROR, pair.client.state());
    }

    @Test
    void shouldCopyEachPayloadByteOnceOnReceiveAndNeverOnSend()
    {
        final int length = 4 << 20;
        final MemoryRegion src = pair.clientPd.allocate(length, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(length, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final MemoryRegion recv = pair.serverPd.allocate(1 << 16, Access.LOCAL_WRITE);
        pair.server.postRecv(new RecvRequest(1).wrId(1).sge(recv, 0, 1 << 16));
        pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(src, 0, length)
            .remote(dst.address(), dst.rkey()));
        pair.client.postSend(new SendRequest(1).wrId(2).sge(src, 0, 1 << 16));
        final CompletionBatch sent = TcpPair.await(pair.clientCq, 2);
        assertStatus(WcStatus.SUCCESS, sent, 0);
        assertStatus(WcStatus.SUCCESS, sent, 1);
        TcpPair.await(pair.serverCq, 1);
        final long payload = length + (1 << 16);
        final TcpDevice client = pair.clientTcp();
        final TcpDevice server = pair.serverTcp();
        assertEquals(payload, client.counter(TcpCounter.BYTES_SENT));
        assertEquals(0, client.counter(TcpCounter.BYTES_COPIED_ON_SEND), "payloads leave from registered memory");
        assertEquals(payload, server.counter(TcpCounter.BYTES_RECEIVED));
        final long copied = server.counter(TcpCounter.BYTES_COPIED_ON_RECEIVE);
        final long direct = server.counter(TcpCounter.BYTES_RECEIVED_DIRECT);
        assertEquals(payload, copied + direct, "each byte placed once: copied from Netty's buffer or read in place");
        if (server.isEpoll())
        {
            assertTrue(direct > length / 2, "most of a large payload is read from the socket straight into the " +
                "region (epoll): " + direct + " of " + payload);
        }
    }

    @Test
    void shouldCopyEveryByteOnceWhenDirectReadsAreOff()
    {
        pair.close();
        final io.verbs4j.config.DeviceContext off = new io.verbs4j.config.DeviceContext()
            .property(TcpConfiguration.DIRECT_READ_THRESHOLD_PROP_NAME, "0");
        pair = new TcpPair(config -> { }, new io.verbs4j.config.DeviceContext(), off);
        final int length = 1 << 20;
        final MemoryRegion src = pair.clientPd.allocate(length, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(length, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(src, 0, length)
            .remote(dst.address(), dst.rkey()));
        assertStatus(WcStatus.SUCCESS, TcpPair.await(pair.clientCq, 1), 0);
        assertEquals(length, pair.serverTcp().counter(TcpCounter.BYTES_COPIED_ON_RECEIVE));
        assertEquals(0, pair.serverTcp().counter(TcpCounter.BYTES_RECEIVED_DIRECT));
    }

    @Test
    void shouldRespectTheInflightCap()
    {
        pair.close();
        final io.verbs4j.config.DeviceContext small = new io.verbs4j.config.DeviceContext()
            .property(TcpConfiguration.MAX_INFLIGHT_BYTES_PROP_NAME, "65536");
        pair = new TcpPair(config -> { }, small, new io.verbs4j.config.DeviceContext());
        final MemoryRegion src = pair.clientPd.allocate(1 << 20, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(1 << 20, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        for (int i = 0; i < 64; i++)
        {
            assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(i).opcode(Opcode.RDMA_WRITE)
                .sge(src, i * 16384L, 16384).remote(dst.address() + i * 16384L, dst.rkey())));
        }
        final CompletionBatch done = TcpPair.await(pair.clientCq, 64);
        for (int i = 0; i < 64; i++)
        {
            assertStatus(WcStatus.SUCCESS, done, i);
            assertEquals(i, done.wrId(i));
        }
        assertTrue(pair.clientTcp().counter(TcpCounter.BACK_PRESSURE_EVENTS) > 0);
    }
}
