// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
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
        pair.writeStream(src, dst, MESSAGES, LENGTH);
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
