// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.ByteBuffer;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.DirectExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Direct RMA on the posting thread: what it carries out (WRITE over several SGEs, READ, both atomics, on a mapped
 * peer region) and everything it must refuse with no byte touched, so that the ordinary path reports it.
 */
@Timeout(30)
class ShmDirectRmaTest extends ShmPairFixture
{
    private MemoryRegion local;
    private MemoryRegion remote;
    private ShmQueuePair qp;
    private ShmDirectRma direct;
    private final AbstractMemoryRegion[] regions = new AbstractMemoryRegion[4];
    private final long[] offsets = new long[4];
    private long nextPos;

    private void setUpRegions(final int remoteAccess)
    {
        setUp(ShmTestSupport.context(dir(), false), (s, c) -> { });
        local = clientPd.allocate(64 * 1024, Access.LOCAL_WRITE);
        remote = serverPd.allocate(64 * 1024, remoteAccess);
        qp = (ShmQueuePair)client;
        direct = new ShmDirectRma(qp.sender());
        nextPos = qp.sendQueue().posted();
    }

    private long execute(final SendRequest request)
    {
        for (int i = 0; i < request.sgeCount(); i++)
        {
            regions[i] = (AbstractMemoryRegion)local;
            offsets[i] = request.sgeAddress(i) - local.address();
        }
        // Called without the core's retirement, so the position is counted here (the send side steps past it).
        final long bytes = direct.execute(nextPos, request, regions, offsets);
        if (DirectExecutor.NOT_DIRECT != bytes)
        {
            nextPos++;
        }
        return bytes;
    }

    private static byte[] bytes(final MemoryRegion region, final long offset, final int length)
    {
        final byte[] out = new byte[length];
        region.getBytes(offset, out, 0, length);
        return out;
    }

    @Test
    void shouldGatherAWriteOverSeveralSgesIntoThePeerRegion()
    {
        setUpRegions(Access.ALL);
        fill(local, 0, 100, 1);
        fill(local, 1000, 28, 2);
        final SendRequest write = new SendRequest(4).opcode(Opcode.RDMA_WRITE).sge(local, 0, 100)
            .sge(local, 1000, 28).remote(remote.address() + 4000, remote.rkey());
        assertEquals(128, execute(write));
        check(remote, 4000, 100, 1);
        assertArrayEquals(bytes(local, 1000, 28), bytes(remote, 4100, 28));
    }

