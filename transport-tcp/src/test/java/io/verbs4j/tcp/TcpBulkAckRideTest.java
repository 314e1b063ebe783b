// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bulk both ways (a ring's pieces, an exchange): the ACK a bulk request asks for rides on the answer of the side that
 * read it instead of a write of its own ({@link TcpAckHold}), every completion still arrives, and every byte lands.
 * One-way bulk streams keep their ACKs at once (the unit cases of {@code TcpAckHoldTest}).
 */
@Timeout(60)
class TcpBulkAckRideTest
{
    private static final int PIECE = 256 * 1024;
    private static final int ROUNDS = 40;

    @Test
    void shouldCarryTheAcksOfATwoWayBulkExchangeOnTheAnswers()
    {
        final DeviceContext client = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll");
        final DeviceContext server = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll");
        try (TcpPair pair = new TcpPair(config -> { }, client, server))
        {
            final MemoryRegion clientSrc = pair.clientPd.allocate(PIECE, Access.LOCAL_WRITE);
            final MemoryRegion clientDst = pair.clientPd.allocate(PIECE, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final MemoryRegion serverSrc = pair.serverPd.allocate(PIECE, Access.LOCAL_WRITE);
            final MemoryRegion serverDst = pair.serverPd.allocate(PIECE, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final RecvRequest recv = new RecvRequest(1);
            assertEquals(QueuePair.OK, pair.client.postRecv(recv));
            assertEquals(QueuePair.OK, pair.server.postRecv(recv));
            final SendRequest write = new SendRequest(1);
            final long clientAlone = pair.clientTcp().counter(TcpCounter.ACKS_SENT_ALONE);
            final long serverAlone = pair.serverTcp().counter(TcpCounter.ACKS_SENT_ALONE);
            int clientSends = 0;
            int serverSends = 0;
            fill(clientSrc, 1);
            fill(serverSrc, -1);
            for (int r = 0; r < ROUNDS; r++)
            {
                // Only the stamps change per round: the answer follows the read within microseconds, as a ring's
                // next piece does (a full 256 KiB fill and check between them outlasted the event loop's tick, which
                // then wrote the held ACK alone).
                stamp(clientSrc, r);
                post(pair.client, write, clientSrc, serverDst, r);
                serverSends += awaitReceive(pair.serverCq, r);
                assertEquals(QueuePair.OK, pair.server.postRecv(recv));
                assertStamped(serverDst, r);

                stamp(serverSrc, -r);
                post(pair.server, write, serverSrc, clientDst, -r);
                clientSends += awaitReceive(pair.clientCq, -r);
                assertEquals(QueuePair.OK, pair.client.postRecv(recv));
                assertStamped(clientDst, -r);
            }
            clientSends += drainSends(pair.clientCq, ROUNDS - clientSends);
            serverSends += drainSends(pair.serverCq, ROUNDS - serverSends);
            assertEquals(ROUNDS, clientSends, "client's WRITEs completed");
            assertEquals(ROUNDS, serverSends, "server's WRITEs completed");
            assertFilled(serverDst, 1);
            assertFilled(clientDst, -1);

            // Without holding, each side wrote one ACK of its own per piece it read (ROUNDS each). Holding leaves the
            // first piece's (nothing sent before it) and the last's (no answer follows), and a few that a tick or an
            // empty poll released on a loaded machine.
            final long byClient = pair.clientTcp().counter(TcpCounter.ACKS_SENT_ALONE) - clientAlone;
            final long byServer = pair.serverTcp().counter(TcpCounter.ACKS_SENT_ALONE) - serverAlone;
            assertTrue(byClient <= ROUNDS / 4, "ACKs the client wrote on their own: " + byClient);
            assertTrue(byServer <= ROUNDS / 4, "ACKs the server wrote on their own: " + byServer);
        }
    }

    private static void post(final QueuePair qp, final SendRequest write, final MemoryRegion src,
        final MemoryRegion dst, final int tag)
    {
        write.clearSges().wrId(tag).opcode(Opcode.RDMA_WRITE_WITH_IMM).flags(SendRequest.SIGNALED).immediateData(tag)
            .sge(src, 0, PIECE).remote(dst.address(), dst.rkey());
        assertEquals(QueuePair.OK, qp.postSend(write));
    }

    /** Polls until the receive tagged {@code tag} arrives; returns how many send completions came with it. */
    private static int awaitReceive(final CompletionQueue cq, final int tag)
    {
        final CompletionBatch batch = new CompletionBatch(8);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int sends = 0;
        boolean received = false;
        while (!received && System.nanoTime() < deadline)
        {
            cq.poll(batch);
            for (int i = 0; i < batch.size(); i++)
            {
                assertEquals(WcStatus.SUCCESS, batch.status(i), WcStatus.name(batch.status(i)));
                if (Opcode.RECV_RDMA_WITH_IMM == batch.opcode(i))
                {
                    assertFalse(received, "only one receive is posted at a time");
                    assertEquals(tag, batch.immediateData(i), "receives in order");
                    assertEquals(PIECE, batch.byteLength(i));
                    received = true;
                }
                else
                {
                    assertEquals(Opcode.RDMA_WRITE_WITH_IMM, batch.opcode(i), "a send completion");
                    sends++;
                }
            }
        }
        if (!received)
        {
            throw new AssertionError("no receive " + tag + " within 20 s");
        }
        return sends;
    }

    private static int drainSends(final CompletionQueue cq, final int expected)
    {
        final CompletionBatch batch = TcpPair.await(cq, expected);
        for (int i = 0; i < batch.size(); i++)
        {
            assertEquals(WcStatus.SUCCESS, batch.status(i), WcStatus.name(batch.status(i)));
            assertEquals(Opcode.RDMA_WRITE_WITH_IMM, batch.opcode(i));
        }
        return batch.size();
    }

    private static void fill(final MemoryRegion region, final int seed)
    {
        for (int i = 0; i < PIECE; i += 8)
        {
            region.putLong(i, seed * 1_000_003L + i);
        }
    }

    /** Every word between the stamps holds what {@link #fill} wrote with {@code seed} at the other side. */
    private static void assertFilled(final MemoryRegion region, final int seed)
    {
        for (int i = 8; i < PIECE - 8; i += 8)
        {
            assertEquals(seed * 1_000_003L + i, region.getLong(i), "at " + i);
        }
    }

    private static void stamp(final MemoryRegion region, final int round)
    {
        region.putLong(0, round);
        region.putLong(PIECE - 8, round);
    }

    private static void assertStamped(final MemoryRegion region, final int round)
    {
        assertEquals(round, region.getLong(0), "first word of round " + round);
        assertEquals(round, region.getLong(PIECE - 8), "last word of round " + round);
    }
}
