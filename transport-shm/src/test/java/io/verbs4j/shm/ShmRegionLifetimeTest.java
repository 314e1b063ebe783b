// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Region lifetimes: closing a local region still named by posted requests (no crash: LOC_PROT_ERR), and the peer's
 * region mappings going away when the peer deregisters.
 */
@Timeout(30)
class ShmRegionLifetimeTest extends ShmPairFixture
{
    @Test
    void shouldFailPostedSendsOfAClosedRegionInsteadOfTouchingUnmappedMemory()
    {
        setUp(ShmTestSupport.context(dir(), true), (s, c) -> c.rnrTimerNs(TimeUnit.MILLISECONDS.toNanos(30)));
        final MemoryRegion src = clientPd.allocate(4 * MIB, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(4 * MIB, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        // No receive: the SEND is refused (RNR) and will be replayed from src; the WRITE waits behind the stall.
        check(client.postSend(new SendRequest(1).wrId(1).sge(src, 0, 4000)), client);
        // Until the server refused it (a fixed sleep was not enough on a loaded machine: a SEND that reached the
        // server after the receive below succeeded).
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (0 == ((ShmDevice)serverDevice).counter(ShmCounter.RNR_NAKS_SENT) && System.nanoTime() < deadline)
        {
            sleep(1);
        }
        assertTrue(((ShmDevice)serverDevice).counter(ShmCounter.RNR_NAKS_SENT) > 0, "the SEND was refused (RNR)");
        check(client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE).sge(src, 0, 2 * MIB)
            .remote(dst.address(), dst.rkey())), client);
        src.close();
        server.postRecv(new RecvRequest(1).wrId(3).sge(dst, 0, 4096));
        expect(clientCq, 1, WcStatus.LOC_PROT_ERR, Opcode.SEND);
        expect(clientCq, 2, WcStatus.WR_FLUSH_ERR, Opcode.RDMA_WRITE);
        assertEquals(QpState.ERROR, client.state());
    }

