// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.ConnectionSegmentDescriptor;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.shm.protocol.MessageRecordFlyweight;
import io.verbs4j.shm.protocol.SegmentHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Acknowledgements carried by inline SENDs ({@code FrameDescriptor.FLAG_ACK}) and the send side's watch on the
 * peer's acknowledgement line ({@link ShmAckWatch}), end to end between two devices driven by polling (no progress
 * thread): a ping-pong takes its acknowledgements from the replies and stops reading the line; a SEND that gets no
 * reply still completes, from the line; the control block holds every acknowledgement as before; a carried value
 * beyond what was sent is a protocol error.
 */
@Timeout(60)
class ShmCarriedAckTest extends ShmPairFixture
{
    private static final int ROUNDS = 4 * ShmAckWatch.CARRIED_RUN;

    private MemoryRegion clientMr;
    private MemoryRegion serverMr;

    private void setUpPingPong()
    {
        setUp(ShmTestSupport.context(dir(), false), (s, c) -> { });
        clientMr = clientPd.allocate(4096, Access.LOCAL_WRITE);
        serverMr = serverPd.allocate(4096, Access.LOCAL_WRITE);
        for (int i = 0; i < 8; i++)
        {
            check(server.postRecv(new RecvRequest(1).wrId(1000 + i).sge(serverMr, 64L * i, 64)), server);
            check(client.postRecv(new RecvRequest(1).wrId(2000 + i).sge(clientMr, 64L * i, 64)), client);
        }
    }

    private SendRequest inlineSend(final MemoryRegion mr, final long wrId)
    {
        return new SendRequest(1).wrId(wrId).opcode(Opcode.SEND).flags(SendRequest.SIGNALED | SendRequest.INLINE)
            .sge(mr, 1024, 8);
    }

    /** One round trip: the client's SEND, the server's receive and its inline reply, the client's receive. */
    private void pingPong(final long round)
    {
        mrPutLong(clientMr, round);
        check(client.postSend(inlineSend(clientMr, round)), client);
        expectRecv(serverCq);
        check(server.postRecv(new RecvRequest(1).wrId(1000 + round).sge(serverMr, 0, 64)), server);
        mrPutLong(serverMr, ~round);
        check(server.postSend(inlineSend(serverMr, round)), server);
        // The client's poll takes the reply, and with it the acknowledgement of its own SEND.
        expectRecvAndSend(clientCq, round);
        check(client.postRecv(new RecvRequest(1).wrId(2000 + round).sge(clientMr, 0, 64)), client);
        expect(serverCq, round, WcStatus.SUCCESS, Opcode.SEND);
    }

    /** Polls until a receive and the SEND {@code wrId} have completed, in either order. */
    private void expectRecvAndSend(final io.verbs4j.CompletionQueue cq, final long wrId)
    {
        boolean recv = false;
        boolean send = false;
        while (!recv || !send)
        {
            ShmTestSupport.pollOne(cq, batch);
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(batch.status(0)));
            if (Opcode.RECV == batch.opcode(0))
            {
                recv = true;
            }
            else
            {
                assertEquals(Opcode.name(Opcode.SEND), Opcode.name(batch.opcode(0)));
                assertEquals(wrId, batch.wrId(0));
                send = true;
            }
        }
    }

    private static void mrPutLong(final MemoryRegion mr, final long value)
    {
        mr.putLong(1024, value);
    }

    private void expectRecv(final io.verbs4j.CompletionQueue cq)
    {
        ShmTestSupport.pollOne(cq, batch);
        assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(batch.status(0)));
        assertEquals(Opcode.name(Opcode.RECV), Opcode.name(batch.opcode(0)));
    }

    private static ShmAckWatch watch(final io.verbs4j.QueuePair qp)
    {
        return ((ShmQueuePair)qp).sender().ackWatch();
    }

    private static long ackLine(final io.verbs4j.QueuePair writer)
    {
        final ShmConnection c = ((ShmQueuePair)writer).connection();
        return c.segment.getLongVolatile(
            ConnectionSegmentDescriptor.controlOffset(c.side) + ConnectionSegmentDescriptor.ACKED_MSN_OFFSET);
    }

    @Test
    void shouldTakeAPingPongsAcknowledgementsFromTheRepliesAndStillWriteTheControlBlock()
    {
        setUpPingPong();
        assertFalse(watch(client).isCarried(), "a new connection reads the line");
        for (long round = 1; round <= ROUNDS; round++)
        {
            pingPong(round);
        }
        assertTrue(watch(client).isCarried(), "the client's acknowledgements came on the server's replies");
        assertEquals(ROUNDS, ackLine(server), "the server acknowledged every SEND on its control block too");
        assertEquals(ROUNDS, ackLine(client));
    }

    @Test
    void shouldCompleteASendThatGetsNoReplyFromTheLine()
    {
        setUpPingPong();
        for (long round = 1; round <= ROUNDS; round++)
        {
            pingPong(round);
        }
        assertTrue(watch(client).isCarried());
        // The server takes one more SEND and is never polled again: only its control block acknowledges it.
        check(client.postSend(inlineSend(clientMr, 99)), client);
        expectRecv(serverCq);
        expect(clientCq, 99, WcStatus.SUCCESS, Opcode.SEND);
        assertFalse(watch(client).isCarried(), "the line had what no record carried: back to reading it");
        assertEquals(ROUNDS + 1, ackLine(server));
    }

    @Test
    void shouldFailTheConnectionOnACarriedAcknowledgementBeyondWhatWasSent()
    {
        setUpPingPong();
        check(server.postSend(inlineSend(serverMr, 7)), server);
        // The client's side of the ring, written by hand: an inline SEND that acknowledges 1,000,000 messages.
        final ShmConnection peerSide = ((ShmQueuePair)client).connection();
        final int index = peerSide.out.tryClaim(FrameDescriptor.TYPE_SEND_INLINE, FrameDescriptor.HEADER_LENGTH + 8);
        assertTrue(index > 0);
        new MessageRecordFlyweight().wrap(peerSide.out.buffer().addressOffset() + index)
            .putHeader(SegmentHeader.VERSION, FrameDescriptor.FLAG_ACK, 0, 0, 8, 1_000_000);
        peerSide.out.commit(index);
        ShmTestSupport.pollOne(serverCq, batch);
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (QpState.ERROR != server.state() && System.nanoTime() < deadline)
        {
            serverCq.poll(batch, batch.capacity());
        }
        assertEquals(QpState.ERROR, server.state(), "an impossible acknowledgement is a protocol error");
    }
}
