// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.ArrayList;
import java.util.List;

import io.verbs4j.Capabilities;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Opcode;
import io.verbs4j.PostList;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What {@link AbstractQueuePair} tells its provider for a post list, with a provider that only records: one
 * {@link AbstractQueuePair#transmitBatch} per accepted run (one publish), one {@code onRecvPosted} per receive run,
 * and a direct executor asked only while nothing of the list waits to be published.
 */
class PostListTest
{
    private final BareDevice device = new BareDevice(Capabilities.INLINE | Capabilities.INJECT, this::newQueuePair);
    private final CompletionQueue cq = device.createCompletionQueue(64);
    private final RecordingQueuePair qp = (RecordingQueuePair)device.allocateProtectionDomain()
        .createQueuePair(new QueuePairConfig(cq).sendDepth(8).recvDepth(8).maxInlineLength(16));
    private final List<String> events = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        device.close();
    }

    private static SendRequest request(final long wrId, final int opcode)
    {
        return new SendRequest(1).wrId(wrId).opcode(opcode);
    }

    @Test
    void shouldPublishTheAcceptedRunOnceAndTellTheProviderOnce()
    {
        qp.connect();
        final PostList<SendRequest> list = new PostList<>(8);
        for (int i = 0; i < 5; i++)
        {
            list.add(request(i, Opcode.SEND));
        }
        assertEquals(QueuePair.OK, qp.postSend(list));
        assertEquals(5, list.accepted());
        assertEquals(List.of("transmitBatch 0..4"), events);
        assertEquals(5, qp.sendQueue().posted());
        for (long pos = 0; pos < 5; pos++)
        {
            assertEquals(pos, qp.sendQueue().take(), "every request of the run is published, in order");
        }
    }

    @Test
    void shouldCallTransmitAloneForAOneRequestRunAndNothingForAnEmptyList()
    {
        qp.connect();
        assertEquals(QueuePair.OK, qp.postSend(new PostList<SendRequest>(2)));
        assertEquals(List.of(), events);
        assertEquals(QueuePair.OK, qp.postSend(new PostList<SendRequest>(2).add(request(1, Opcode.SEND))));
        assertEquals(List.of("transmit 0"), events);
    }

    @Test
    void shouldPublishWhatWasAcceptedBeforeARefusal()
    {
        qp.connect();
        final PostList<SendRequest> list = new PostList<SendRequest>(4)
            .add(request(1, Opcode.SEND)).add(request(2, Opcode.SEND)).add(request(3, 99)).add(request(4, Opcode.SEND));
        assertEquals(QueuePair.INVALID_REQUEST, qp.postSend(list));
        assertEquals(2, list.accepted());
        assertEquals(QueuePair.INVALID_REQUEST, list.status());
        assertEquals(List.of("transmitBatch 0..1"), events);
        assertEquals(2, qp.sendQueue().posted());
        list.removeAccepted();
        assertEquals(2, list.size());
        assertEquals(99, list.request(0).opcode());
        assertThrows(IndexOutOfBoundsException.class, () -> list.request(2));
    }

    @Test
    void shouldCarryOutDirectlyOnlyUntilARequestOfTheListWaitsToBePublished()
    {
        qp.connect();
        final List<Long> askedAt = new ArrayList<>();
        qp.installDirect((pos, request, regions, offsets) ->
        {
            askedAt.add(pos);
            return Opcode.RDMA_WRITE == request.opcode() ? 0 : DirectExecutor.NOT_DIRECT;
        });
        final PostList<SendRequest> list = new PostList<SendRequest>(4).add(request(1, Opcode.RDMA_WRITE))
            .add(request(2, Opcode.RDMA_WRITE)).add(request(3, Opcode.SEND)).add(request(4, Opcode.RDMA_WRITE));
        assertEquals(QueuePair.OK, qp.postSend(list));
        assertEquals(List.of(0L, 1L, 2L), askedAt, "never asked for request 4: request 3 is not published yet");
        assertEquals(List.of("transmitBatch 2..3"), events);
    }

    @Test
    void shouldFailALocalErrorAloneAndFlushWhatFollowsIt()
    {
        qp.connect();
        final PostList<SendRequest> list = new PostList<SendRequest>(4).add(request(1, Opcode.SEND))
            .add(request(2, Opcode.SEND).sge(0x1000, 8, 12345)).add(request(3, Opcode.SEND));
        assertEquals(QueuePair.OK, qp.postSend(list), "a bad lkey is a completion error, not a refusal");
        assertEquals(3, list.accepted());
        assertEquals(QpState.ERROR, qp.state());
        assertEquals(List.of("transmit 0", "error"), events);
        final List<String> seen = new ArrayList<>();
        cq.poll((wrId, status, opcode, len, imm, flags, qpn) -> seen.add(wrId + ":" + WcStatus.name(status)), 16);
        assertEquals(List.of("1:WR_FLUSH_ERR", "2:LOC_PROT_ERR", "3:WR_FLUSH_ERR"), seen);
    }

    @Test
    void shouldCompleteAnInjectOrInlineSendWithABadLkeyWithALocalProtectionError()
    {
        qp.connect();
        assertEquals(QueuePair.OK, qp.postSend(request(1, Opcode.SEND).flags(SendRequest.INJECT)
            .sge(0x1000, 8, 12345)));
        assertEquals(QueuePair.OK, qp.postSend(request(2, Opcode.SEND).flags(SendRequest.INLINE)
            .sge(0x1000, 8, 12345)));
        final List<String> seen = new ArrayList<>();
        cq.poll((wrId, status, opcode, len, imm, flags, qpn) -> seen.add(wrId + ":" + WcStatus.name(status)), 16);
        assertEquals(List.of("1:LOC_PROT_ERR", "2:LOC_PROT_ERR"), seen, "nothing is copied from a bad SGE");
        assertEquals(QpState.ERROR, qp.state());
    }

    @Test
    void shouldRefuseAnInjectWhereTheDeviceDoesNotAdvertiseIt()
    {
        final BareDevice inlineOnly = new BareDevice(Capabilities.INLINE, this::newQueuePair);
        try
        {
            final CompletionQueue otherCq = inlineOnly.createCompletionQueue(16);
            final RecordingQueuePair other = (RecordingQueuePair)inlineOnly.allocateProtectionDomain()
                .createQueuePair(new QueuePairConfig(otherCq).sendDepth(4).recvDepth(4).maxInlineLength(16));
            other.connect();
            assertEquals(QueuePair.NOT_SUPPORTED, other.postSend(request(1, Opcode.SEND).flags(SendRequest.INJECT)));
            assertEquals(QueuePair.OK, other.postSend(request(2, Opcode.SEND).flags(SendRequest.INLINE)));
        }
        finally
        {
            inlineOnly.close();
        }
    }

    @Test
    void shouldRefuseAWholeListInTheWrongState()
    {
        final PostList<SendRequest> sends = new PostList<SendRequest>(1).add(request(1, Opcode.SEND));
        assertEquals(QueuePair.INVALID_STATE, qp.postSend(sends));
        assertEquals(0, sends.accepted());
        final PostList<RecvRequest> recvs = new PostList<RecvRequest>(1).add(new RecvRequest(1));
        assertEquals(QueuePair.INVALID_STATE, qp.postRecv(recvs));
        qp.close();
        assertEquals(QueuePair.CLOSED, qp.postSend(sends));
        assertEquals(QueuePair.CLOSED, qp.postRecv(recvs));
        assertEquals(List.of("error"), events);
    }

    @Test
    void shouldPublishAReceiveRunOnceAndStopAtAFullQueue()
    {
        qp.modify(QpState.INIT);
        final PostList<RecvRequest> list = new PostList<>(10);
        for (int i = 0; i < 10; i++)
        {
            list.add(new RecvRequest(1).wrId(i));
        }
        assertEquals(QueuePair.BACK_PRESSURED, qp.postRecv(list));
        assertEquals(8, list.accepted());
        assertEquals(List.of("recvPosted"), events);
        for (long pos = 0; pos < 8; pos++)
        {
            assertEquals(pos, qp.takeRecv());
        }
    }

    private AbstractQueuePair newQueuePair(final AbstractProtectionDomain pd, final QueuePairConfig config,
        final int qpNumber)
    {
        return new RecordingQueuePair(pd, config, qpNumber);
    }

    private final class RecordingQueuePair extends AbstractQueuePair
    {
        RecordingQueuePair(final AbstractProtectionDomain pd, final QueuePairConfig config, final int qpNumber)
        {
            super(pd, config, qpNumber);
        }

        void connect()
        {
            moveToRts();
        }

        void installDirect(final DirectExecutor executor)
        {
            installDirectExecutor(executor);
        }

        protected void transmit(final long pos)
        {
            events.add("transmit " + pos);
        }

        protected void transmitBatch(final long firstPos, final long lastPos)
        {
            events.add("transmitBatch " + firstPos + ".." + lastPos);
        }

        protected void onRecvPosted()
        {
            events.add("recvPosted");
        }

        protected void onEnterError(final QpState previous)
        {
            events.add("error");
        }

        protected void onReset()
        {
        }

        protected void onClose()
        {
        }
    }
}