    @Test
    void shouldFailAReceiveIntoAClosedRegion()
    {
        setUpConnected();
        final MemoryRegion src = clientPd.allocate(MIB, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(MIB, Access.LOCAL_WRITE);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, MIB));
        dst.close();
        client.postSend(new SendRequest(1).wrId(2).sge(src, 0, 100_000));
        expect(serverCq, 1, WcStatus.LOC_PROT_ERR, Opcode.RECV);
        expect(clientCq, 2, WcStatus.REM_OP_ERR, Opcode.SEND);
    }

    @Test
    void shouldNotCrashWhenARegionIsClosedDuringCopies() throws Exception
    {
        setUpConnected();
        final MemoryRegion remote = serverPd.allocate(4 * MIB, Access.LOCAL_WRITE | Access.REMOTE_WRITE |
            Access.REMOTE_READ);
        for (int round = 0; round < 3; round++)
        {
            final MemoryRegion local = clientPd.allocate(4 * MIB, Access.LOCAL_WRITE);
            final AtomicBoolean stop = new AtomicBoolean();
            final QueuePair qp = client;
            final CompletableFuture<Integer> poster = CompletableFuture.supplyAsync(() ->
            {
                final SendRequest write = new SendRequest(1);
                int posted = 0;
                while (!stop.get() && QpState.RTS == qp.state())
                {
                    final int opcode = 0 == (posted & 1) ? Opcode.RDMA_WRITE : Opcode.RDMA_READ;
                    if (QueuePair.OK == qp.postSend(write.clearSges().wrId(posted).opcode(opcode)
                        .flags(SendRequest.SIGNALED).sge(local, 0, 4 * MIB).remote(remote.address(), remote.rkey())))
                    {
                        posted++;
                    }
                    else
                    {
                        Thread.onSpinWait();
                    }
                }
                return posted;
            });
            while (!poster.isDone())
            {
                clientCq.poll(batch, 64);
                batch.clear();
                if (System.nanoTime() % 7 == 0 || local.isOpen())
                {
                    sleep(2);
                    local.close();
                }
            }
            stop.set(true);
            assertTrue(poster.get(10, TimeUnit.SECONDS) > 0);
            int polled;
            do
            {
                batch.clear();
                polled = clientCq.poll(batch, 64);
                for (int i = 0; i < polled; i++)
                {
                    final int status = batch.status(i);
                    assertTrue(WcStatus.SUCCESS == status || WcStatus.LOC_PROT_ERR == status ||
                        WcStatus.WR_FLUSH_ERR == status, WcStatus.name(status));
                }
            }
            while (polled > 0);
            assertEquals(QpState.ERROR, client.state());
            reconnect();
        }
    }

    @Test
    void shouldWaitForTheProgressBeforeUnmappingAClosedRegion() throws Exception
    {
        setUpConnected();
        final ShmDevice device = (ShmDevice)serverDevice;
        final MemoryRegion region = serverPd.allocate(MIB, Access.LOCAL_WRITE);
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch leave = new CountDownLatch(1);
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            // Stands for a receive round copying into the region: the receive side has no lock of its own.
            final CompletableFuture<Boolean> holder = CompletableFuture.supplyAsync(() ->
            {
                final boolean[] held = new boolean[1];
                device.progressExclusive(() ->
                {
                    held[0] = device.holdsProgress() || !ShmProgress.class.desiredAssertionStatus();
                    inside.countDown();
                    awaitQuietly(leave);
                });
                return held[0];
            }, threads);
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            assertFalse(device.holdsProgress(), "another thread is inside the progress, not this one");
            final CompletableFuture<Void> closer = CompletableFuture.runAsync(region::close, threads);
            sleep(100);
            assertFalse(region.isOpen(), "closed to every copy that starts from now on");
            assertFalse(closer.isDone(), "the unmapping waits for the round under way");
            leave.countDown();
            closer.get(10, TimeUnit.SECONDS);
            assertTrue(holder.get(10, TimeUnit.SECONDS), "the holder saw itself inside the progress");
        }
        finally
        {
            leave.countDown();
            threads.shutdownNow();
        }
    }

    @Test
    void shouldNotCrashWhenAReceiveRegionIsClosedDuringReceives()
    {
        setUpConnected();
        final MemoryRegion src = clientPd.allocate(4 * MIB, Access.LOCAL_WRITE);
        fill(src, 0, 4 * MIB, 5);
        for (int round = 0; round < 4; round++)
        {
            final MemoryRegion dst = serverPd.allocate(4 * MIB, Access.LOCAL_WRITE);
            final int messages = 8;
            for (int i = 0; i < messages; i++)
            {
                check(server.postRecv(new RecvRequest(1).wrId(i).sge(dst, 0, 4 * MIB)), server);
            }
            for (int i = 0; i < messages; i++)
            {
                // Large SENDs: the server's progress copies each from the client's memory into dst.
                check(client.postSend(new SendRequest(1).wrId(i).flags(SendRequest.SIGNALED).sge(src, 0, 4 * MIB)),
                    client);
            }
            sleep(round & 1);
            dst.close();
            final int[] serverStatuses = drain(serverCq, messages);
            final int[] clientStatuses = drain(clientCq, messages);
            for (int i = 0; i < messages; i++)
            {
                assertTrue(WcStatus.SUCCESS == serverStatuses[i] || WcStatus.LOC_PROT_ERR == serverStatuses[i] ||
                    WcStatus.WR_FLUSH_ERR == serverStatuses[i], WcStatus.name(serverStatuses[i]));
                assertTrue(WcStatus.SUCCESS == clientStatuses[i] || WcStatus.REM_OP_ERR == clientStatuses[i] ||
                    WcStatus.WR_FLUSH_ERR == clientStatuses[i], WcStatus.name(clientStatuses[i]));
            }
            reconnect();
        }
        src.close();
    }

    /** @return the statuses of the next {@code count} completions of {@code cq}, in order. */
    private int[] drain(final io.verbs4j.CompletionQueue cq, final int count)
    {
        final int[] statuses = new int[count];
        for (int i = 0; i < count; i++)
        {
            ShmTestSupport.pollOne(cq, batch);
            statuses[i] = batch.status(0);
        }
        return statuses;
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void shouldUnmapPeerRegionsOnceThePeerDeregistersThem()
    {
        setUpConnected();
        final MemoryRegion local = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final ShmPeer peer = ((ShmQueuePair)client).peer();
        for (int i = 0; i < 20; i++)
        {
            final MemoryRegion remote = serverPd.allocate(65536, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            check(client.postSend(new SendRequest(1).wrId(i).opcode(Opcode.RDMA_WRITE).sge(local, 0, 4096)
                .remote(remote.address() + 4096, remote.rkey())), client);
            expect(clientCq, i, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
            remote.close();
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (peer.mappingCount() > 0)
        {
            assertTrue(System.nanoTime() < deadline, peer.mappingCount() + " mappings of deregistered regions left");
            sleep(5);
        }
        final MemoryRegion kept = serverPd.allocate(65536, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        for (int i = 0; i < 2; i++)
        {
            check(client.postSend(new SendRequest(1).wrId(100 + i).opcode(Opcode.RDMA_WRITE).sge(local, 0, 4096)
                .remote(kept.address(), kept.rkey())), client);
            expect(clientCq, 100 + i, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
            sleep(100);
            assertEquals(1, peer.mappingCount(), "a live region stays mapped");
        }
    }

    private void reconnect()
    {
        client.close();
        server.close();
        server = serverPd.createQueuePair(new io.verbs4j.QueuePairConfig(serverCq));
        client = clientPd.createQueuePair(new io.verbs4j.QueuePairConfig(clientCq));
        server.modify(QpState.INIT);
        client.modify(QpState.INIT);
        connect();
    }
}
