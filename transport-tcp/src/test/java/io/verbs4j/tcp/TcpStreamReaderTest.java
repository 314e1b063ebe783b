// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.MemoryRegion;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who reads a one-way bulk stream ({@link TcpReadPolicy#readAsksForMore()}): the receiver of a SEND stream polls
 * its completion queue all the time, yet with nothing of its own in flight its bulk reads and the ACKs it writes are
 * no sign of input to come, so its polls leave the stream to its I/O thread. Small frames, posts, and bulk frames
 * while this side awaits answers remain signs. Every byte of a polled stream arrives, in order.
 */
@Timeout(60)
class TcpStreamReaderTest
{
    private static final int MESSAGES = 256;
    private static final int SLOTS = 16;
    private static final int LENGTH = 256 * 1024;

    @Test
    void shouldLeaveASendStreamToTheReceiversIoThreadWhileItsApplicationPolls()
    {
        try (TcpPair pair = new TcpPair())
        {
            final MemoryRegion src = pair.clientPd.allocate((long)SLOTS * LENGTH, Access.LOCAL_WRITE);
            final MemoryRegion dst = pair.serverPd.allocate((long)SLOTS * LENGTH, Access.LOCAL_WRITE);
            for (int m = 0; m < SLOTS; m++)
            {
                pair.server.postRecv(new RecvRequest(1).wrId(m).sge(dst, (long)m * LENGTH, LENGTH));
            }
            final long polledBefore = pair.serverTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS);
            final long framesBefore = pair.serverTcp().counter(TcpCounter.FRAMES_RECEIVED);
            // Both applications busy-poll, as a stream's sender and receiver do: the sender keeps SLOTS messages in
            // flight, the receiver checks each message and reposts its receive.
            final CompletionBatch batch = new CompletionBatch(SLOTS);
            final SendRequest send = new SendRequest(1).flags(SendRequest.SIGNALED);
            final RecvRequest recv = new RecvRequest(1);
            final long deadline = System.nanoTime() + 30_000_000_000L;
            int posted = 0;
            int sent = 0;
            int received = 0;
            while (received < MESSAGES && System.nanoTime() < deadline)
            {
                while (posted < MESSAGES && posted - sent < SLOTS)
                {
                    final long slot = (long)(posted % SLOTS) * LENGTH;
                    src.putLong(slot, posted);
                    src.putLong(slot + LENGTH - 8, -posted);
                    pair.client.postSend(send.wrId(posted).clearSges().sge(src, slot, LENGTH));
                    posted++;
                }
                batch.clear();
                final int n = pair.serverCq.poll(batch);
                for (int i = 0; i < n; i++)
                {
                    assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(batch.status(i)));
                    final long slot = batch.wrId(i) * LENGTH;
                    assertEquals(received, dst.getLong(slot), "message order");
                    assertEquals(-received, dst.getLong(slot + LENGTH - 8));
                    received++;
                    pair.server.postRecv(recv.wrId(batch.wrId(i)).clearSges().sge(dst, slot, LENGTH));
                }
                batch.clear();
                sent += pair.clientCq.poll(batch);
            }
            assertEquals(MESSAGES, received);
            final long polled = pair.serverTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS) - polledBefore;
            final long frames = pair.serverTcp().counter(TcpCounter.FRAMES_RECEIVED) - framesBefore;
            assertTrue(frames >= MESSAGES, frames + " frames");
            assertTrue(polled * 4 < frames, polled + " of " + frames + " frames read by the polling application");
        }
    }

    @Test
    void shouldTakeOnlySmallFramesAndAnswersAsSignsOfInputToCome() throws InterruptedException
    {
        // Heartbeats (small frames, signs) every 15 s: none comes in between.
        try (TcpPair pair = new TcpPair(config -> { }, new DeviceContext().peerTimeoutNs(60_000_000_000L),
            new DeviceContext().peerTimeoutNs(60_000_000_000L)))
        {
            final TcpConnection receiver = ((TcpQueuePair)pair.server).connection();
            final MemoryRegion src = pair.clientPd.allocate(LENGTH, Access.LOCAL_WRITE);
            final MemoryRegion dst = pair.serverPd.allocate(LENGTH, Access.LOCAL_WRITE);
            // A bulk SEND to a side with nothing in flight: neither the read nor the ACK it writes is a sign.
            final long quiet = receiver.inputExpectedNs();
            Thread.sleep(2);
            pair.server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, LENGTH));
            pair.client.postSend(new SendRequest(1).wrId(1).flags(SendRequest.SIGNALED).sge(src, 0, LENGTH));
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.clientCq, 1).status(0)));
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.serverCq, 1).status(0)));
            assertEquals(quiet, receiver.inputExpectedNs(), "a one-way bulk frame and its ACK are no sign");

            // A small SEND is (a latency-bound exchange reads its answer from the polling thread).
            pair.server.postRecv(new RecvRequest(1).wrId(2).sge(dst, 0, 64));
            pair.client.postSend(new SendRequest(1).wrId(2).flags(SendRequest.SIGNALED).sge(src, 0, 64));
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.serverCq, 1).status(0)));
            final long afterSmall = receiver.inputExpectedNs();
            assertTrue(afterSmall - quiet > 0, "a small frame is a sign");

            // A post is, and so is a bulk frame soon after one, even once the post is answered (a collective's
            // rank posts every step and reads its peer's chunks in between).
            TcpPair.await(pair.clientCq, 1);
            pair.client.postRecv(new RecvRequest(1).wrId(3).sge(src, 0, 64));
            final long beforeOwnPost = System.nanoTime();
            pair.server.postSend(new SendRequest(1).wrId(3).flags(SendRequest.SIGNALED).sge(dst, 0, 8));
            final long posted = receiver.inputExpectedNs();
            assertTrue(posted - beforeOwnPost >= 0, "a post is a sign");
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.serverCq, 1).status(0)));
            pair.server.postRecv(new RecvRequest(1).wrId(4).sge(dst, 0, LENGTH));
            pair.client.postSend(new SendRequest(1).wrId(4).flags(SendRequest.SIGNALED).sge(src, 0, LENGTH));
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.serverCq, 1).status(0)));
            if (System.nanoTime() - posted < TcpReadPolicy.POSTED_RECENTLY_NS)
            {
                assertTrue(receiver.inputExpectedNs() - posted > 0, "a bulk frame soon after a post is a sign");
            }
        }
    }
}
