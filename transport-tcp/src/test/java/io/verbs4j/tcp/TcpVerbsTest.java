package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