    @Test
    void shouldScatterAReadAndRunBothAtomics()
    {
        setUpRegions(Access.ALL);
        fill(remote, 512, 64, 3);
        final SendRequest read = new SendRequest(4).opcode(Opcode.RDMA_READ).sge(local, 0, 40).sge(local, 2000, 24)
            .remote(remote.address() + 512, remote.rkey());
        assertEquals(64, execute(read));
        assertArrayEquals(bytes(remote, 512, 40), bytes(local, 0, 40));
        assertArrayEquals(bytes(remote, 552, 24), bytes(local, 2000, 24));

        remote.putLong(8, 40);
        assertEquals(8, execute(new SendRequest(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(local, 64, 8)
            .remote(remote.address() + 8, remote.rkey()).atomic(2, 0)));
        assertEquals(40, local.getLong(64));
        assertEquals(42, remote.getLongVolatile(8));
        assertEquals(8, execute(new SendRequest(1).opcode(Opcode.ATOMIC_CMP_AND_SWP).sge(local, 72, 8)
            .remote(remote.address() + 8, remote.rkey()).atomic(42, 7)));
        assertEquals(42, local.getLong(72));
        assertEquals(7, remote.getLongVolatile(8));
    }

    @Test
    void shouldRefuseEveryFailedCheckWithTheTargetUntouched()
    {
        setUpRegions(Access.LOCAL_WRITE | Access.REMOTE_READ);
        fill(local, 0, 64, 4);
        final byte[] before = bytes(remote, 0, 256);
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 64);
        assertEquals(DirectExecutor.NOT_DIRECT, execute(write.remote(remote.address(), remote.rkey())),
            "no REMOTE_WRITE");
        assertEquals(DirectExecutor.NOT_DIRECT, execute(new SendRequest(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD)
            .sge(local, 0, 8).remote(remote.address(), remote.rkey()).atomic(1, 0)), "no REMOTE_ATOMIC");
        assertEquals(DirectExecutor.NOT_DIRECT, execute(write.remote(remote.address(), remote.rkey() ^ 0x5A5A)),
            "unknown rkey");
        final MemoryRegion writable = serverPd.allocate(4096, Access.ALL);
        assertEquals(DirectExecutor.NOT_DIRECT, execute(write.remote(writable.address() + 4096 - 32,
            writable.rkey())), "past the end");
        assertEquals(DirectExecutor.NOT_DIRECT, execute(write.remote(writable.address() - 8, writable.rkey())),
            "before the start");
        assertEquals(DirectExecutor.NOT_DIRECT, execute(new SendRequest(1).opcode(Opcode.RDMA_WRITE_WITH_IMM)
            .sge(local, 0, 64).remote(writable.address(), writable.rkey())), "WRITE_WITH_IMM needs a record");
        assertEquals(DirectExecutor.NOT_DIRECT, execute(new SendRequest(1).opcode(Opcode.SEND).sge(local, 0, 64)),
            "SEND needs a record");
        assertFalse(direct.mayExecute(Opcode.SEND), "a SEND is never asked for");
        assertFalse(direct.mayExecute(Opcode.SEND_WITH_IMM));
        assertFalse(direct.mayExecute(Opcode.RDMA_WRITE_WITH_IMM));
        assertTrue(direct.mayExecute(Opcode.RDMA_WRITE) && direct.mayExecute(Opcode.RDMA_READ) &&
            direct.mayExecute(Opcode.ATOMIC_FETCH_AND_ADD) && direct.mayExecute(Opcode.ATOMIC_CMP_AND_SWP));
        final MemoryRegion registered = serverPd.register(ByteBuffer.allocateDirect(4096), Access.ALL);
        assertEquals(DirectExecutor.NOT_DIRECT, execute(write.remote(registered.address(), registered.rkey())),
            "a registered buffer is served by its owner");
        assertArrayEquals(before, bytes(remote, 0, 256));
        assertArrayEquals(new byte[4096], bytes(writable, 0, 4096));
        assertArrayEquals(new byte[4096], bytes(registered, 0, 4096));
    }

