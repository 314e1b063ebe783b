// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.config.ThreadingMode;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

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
            // On a loaded machine the I/O thread can win every read of a round; a poller wins one soon after.
            final long deadline = System.nanoTime() + 20_000_000_000L;
            do
            {
                writeAndReadBack(pair);
            }
            while (0 == pair.clientTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS) &&
                System.nanoTime() < deadline);
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
    void shouldStepAsideAfterAnIdleSpellUntilThePollingSidePostsAgain()
    {
        // Heartbeats 15 s apart: nothing arrives unless asked for.
        final DeviceContext quiet = new DeviceContext().peerTimeoutNs(60_000_000_000L);
        try (TcpPair pair = new TcpPair(config -> { }, quiet, new DeviceContext().peerTimeoutNs(60_000_000_000L)))
        {
            writeAndReadBack(pair);
            final TcpConnection client = ((TcpQueuePair)pair.client).connection();
            final MemoryRegion inbox = pair.clientPd.allocate(64, Access.ALL);
            final MemoryRegion outbox = pair.serverPd.allocate(64, Access.ALL);
            pair.client.postRecv(new RecvRequest(1).wrId(7).sge(inbox, 0, 8));
            idle(pair);
            assertFalse(client.pollersReading(), "idle: the socket is left to the I/O thread");
            final long polledBefore = pair.clientTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS);
            outbox.putLong(0, 99);
            final long beforeSend = System.nanoTime();
            pair.server.postSend(new SendRequest(1).wrId(8).sge(outbox, 0, 8));
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.clientCq, 1).status(0)));
            assertEquals(99, inbox.getLong(0));
            assertEquals(polledBefore, pair.clientTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS),
                "the unsolicited SEND was read by the I/O thread");
            assertTrue(client.inputExpectedNs() - beforeSend >= 0, "data read by the I/O thread: pollers read again");
            idle(pair);
            assertFalse(client.pollersReading());
            final long beforePost = System.nanoTime();
            pair.client.postSend(new SendRequest(1).wrId(9).opcode(Opcode.RDMA_WRITE).sge(inbox, 0, 8)
                .remote(outbox.address(), outbox.rkey()));
            assertTrue(client.inputExpectedNs() - beforePost >= 0, "a post will be answered: pollers read again");
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.clientCq, 1).status(0)));
        }
    }

    @Test
    void shouldTakeTheSocketFromEpollWhilePollersReadAndGiveItBackWhenTheyStop() throws InterruptedException
    {
        try (TcpPair pair = new TcpPair(config -> { }, new DeviceContext(), new DeviceContext()))
        {
            final TcpSocketPoller poller = ((TcpQueuePair)pair.client).connection().poller();
            final TcpReadPolicy policy = poller.policy();
            final MemoryRegion local = pair.clientPd.allocate(64, Access.ALL);
            final MemoryRegion remote = pair.serverPd.allocate(64, Access.ALL);
            roundTripsUntilPollersOwnTheReads(pair, policy, local, remote);
            assertTrue(pair.clientTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS) > 1, "pollers read");
            awaitTrue(() -> policy.readsTaken() > 0, "pollers reading often take the socket out of epoll");

            // The application stops polling: within two ticks epoll reads again, and reads what arrives unasked.
            awaitTrue(() -> policy.readsGivenBack() > 0 && policy.epollReads(), "epoll reads again");
            final MemoryRegion inbox = pair.clientPd.allocate(64, Access.ALL);
            pair.client.postRecv(new RecvRequest(1).wrId(7).sge(inbox, 0, 8));
            final long loopReadsBefore = poller.reads().loopReads();
            remote.putLong(0, 42);
            pair.server.postSend(new SendRequest(1).wrId(8).sge(remote, 0, 8));
            awaitTrue(() -> poller.reads().loopReads() > loopReadsBefore, "the I/O thread read the SEND");
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.clientCq, 1).status(0)));
            assertEquals(42, inbox.getLong(0));
        }
    }

    @Test
    void shouldBackOffTheOwnershipTickWhilePollersKeepReadingAndStillGiveTheSocketBack() throws InterruptedException
    {
        try (TcpPair pair = new TcpPair(config -> { }, new DeviceContext(), new DeviceContext()))
        {
            final TcpReadPolicy policy = ((TcpQueuePair)pair.client).connection().poller().policy();
            final long base = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(TcpConfiguration.POLL_BACKSTOP_DEFAULT));
            final long longest = base * TcpReadPolicy.TICK_MAX_BACKOFF;
            final MemoryRegion local = pair.clientPd.allocate(64, Access.ALL);
            final MemoryRegion remote = pair.serverPd.allocate(64, Access.ALL);
            final CompletionBatch batch = new CompletionBatch(4);
            // Round trips (a poller reads each answer) until the tick has backed off all the way.
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (policy.tickPeriodNs() < longest && System.nanoTime() < deadline)
            {
                writeRoundTrip(pair, local, remote, batch);
            }
            assertEquals(longest, policy.tickPeriodNs(), "the period doubles up to its limit, no further");

            // The application stops polling: the socket still goes back to epoll, a backed-off tick or two later (on
            // a loaded machine it may have gone back already, between two of the round trips above).
            awaitTrue(() -> policy.readsGivenBack() > 0 && policy.epollReads(), () -> "epoll reads again: given " +
                "back " + policy.readsGivenBack() + ", taken " + policy.readsTaken() + ", epoll reads " +
                policy.epollReads() + ", tick " + policy.tickPeriodNs());
        }
    }

    @Test
    void shouldKeepTheSocketWhilePollersPollOftenWithNothingToReadAndReadItOnlyNowAndThen()
        throws InterruptedException
    {
        try (TcpPair pair = new TcpPair(config -> { }, new DeviceContext(), new DeviceContext()))
        {
            final TcpReadPolicy policy = ((TcpQueuePair)pair.client).connection().poller().policy();
            final MemoryRegion local = pair.clientPd.allocate(64, Access.ALL);
            final MemoryRegion remote = pair.serverPd.allocate(64, Access.ALL);
            roundTripsUntilPollersOwnTheReads(pair, policy, local, remote);
            assertTrue(policy.readsTaken() > 0, "pollers reading often take the socket out of epoll");

            // A waiter that keeps polling with nothing to read, for many ticks at the longest period: the reads stay
            // its own, and past the patience it reads the socket now and then, not on every poll. (Polling starts
            // at once: a test thread that paused here would lose the reads at the next tick, as it should.)
            final CompletionBatch batch = new CompletionBatch(4);
            final boolean ownedAtStart = !policy.epollReads();
            final long givenBack = policy.readsGivenBack();
            final long idleReadsBefore = policy.idleReads();
            final long start = System.nanoTime();
            final long spell = 20 * TcpReadPolicy.TICK_MAX_BACKOFF *
                TimeUnit.MICROSECONDS.toNanos(Long.parseLong(TcpConfiguration.POLL_BACKSTOP_DEFAULT));
            // A gap this long between two polls may leave a tick with no poll that counts (the throttled reads are
            // the polls that count, one per IDLE_READ_INTERVAL_NS).
            final long tooLong = TcpReadPolicy.POLLER_PATIENCE_NS - 2 * TcpReadPolicy.IDLE_READ_INTERVAL_NS;
            long polls = 0;
            long longGaps = 0;
            long last = start;
            long now = start;
            while (now - start < spell)
            {
                assertEquals(0, pair.clientCq.poll(batch));
                polls++;
                now = System.nanoTime();
                if (now - last >= tooLong)
                {
                    longGaps++;
                }
                last = now;
            }
            // Read before anything else: once this thread stops polling, the next tick may give the socket back.
            final long givenBackDuring = policy.readsGivenBack() - givenBack;
            final long idleReads = policy.idleReads() - idleReadsBefore;
            assertTrue(idleReads <= (now - start) / TcpReadPolicy.IDLE_READ_INTERVAL_NS + 1,
                idleReads + " reads in " + (now - start) / 1000 + " µs of " + polls + " polls");
            assertTrue(idleReads < polls, idleReads + " reads of " + polls + " polls");
            assertTrue(!ownedAtStart || idleReads > 0 || longGaps > 0,
                "the owning poller read the socket now and then");
            // The socket went back to epoll only if this thread was held up between two polls (a loaded machine, a
            // JIT or GC pause): a poller that keeps polling keeps the reads.
            if (givenBackDuring > 0)
            {
                assertTrue(longGaps > 0, "given back although no poll came later than " + tooLong / 1000 +
                    " µs after the previous one (" + polls + " polls)");
            }

            // The application stops polling: the socket goes back to epoll, which reads what arrives unasked.
            awaitTrue(() -> policy.readsGivenBack() > 0 && policy.epollReads(), "epoll reads again");
            final MemoryRegion inbox = pair.clientPd.allocate(64, Access.ALL);
            pair.client.postRecv(new RecvRequest(1).wrId(7).sge(inbox, 0, 8));
            remote.putLong(0, 43);
            pair.server.postSend(new SendRequest(1).wrId(8).sge(remote, 0, 8));
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(TcpPair.await(pair.clientCq, 1).status(0)));
            assertEquals(43, inbox.getLong(0));
        }
    }

    @Test
    void shouldGiveTheSocketBackToEpollAfterABulkReadStreamEvenWhilePollersPoll()
    {
        try (TcpPair pair = new TcpPair(config -> { }, new DeviceContext(), new DeviceContext()))
        {
            final TcpReadPolicy policy = ((TcpQueuePair)pair.client).connection().poller().policy();
            final MemoryRegion local = pair.clientPd.allocate(64 * 1024, Access.ALL);
            final MemoryRegion remote = pair.serverPd.allocate(64 * 1024, Access.ALL);
            final CompletionBatch batch = new CompletionBatch(4);
            // 64 KiB READs until the pollers, reading the responses often, take the reads.
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (0 == policy.readsTaken() && System.nanoTime() < deadline)
            {
                pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_READ).flags(SendRequest.SIGNALED)
                    .sge(local, 0, 64 * 1024).remote(remote.address(), remote.rkey()));
                batch.clear();
                while (0 == pair.clientCq.poll(batch))
                {
                    Thread.onSpinWait();
                }
                assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(batch.status(0)));
            }
            // On a loaded machine the I/O thread, awake between bulk batches, may read every response itself.
            assumeTrue(policy.readsTaken() > 0,
                "pollers never read the responses often enough to take the reads");
            // The stream stops; the application keeps polling. After bulk reads, polls alone do not keep the socket
            // (a READ stream's responses are read faster by the I/O thread, which stays awake between batches).
            final long giveBackDeadline = System.nanoTime() + 10_000_000_000L;
            while (!(policy.readsGivenBack() > 0 && policy.epollReads()) && System.nanoTime() < giveBackDeadline)
            {
                assertEquals(0, pair.clientCq.poll(batch));
            }
            assertTrue(policy.readsGivenBack() > 0 && policy.epollReads(),
                "given back to epoll while the application polled");
        }
    }

    @Test
    void shouldLeaveAReadTargetThatPollsRarelyToEpoll() throws Exception
    {
        try (TcpPair pair = new TcpPair(config -> { }, new DeviceContext(), new DeviceContext()))
        {
            final TcpSocketPoller target = ((TcpQueuePair)pair.server).connection().poller();
            final MemoryRegion local = pair.clientPd.allocate(64, Access.ALL);
            final MemoryRegion remote = pair.serverPd.allocate(64, Access.ALL);
            remote.putLong(0, 77);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicLong reads = new AtomicLong();
            final Thread initiator = new Thread(() ->
            {
                final CompletionBatch batch = new CompletionBatch(4);
                while (!stop.get())
                {
                    pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_READ)
                        .flags(SendRequest.SIGNALED).sge(local, 0, 8).remote(remote.address(), remote.rkey()));
                    batch.clear();
                    while (0 == pair.clientCq.poll(batch))
                    {
                        Thread.onSpinWait();
                    }
                    if (WcStatus.SUCCESS == batch.status(0) && 77 == local.getLong(0))
                    {
                        reads.incrementAndGet();
                    }
                }
            }, "read-initiator");
            initiator.start();
            try
            {
                // The target's application looks at its queue every 2 ms while READs keep coming: what such a poll
                // finds it reads, but never often enough to take the socket from epoll.
                final CompletionBatch none = new CompletionBatch(4);
                final long deadline = System.nanoTime() + 300_000_000L;
                while (System.nanoTime() < deadline)
                {
                    pair.serverCq.poll(none);
                    Thread.sleep(2);
                }
            }
            finally
            {
                stop.set(true);
                initiator.join(10_000);
            }
            assertTrue(reads.get() > 10, "READs completed: " + reads.get());
            assertEquals(0, target.policy().readsTaken(), "the rarely polling target left its socket to epoll (its " +
                "pollers read " + target.reads().pollerReads() + " times)");
            assertTrue(target.policy().epollReads());
        }
    }

    @Test
    void shouldKeepEpollReadingWhenPollersMayNotOwnTheReads()
    {
        final DeviceContext shared =
            new DeviceContext().property(TcpConfiguration.POLLER_OWNS_READS_PROP_NAME, "false");
        try (TcpPair pair = new TcpPair(config -> { }, shared, new DeviceContext()))
        {
            writeAndReadBack(pair);
            final TcpReadPolicy policy = ((TcpQueuePair)pair.client).connection().poller().policy();
            assertEquals(0, policy.readsTaken());
            assertTrue(policy.epollReads());
        }
    }

    /**
     * Round trips until pollers read often enough to own the reads: two reads with data within the patience of each
     * other ({@link TcpReadCadence}; on a loaded machine the I/O thread can win the first ones).
     */
    private static void roundTripsUntilPollersOwnTheReads(final TcpPair pair, final TcpReadPolicy policy,
        final MemoryRegion local, final MemoryRegion remote)
    {
        final CompletionBatch batch = new CompletionBatch(4);
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (0 == policy.readsTaken() && System.nanoTime() < deadline)
        {
            writeRoundTrip(pair, local, remote, batch);
        }
    }

    /** One signaled 8 B RDMA WRITE from the client, its completion polled (spinning) on the client. */
    private static void writeRoundTrip(final TcpPair pair, final MemoryRegion local, final MemoryRegion remote,
        final CompletionBatch batch)
    {
        pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED)
            .sge(local, 0, 8).remote(remote.address(), remote.rkey()));
        batch.clear();
        while (0 == pair.clientCq.poll(batch))
        {
            Thread.onSpinWait();
        }
        assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(batch.status(0)));
    }

    private static void awaitTrue(final java.util.function.BooleanSupplier condition, final String what)
        throws InterruptedException
    {
        awaitTrue(condition, () -> what);
    }

    private static void awaitTrue(final java.util.function.BooleanSupplier condition,
        final java.util.function.Supplier<String> what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(1);
        }
    }

    /**
     * Looks at an empty completion queue every millisecond, as an application between exchanges, past the pollers'
     * patience and then until the socket is back with the I/O thread: one ownership tick after the pollers stopped
     * polling often, whose period may have backed off while the traffic before kept them reading (at most
     * {@link TcpReadPolicy#TICK_MAX_BACKOFF} periods, so two such ticks; a loaded machine may run the I/O thread's
     * tick much later, hence the generous deadline).
     */
    private static void idle(final TcpPair pair)
    {
        final CompletionBatch batch = new CompletionBatch(4);
        final long start = System.nanoTime();
        final long end = start + 2 * TcpReadPolicy.POLLER_PATIENCE_NS;
        final long latest = start + 10_000_000_000L;
        final TcpConnection client = ((TcpQueuePair)pair.client).connection();
        while (System.nanoTime() < end || (client.pollersReading() && System.nanoTime() < latest))
        {
            assertEquals(0, pair.clientCq.poll(batch));
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError(ex);
            }
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
    void shouldLeaveTheSocketsToTheIoThreadsInTheDedicatedModeAndKeepEventModeInTheInvokerMode()
    {
        final DeviceContext dedicated = new DeviceContext().threadingMode(ThreadingMode.DEDICATED);
        try (TcpPair pair = new TcpPair(config -> { }, dedicated, new DeviceContext()))
        {
            writeAndReadBack(pair);
            assertEquals(0, pair.clientTcp().counter(TcpCounter.FRAMES_RECEIVED_BY_POLLERS),
                "a poll only takes completions");
            assertEquals(0, ((TcpQueuePair)pair.client).connection().poller().policy().readsTaken());
        }
        // The collectives open their devices with progressThread(false), INVOKER: on tcp that stays event mode with
        // poller reads (polling mode's backstop contended with the polling ranks for the driver lock).
        assertFalse(TcpConfiguration.of(new DeviceContext().threadingMode(ThreadingMode.INVOKER)).pollingMode());
        assertFalse(TcpConfiguration.of(new DeviceContext()).pollingMode());
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
