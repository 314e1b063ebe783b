// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.launch.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * WRITE, READ, both atomics and SEND against a peer in another JVM that does nothing but exist, then kill -9 of
 * that JVM: the queue pair goes to ERROR and everything outstanding completes within a bounded time.
 */
@Timeout(60)
class TcpCrossProcessTest
{
    @Test
    void shouldRunEveryVerbAgainstAnotherProcessAndSurviveItsDeath() throws Exception
    {
        try (ChildJvm child = ChildJvm.builder("tcp child peer", TcpChildPeer.class)
            .jvmArgs(List.of("-Xmx256m")).start();
            Device device = Verbs.open("tcp"))
        {
            final String endpoint = child.awaitLine("ENDPOINT ", ChildJvm.CALL_TIMEOUT_MS)
                .substring("ENDPOINT ".length());
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(256);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq));
            qp.modify(QpState.INIT);
            final byte[] info = device.connectionManager().connect(qp, endpoint, new byte[0], Duration.ofSeconds(20));
            final ByteBuffer peer = ByteBuffer.wrap(info);
            final long address = peer.getLong();
            final int rkey = peer.getInt();
            child.awaitLine("CONNECTED", ChildJvm.CALL_TIMEOUT_MS);
            final MemoryRegion local = pd.allocate(1 << 20, Access.LOCAL_WRITE);
            for (int i = 0; i < 8192; i++)
            {
                local.putByte(i, (byte)(i * 13));
            }

            post(qp, new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 8192).remote(address, rkey));
            post(qp, new SendRequest(1).wrId(2).opcode(Opcode.RDMA_READ).sge(local, 100_000, 8192)
                .remote(address, rkey));
            post(qp, new SendRequest(1).wrId(3).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(local, 200_000, 8)
                .remote(address + 32768, rkey).atomic(5, 0));
            post(qp, new SendRequest(1).wrId(4).opcode(Opcode.ATOMIC_CMP_AND_SWP).sge(local, 200_008, 8)
                .remote(address + 32768, rkey).atomic(5, 77));
            post(qp, new SendRequest(1).wrId(5).sge(local, 0, 1000));
            post(qp, new SendRequest(1).wrId(6).opcode(Opcode.RDMA_READ).sge(local, 300_000, 1000)
                .remote(address + TcpChildPeer.RECV_OFFSET, rkey));
            post(qp, new SendRequest(1).wrId(7).opcode(Opcode.RDMA_READ).sge(local, 400_000, 8)
                .remote(address + 32768, rkey));
            final CompletionBatch done = TcpPair.await(cq, 7);
            assertEquals(7, done.size());
            for (int i = 0; i < 7; i++)
            {
                assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(done.status(i)), "wrId " + done.wrId(i));
                assertEquals(i + 1, done.wrId(i));
            }
            for (int i = 0; i < 8192; i++)
            {
                assertEquals((byte)(i * 13), local.getByte(100_000 + i), "READ back what was written");
            }
            assertEquals(0, local.getLong(200_000));
            assertEquals(5, local.getLong(200_008));
            assertEquals(77, local.getLong(400_000));
            for (int i = 0; i < 1000; i++)
            {
                assertEquals((byte)(i * 13), local.getByte(300_000 + i), "the SEND landed in the posted receive");
            }

            // kill -9: the socket is reset by the kernel; outstanding work must complete, bounded.
            qp.postRecv(new RecvRequest(1).wrId(10).sge(local, 500_000, 100));
            child.kill();
            final long start = System.nanoTime();
            final CompletionBatch flushed = TcpPair.await(cq, 1);
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(1, flushed.size());
            assertEquals(WcStatus.name(WcStatus.WR_FLUSH_ERR), WcStatus.name(flushed.status(0)));
            assertEquals(QpState.ERROR, qp.state());
            assertTrue(elapsedMs < 5000, "detected after " + elapsedMs + " ms");
            assertEquals(QueuePair.OK, qp.postSend(new SendRequest(1).wrId(11).sge(local, 0, 8)));
            assertEquals(WcStatus.WR_FLUSH_ERR, TcpPair.await(cq, 1).status(0));
        }
    }

    private static void post(final QueuePair qp, final SendRequest request)
    {
        assertEquals(QueuePair.OK, qp.postSend(request), "wrId " + request.wrId());
    }
}