    @Test
    void shouldRefuseWhenTheSendSideIsNotAtThePositionOrALocalRegionWasClosed()
    {
        setUpRegions(Access.ALL);
        fill(local, 0, 64, 5);
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 64)
            .remote(remote.address(), remote.rkey());
        regions[0] = (AbstractMemoryRegion)local;
        offsets[0] = 0;
        assertEquals(DirectExecutor.NOT_DIRECT, direct.execute(qp.sendQueue().posted() + 1, write, regions, offsets),
            "a position the send side has not reached");
        final MemoryRegion other = clientPd.allocate(4096, Access.LOCAL_WRITE);
        other.close();
        regions[0] = (AbstractMemoryRegion)other;
        assertEquals(DirectExecutor.NOT_DIRECT, direct.execute(qp.sendQueue().posted(), write, regions, offsets),
            "a local region closed after the post-time check");
        assertArrayEquals(new byte[64], bytes(remote, 0, 64));
    }

    @Test
    void shouldBeDoneWhenPostSendReturnsAndKeepSlotAccountingThroughPostSend()
    {
        setUpRegions(Access.ALL);
        final int depth = client.config().sendDepth();
        fill(local, 0, 64, 6);
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.INLINE)
            .sge(local, 0, 64).remote(remote.address(), remote.rkey());
        for (int i = 0; i < depth - 1; i++)
        {
            assertEquals(QueuePair.OK, client.postSend(write.wrId(i)));
        }
        check(remote, 0, 64, 6);
        fill(local, 0, 64, 7);
        assertEquals(QueuePair.OK, client.postSend(write.wrId(100).flags(SendRequest.SIGNALED | SendRequest.INLINE)));
        fill(local, 0, 64, 8);
        check(remote, 0, 64, 7);
        assertEquals(QueuePair.BACK_PRESSURED, client.postSend(write), "unsignaled requests hold their slots");
        expect(clientCq, 100, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
        assertEquals(64, batch.byteLength(0));
        assertEquals(depth, client.sendQueueFree());
    }

    @Test
    void shouldReportEveryRequestOnceAndInOrderWhenTheQueuePairFailsWhilePosting() throws InterruptedException
    {
        setUpRegions(Access.ALL);
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.INLINE)
            .sge(local, 0, 8).remote(remote.address(), remote.rkey());
        final java.util.List<String> seen = new java.util.ArrayList<>();
        final java.util.Set<Long> signaled = new java.util.HashSet<>();
        final java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        final Thread failer = new Thread(() ->
        {
            try
            {
                started.await();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            client.modify(io.verbs4j.QpState.ERROR);
        });
        failer.start();
        long firstPostedInError = -1;
        for (long wrId = 0; wrId < 20_000; wrId++)
        {
            final boolean signal = 0 == wrId % 4;
            final boolean inError = io.verbs4j.QpState.ERROR == client.state();
            int rc = client.postSend(write.wrId(wrId).flags(SendRequest.INLINE | (signal ? SendRequest.SIGNALED : 0)));
            while (QueuePair.BACK_PRESSURED == rc)
            {
                drain(seen);
                rc = client.postSend(write);
            }
            assertEquals(QueuePair.OK, rc);
            if (signal)
            {
                signaled.add(wrId);
            }
            if (inError && firstPostedInError < 0)
            {
                firstPostedInError = wrId;
            }
            if (100 == wrId)
            {
                started.countDown();
            }
            drain(seen);
        }
        failer.join();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (client.sendQueueFree() < client.config().sendDepth() && System.nanoTime() < deadline)
        {
            drain(seen);
        }
        drain(seen);
        long previous = -1;
        boolean failed = false;
        final java.util.Set<Long> reported = new java.util.HashSet<>();
        for (final String entry : seen)
        {
            final long wrId = Long.parseLong(entry.substring(0, entry.indexOf(':')));
            final String status = entry.substring(entry.indexOf(':') + 1);
            org.junit.jupiter.api.Assertions.assertTrue(wrId > previous, "in posting order, once each: " + entry +
                " after " + previous);
            previous = wrId;
            reported.add(wrId);
            if (!"SUCCESS".equals(status))
            {
                assertEquals("WR_FLUSH_ERR", status, "a failure by request is a flush");
                failed = true;
            }
            else
            {
                org.junit.jupiter.api.Assertions.assertFalse(failed, "no success after the first flush: " + wrId);
            }
        }
        org.junit.jupiter.api.Assertions.assertTrue(failed, "the queue pair failed while posting");
        org.junit.jupiter.api.Assertions.assertTrue(reported.containsAll(signaled), "every signaled request reported");
        for (long wrId = Math.max(0, firstPostedInError); wrId < 20_000; wrId++)
        {
            org.junit.jupiter.api.Assertions.assertTrue(reported.contains(wrId),
                "a request posted in ERROR is reported (flushed) even unsignaled: " + wrId);
        }
    }

    private void drain(final java.util.List<String> seen)
    {
        final int n = clientCq.poll(batch);
        for (int i = 0; i < n; i++)
        {
            seen.add(batch.wrId(i) + ":" + WcStatus.name(batch.status(i)));
        }
    }
}
