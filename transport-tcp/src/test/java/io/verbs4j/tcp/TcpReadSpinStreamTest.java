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
 * The target of a WRITE stream whose application never polls is read by its I/O thread, which stays awake after bulk
 * batches ({@link TcpReadSpin}); with the spin off it never does. Every byte arrives either way.
 */
@Timeout(60)
class TcpReadSpinStreamTest
{
    private static final int MESSAGES = 32;
    private static final int LENGTH = 1 << 20;

    @Test
    void shouldKeepTheTargetsIoThreadAwakeThroughAWriteStream()
    {
        try (TcpPair pair = new TcpPair())
        {
            assertTrue(streamWrites(pair) > 0, "bulk batches after which the target's I/O thread kept polling");
        }
    }

    @Test
    void shouldLetTheIoThreadSleepWhenTheSpinIsOff()
    {
        final DeviceContext server = new DeviceContext().property(TcpConfiguration.IO_READ_SPIN_PROP_NAME, "0");
        try (TcpPair pair = new TcpPair(config -> { }, new DeviceContext(), server))
        {
            assertEquals(0, streamWrites(pair));
        }
    }

    /** Streams {@link #MESSAGES} WRITEs of 1 MiB, checks every byte; returns the target's spins. */
    private static long streamWrites(final TcpPair pair)
    {
        final long total = (long)MESSAGES * LENGTH;
        final MemoryRegion src = pair.clientPd.allocate(total, Access.LOCAL_WRITE);
        final MemoryRegion dst = pair.serverPd.allocate(total, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        for (long i = 0; i < total; i += 8)
        {
            src.putLong(i, i * 31 + 7);
        }
        final long before = pair.serverTcp().counter(TcpCounter.IO_READ_SPINS);
        final SendRequest write = new SendRequest(1);
        for (int m = 0; m < MESSAGES; m++)
        {
            final long offset = (long)m * LENGTH;
            write.clearSges().wrId(m).opcode(Opcode.RDMA_WRITE)
                .flags(m == MESSAGES - 1 ? SendRequest.SIGNALED : 0).sge(src, offset, LENGTH)
                .remote(dst.address() + offset, dst.rkey());
            assertEquals(QueuePair.OK, pair.client.postSend(write));
        }
        final CompletionBatch done = TcpPair.await(pair.clientCq, 1);
        assertEquals(1, done.size());
        assertEquals(WcStatus.SUCCESS, done.status(0), WcStatus.name(done.status(0)));
        for (long i = 0; i < total; i += 8)
        {
            assertEquals(i * 31 + 7, dst.getLong(i), "at " + i);
        }
        final long spins = pair.serverTcp().counter(TcpCounter.IO_READ_SPINS) - before;
        src.close();
        dst.close();
        return spins;
    }
}
