// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The target of a WRITE stream whose application never polls is read by its I/O thread, which stays awake after bulk
 * batches ({@link TcpReadSpin}); with the spin off it never does, nor for a side that writes bulk itself. Every
 * byte arrives either way.
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

    @Test
    void shouldTellAnApplicationThatPostsBulkFromOneThatOnlyReadsOrPostsSmall()
    {
        // An I/O thread does not spin beside an application that posted bulk within POSTED_RECENTLY_NS (a collective's
        // rank, whose own writes and reductions need the core); a READ initiator's requests are small on the wire.
        try (TcpPair pair = new TcpPair())
        {
            final TcpReadPolicy policy = ((TcpQueuePair)pair.client).connection().poller().policy();
            final int length = 64 * 1024;
            final MemoryRegion local = pair.clientPd.allocate(length, Access.LOCAL_WRITE);
            final MemoryRegion remote = pair.serverPd.allocate(length, Access.LOCAL_WRITE | Access.REMOTE_READ |
                Access.REMOTE_WRITE);
            assertFalse(policy.postedBulkRecently(), "nothing posted yet");
            final long readPostedFrom = System.nanoTime();
            pair.client.postSend(new io.verbs4j.SendRequest(1).wrId(1).opcode(io.verbs4j.Opcode.RDMA_READ)
                .flags(io.verbs4j.SendRequest.SIGNALED).sge(local, 0, length).remote(remote.address(), remote.rkey()));
            assertRecent(policy.postedRecently(), readPostedFrom, "a READ was posted");
            assertFalse(policy.postedBulkRecently(), "a READ request carries no payload");
            pair.client.postSend(new io.verbs4j.SendRequest(1).wrId(2).opcode(io.verbs4j.Opcode.RDMA_WRITE)
                .flags(io.verbs4j.SendRequest.SIGNALED).sge(local, 0, 64).remote(remote.address(), remote.rkey()));
            assertFalse(policy.postedBulkRecently(), "a small WRITE is not bulk");
            final long bulkPostedFrom = System.nanoTime();
            pair.client.postSend(new io.verbs4j.SendRequest(1).wrId(3).opcode(io.verbs4j.Opcode.RDMA_WRITE)
                .flags(io.verbs4j.SendRequest.SIGNALED).sge(local, 0, length).remote(remote.address(), remote.rkey()));
            assertRecent(policy.postedBulkRecently(), bulkPostedFrom, "a 64 KiB WRITE is");
            assertEquals(3, TcpPair.await(pair.clientCq, 3).size());
        }
    }

    /**
     * "Recently" means within {@link TcpReadPolicy#POSTED_RECENTLY_NS} (2 ms) of now: a first post on a cold JVM
     * (its 64 KiB written in the interpreter) or a paused machine can take that long by itself, and then the sign has
     * rightly expired by the time it is read. Only a sign read within the window must be set.
     */
    private static void assertRecent(final boolean sign, final long postedFromNs, final String what)
    {
        assertTrue(sign || System.nanoTime() - postedFromNs > TcpReadPolicy.POSTED_RECENTLY_NS, what);
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
