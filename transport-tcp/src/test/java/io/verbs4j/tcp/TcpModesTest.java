// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The other configurations: NIO sockets, busy-polling I/O threads, a finite RNR budget.
 */
@Timeout(30)
class TcpModesTest
{
    @Test
    void shouldWorkOverNio()
    {
        try (TcpPair pair = new TcpPair(config -> { }, nio(), nio()))
        {
            assertEquals(false, pair.clientTcp().isEpoll());
            roundTrip(pair);
        }
    }

    @Test
    void shouldWorkInPollingMode()
    {
        final DeviceContext client = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll")
            .property(TcpConfiguration.DIRECT_WRITE_PROP_NAME, "true");
        final DeviceContext server = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll")
            .property(TcpConfiguration.DIRECT_WRITE_PROP_NAME, "true");
        try (TcpPair pair = new TcpPair(config -> { }, client, server))
        {
            roundTrip(pair);
        }
    }

    @Test
    void shouldDriveTheSocketFromCompletionQueuePollingInPollingMode()
    {
        // The client's I/O thread would read its socket only every 10 s: its CQ polling must do it. The server never
        // polls: its I/O thread's backstop serves the one-sided requests.
        final DeviceContext client = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll")
            .property(TcpConfiguration.DIRECT_WRITE_PROP_NAME, "true")
            .property(TcpConfiguration.POLL_BACKSTOP_PROP_NAME, "10000000").peerTimeoutNs(60_000_000_000L);
        final DeviceContext server = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll")
            .property(TcpConfiguration.DIRECT_WRITE_PROP_NAME, "true")
            .peerTimeoutNs(60_000_000_000L);
        try (TcpPair pair = new TcpPair(config -> { }, client, server))
        {
            final MemoryRegion local = pair.clientPd.allocate(4096, Access.ALL);
            final MemoryRegion remote = pair.serverPd.allocate(4096, Access.ALL);
            remote.putLong(64, 77);
            local.putLong(0, 42);
            final long start = System.nanoTime();
            for (int i = 0; i < 100; i++)
            {
                pair.client.postSend(new SendRequest(1).wrId(i).opcode(i % 2 == 0 ? Opcode.RDMA_WRITE :
                    Opcode.RDMA_READ).flags(SendRequest.SIGNALED).sge(local, i % 2 == 0 ? 0 : 8, 8)
                    .remote(remote.address() + (i % 2 == 0 ? 0 : 64), remote.rkey()));
                final CompletionBatch done = TcpPair.await(pair.clientCq, 1);
                assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(done.status(0)));
            }
            final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertEquals(42, remote.getLong(0));
            assertEquals(77, local.getLong(8));
            org.junit.jupiter.api.Assertions.assertTrue(elapsedMs < 5_000, "100 round trips took " + elapsedMs +
                " ms: the client's polling did not drive its socket");
            // The poster writes itself unless it finds the I/O lock taken (e.g. by a heartbeat tick): then it hands
            // over, which is correct but must stay the exception.
            final long wakeups = pair.clientTcp().counter(TcpCounter.PUMP_WAKEUPS);
            org.junit.jupiter.api.Assertions.assertTrue(wakeups <= 10, wakeups + " of 100 requests handed over");
        }
    }

    @Test
    void shouldBackOffTheBackstopWhileTheApplicationPollsAndServeTheSocketWhenItStops()
    {
        final DeviceContext client = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll");
        final DeviceContext server = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll");
        try (TcpPair pair = new TcpPair(config -> { }, client, server))
        {
            final TcpReadPolicy policy = ((TcpQueuePair)pair.client).connection().poller().policy();
            final long base = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(TcpConfiguration.POLL_BACKSTOP_DEFAULT));
            final long longest = base * TcpReadPolicy.TICK_MAX_BACKOFF;
            final MemoryRegion local = pair.clientPd.allocate(64, Access.ALL);
            final MemoryRegion remote = pair.serverPd.allocate(64, Access.ALL);
            // The client busy-polls its round trips: its backstop finds it polled and backs off to the bound.
            final long deadline = System.nanoTime() + 10_000_000_000L;
            long i = 0;
            while ((policy.tickPeriodNs() < longest || policy.backstopsSkipped() < 2) &&
                System.nanoTime() < deadline)
            {
                local.putLong(0, ++i);
                pair.client.postSend(new SendRequest(1).wrId(i).opcode(Opcode.RDMA_WRITE)
                    .flags(SendRequest.SIGNALED).sge(local, 0, 8).remote(remote.address(), remote.rkey()));
                assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.clientCq, 1).status(0)));
            }
            assertEquals(longest, policy.tickPeriodNs(), "the backstop backs off to its bound, no further");
            // At its bound the backstop re-runs one repeating task: ticks make no new task, so no allocation per tick.
            // A loaded machine can hold this thread off its polls for a tick, which resets the period (a new task,
            // then one per back-off step): so the count is taken over windows of 20 ticks, and one window without
            // such a reset must show it. A rescheduling tick would make one task per tick in every window.
            long ran = 0;
            long made = 0;
            for (int window = 0; window < 5 && !(ran >= 20 && made <= ran / 2) && System.nanoTime() < deadline;
                window++)
            {
                final long ranBefore = policy.ticksRun();
                final long madeBefore = policy.ticksMade();
                while (policy.ticksRun() < ranBefore + 20 && System.nanoTime() < deadline)
                {
                    local.putLong(0, ++i);
                    pair.client.postSend(new SendRequest(1).wrId(i).opcode(Opcode.RDMA_WRITE)
                        .flags(SendRequest.SIGNALED).sge(local, 0, 8).remote(remote.address(), remote.rkey()));
                    assertEquals(WcStatus.name(WcStatus.SUCCESS),
                        WcStatus.name(TcpPair.await(pair.clientCq, 1).status(0)));
                }
                ran = policy.ticksRun() - ranBefore;
                made = policy.ticksMade() - madeBefore;
            }
            assertTrue(ran >= 20 && made <= ran / 2, made + " tick tasks made for " + ran + " ticks (a tick that " +
                "finds nobody polled resets the period: four tasks; a rescheduling tick would make one per tick)");
            assertEquals(i, remote.getLong(0));

            // The client stops polling: the server's WRITE into it completes through the client's backstop alone, and
            // the backstop is back at its base period.
            remote.putLong(8, 99);
            pair.server.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED)
                .sge(remote, 8, 8).remote(local.address() + 8, local.rkey()));
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.serverCq, 1).status(0)));
            assertEquals(99, local.getLong(8));
            final long backAt = System.nanoTime() + 10_000_000_000L;
            while (policy.tickPeriodNs() != base && System.nanoTime() < backAt)
            {
                Thread.onSpinWait();
            }
            assertEquals(base, policy.tickPeriodNs(), "nobody polls: the backstop ticks at its base period");
        }
    }

    @Test
    void shouldGiveUpAfterTheRnrRetryBudget()
    {
        try (TcpPair pair = new TcpPair(config -> config.rnrRetry(2).rnrTimerNs(1_000_000), new DeviceContext(),
            new DeviceContext()))
        {
            final MemoryRegion src = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
            pair.client.postSend(new SendRequest(1).wrId(1).sge(src, 0, 8));
            final CompletionBatch done = TcpPair.await(pair.clientCq, 1);
            assertEquals(WcStatus.name(WcStatus.RNR_RETRY_EXC_ERR), WcStatus.name(done.status(0)));
            assertEquals(2, pair.clientTcp().counter(TcpCounter.RNR_RETRIES));
            assertEquals(3, pair.serverTcp().counter(TcpCounter.RNR_NAKS_SENT));
        }
    }

    private static DeviceContext nio()
    {
        return new DeviceContext().property(TcpConfiguration.TRANSPORT_PROP_NAME, "nio");
    }

    private static void roundTrip(final TcpPair pair)
    {
        final MemoryRegion local = pair.clientPd.allocate(1 << 20, Access.LOCAL_WRITE);
        final MemoryRegion remote = pair.serverPd.allocate(1 << 20, Access.ALL);
        for (int i = 0; i < 1 << 20; i += 8)
        {
            local.putLong(i, i);
        }
        pair.server.postRecv(new RecvRequest(1).wrId(1).sge(remote, 0, 1 << 16));
        pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 1 << 19)
            .remote(remote.address() + (1 << 19), remote.rkey()));
        pair.client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_READ).sge(local, 0, 1 << 19)
            .remote(remote.address() + (1 << 19), remote.rkey()));
        pair.client.postSend(new SendRequest(1).wrId(3).sge(local, 8, 1 << 16));
        final CompletionBatch done = TcpPair.await(pair.clientCq, 3);
        for (int i = 0; i < 3; i++)
        {
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(done.status(i)));
        }
        assertEquals(WcStatus.SUCCESS, TcpPair.await(pair.serverCq, 1).status(0));
        for (int i = 0; i < 1 << 19; i += 8)
        {
            assertEquals(i, local.getLong(i));
            assertEquals(i, remote.getLong((1 << 19) + i));
        }
        assertEquals(8, remote.getLong(0));
    }
}
