// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reads from the poller in event mode ({@link TcpConfiguration#POLLER_READS_PROP_NAME}): a thread that polls its
 * completion queue reads its connection's socket itself, while the I/O thread keeps reading for a side that never
 * polls; with the switch off, only the I/O threads read.
 */
@Timeout(30)
class TcpPollerReadsTest
{
    private static final int ROUND_TRIPS = 200;

    @Test
    void shouldDeliverCompletionsToAPollingThreadAndLeaveTheIdleSideToTheIoThread()
    {
        try (TcpPair pair = new TcpPair(config -> { }, new DeviceContext(), new DeviceContext()))
        {
            writeAndReadBack(pair);
            final long polled = pair.clientTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS);
            final long received = pair.clientTcp().counter(TcpCounter.FRAMES_RECEIVED);
            assertTrue(polled > 0 && polled <= received, polled + " of " + received +
                " frames read by the polling thread");
            // The server's application never polls: its I/O thread read everything, through the read ownership.
            assertEquals(0, pair.serverTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS));
            assertTrue(pair.serverTcp().counter(TcpCounter.FRAMES_RECEIVED) >= ROUND_TRIPS);
            final TcpConnection server = ((TcpQueuePair)pair.server).connection();
            assertTrue(server.reads().loopReads() > 0, "the I/O thread's read loops take the driver lock");
            assertEquals(0, server.reads().pollerReads());
            // The connector's channel too (its handshake, at least, was read by the I/O thread's locked loop).
            assertTrue(((TcpQueuePair)pair.client).connection().reads().loopReads() > 0);
        }
    }

    @Test
    void shouldLeaveAllReadingToTheIoThreadsWhenSwitchedOff()
    {
        final DeviceContext off = new DeviceContext().property(TcpConfiguration.POLLER_READS_PROP_NAME, "false");
        try (TcpPair pair = new TcpPair(config -> { }, off,
            new DeviceContext().property(TcpConfiguration.POLLER_READS_PROP_NAME, "false")))
        {
            writeAndReadBack(pair);
            assertEquals(0, pair.clientTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS));
            assertEquals(0, ((TcpQueuePair)pair.client).connection().reads().loopReads(),
                "Netty's own read handle, untouched");
        }
    }

    @Test
    void shouldRefuseAValueThatIsNotABoolean()
    {
        final DeviceContext bad = new DeviceContext().property(TcpConfiguration.POLLER_READS_PROP_NAME, "yes");
        final IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> TcpConfiguration.of(bad));
        assertTrue(ex.getMessage().contains(TcpConfiguration.POLLER_READS_PROP_NAME), ex.getMessage());
    }

    /** WRITEs and READs, each completion awaited by busy-polling the client's completion queue. */
    private static void writeAndReadBack(final TcpPair pair)
    {
        final MemoryRegion local = pair.clientPd.allocate(4096, Access.ALL);
        final MemoryRegion remote = pair.serverPd.allocate(4096, Access.ALL);
        final CompletionBatch batch = new CompletionBatch(4);
        for (int i = 0; i < ROUND_TRIPS; i++)
        {
            local.putLong(0, i);
            final boolean write = i % 2 == 0;
            pair.client.postSend(new SendRequest(1).wrId(i).opcode(write ? Opcode.RDMA_WRITE : Opcode.RDMA_READ)
                .flags(SendRequest.SIGNALED).sge(local, write ? 0 : 8, 8).remote(remote.address(), remote.rkey()));
            final long deadline = System.nanoTime() + 10_000_000_000L;
            batch.clear();
            while (0 == pair.clientCq.poll(batch) && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertEquals(1, batch.size(), "completion of request " + i);
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(batch.status(0)));
            if (!write)
            {
                assertEquals(i - 1, local.getLong(8), "READ " + i + " returned the WRITE before it");
            }
        }
    }
}
