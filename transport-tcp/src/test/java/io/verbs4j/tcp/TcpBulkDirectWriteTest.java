// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who writes a bulk request (more than 16 KiB of payload): the posting thread while the window is mostly empty
 * ({@link TcpDirectPump#BULK_DIRECT_SHARE}), the I/O thread for a stream, or always the I/O thread when
 * {@link TcpConfiguration#DIRECT_WRITE_MAX_BYTES_PROP_NAME} is below the payload. Every byte arrives either way.
 */
@Timeout(60)
class TcpBulkDirectWriteTest
{
    private static final int CHUNK = 256 * 1024;
    private static final int ROUNDS = 10;

    @Test
    void shouldWriteBulkRequestsIntoAnIdleWindowFromThePostingThread()
    {
        try (TcpPair pair = new TcpPair())
        {
            final long direct = writeOneAtATime(pair);
            // The I/O thread may hold the driver lock when a post comes (a heartbeat), and then writes that one.
            assertTrue(direct >= ROUNDS / 2, "bulk requests written by the posting thread: " + direct);
        }
    }

    @Test
    void shouldLeaveBulkRequestsToTheIoThreadAboveTheConfiguredMaximum()
    {
        final DeviceContext client = new DeviceContext()
            .property(TcpConfiguration.DIRECT_WRITE_MAX_BYTES_PROP_NAME, Integer.toString(16 * 1024));
        try (TcpPair pair = new TcpPair(config -> { }, client, new DeviceContext()))
        {
            assertEquals(0, writeOneAtATime(pair), "no bulk request written by the posting thread");
        }
    }

    @Test
    void shouldLeaveAStreamOfBulkRequestsToTheIoThread()
    {
        final int messages = 16;
        final int length = 1 << 20;
        try (TcpPair pair = new TcpPair())
        {
            final MemoryRegion src = pair.clientPd.allocate((long)messages * length, Access.LOCAL_WRITE);
            final MemoryRegion dst = pair.serverPd.allocate((long)messages * length,
                Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            for (long i = 0; i < (long)messages * length; i += 8)
            {
                src.putLong(i, i * 13 + 1);
            }
            final long directBefore = pair.clientTcp().counter(TcpCounter.FRAMES_SENT_DIRECT);
            final long wakeupsBefore = pair.clientTcp().counter(TcpCounter.PUMP_WAKEUPS);
            pair.writeStream(src, dst, messages, length);
            final long direct = pair.clientTcp().counter(TcpCounter.FRAMES_SENT_DIRECT) - directBefore;
            assertTrue(direct < messages / 2, "a stream goes through the I/O thread; written by the poster: " + direct);
            assertTrue(pair.clientTcp().counter(TcpCounter.PUMP_WAKEUPS) > wakeupsBefore, "the I/O thread was woken");
            for (long i = 0; i < (long)messages * length; i += 8)
            {
                assertEquals(i * 13 + 1, dst.getLong(i), "at " + i);
            }
            src.close();
            dst.close();
        }
    }

    /** {@link #ROUNDS} signaled bulk WRITEs, each awaited; returns how many the posting thread wrote. */
    private static long writeOneAtATime(final TcpPair pair)
    {
        final MemoryRegion src = pair.clientPd.allocate(CHUNK, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(CHUNK, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final long before = pair.clientTcp().counter(TcpCounter.FRAMES_SENT_DIRECT);
        final SendRequest write = new SendRequest(1);
        for (int r = 0; r < ROUNDS; r++)
        {
            for (int i = 0; i < CHUNK; i += 8)
            {
                src.putLong(i, r * 1_000_003L + i);
            }
            write.clearSges().wrId(r).opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED).sge(src, 0, CHUNK)
                .remote(dst.address(), dst.rkey());
            assertEquals(QueuePair.OK, pair.client.postSend(write));
            final CompletionBatch done = TcpPair.await(pair.clientCq, 1);
            assertEquals(1, done.size());
            assertEquals(WcStatus.SUCCESS, done.status(0), WcStatus.name(done.status(0)));
            for (int i = 0; i < CHUNK; i += 8)
            {
                assertEquals(r * 1_000_003L + i, dst.getLong(i), "round " + r + " at " + i);
            }
        }
        final long direct = pair.clientTcp().counter(TcpCounter.FRAMES_SENT_DIRECT) - before;
        src.close();
        dst.close();
        return direct;
    }
}
