// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionHandler;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Registered (unshareable) direct buffers: peers' WRITE / READ / atomics on them are served by the owner's progress
 * after its own checks; SENDs of any size from them go as fragments; one-sided operations whose local side is a
 * registered buffer work in every size.
 */
@Timeout(30)
class ShmServedAccessTest extends ShmPairFixture
{
    private static final int SIZE = 4 * MIB;

    private java.util.concurrent.BlockingQueue<long[]> serverCompletions;

    /** Like expect(serverCq, ...), or from the background poller when there is one; returns the immediate. */
    private int expectServer(final long wrId, final int status, final int opcode)
    {
        if (null == serverCompletions)
        {
            expect(serverCq, wrId, status, opcode);
            return batch.immediateData(0);
        }
        try
        {
            final long[] c = serverCompletions.poll(10, TimeUnit.SECONDS);
            org.junit.jupiter.api.Assertions.assertNotNull(c, "no server completion");
            assertEquals(wrId, c[0]);
            assertEquals(WcStatus.name(status), WcStatus.name((int)c[1]));
            assertEquals(Opcode.name(opcode), Opcode.name((int)c[2]));
            return (int)c[3];
        }
        catch (final InterruptedException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private MemoryRegion registered(final io.verbs4j.ProtectionDomain pd, final int length, final int access)
    {
        return pd.register(ByteBuffer.allocateDirect(length), access);
    }

    @Test
    void shouldServeWriteReadAndAtomicsOnAPeersRegisteredBuffer()
    {
        setUpConnected();
        runServedOperations();
    }

    @Test
    void shouldServeWithoutProgressThreadsWhenBothSidesPoll()
    {
        setUp(ShmTestSupport.context(dir(), false), (s, c) -> { });
        serverCompletions = new java.util.concurrent.LinkedBlockingQueue<>();
        final Thread serverPoller = new Thread(() ->
        {
            while (!Thread.currentThread().isInterrupted() && QpState.ERROR != server.state())
            {
                serverCq.poll((wrId, status, opcode, byteLength, imm, flags, qpNumber) ->
                    serverCompletions.add(new long[]{wrId, status, opcode, imm}), 16);
                Thread.onSpinWait();
            }
        });
        serverPoller.start();
        try
        {
            runServedOperations();
        }
        finally
        {
            serverPoller.interrupt();
        }
        try
        {
            serverPoller.join(5000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void runServedOperations()
    {
        final MemoryRegion remote = registered(serverPd, SIZE, Access.ALL);
        final MemoryRegion local = clientPd.allocate(SIZE, Access.LOCAL_WRITE);
        final int big = 2 * MIB + 12345;
        fill(local, 0, big, 1);

        // Small and fragmented WRITE (two SGEs), then a READ larger than the staging area into two SGEs.
        check(client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 8)
            .remote(remote.address() + 8, remote.rkey())), client);
        check(client.postSend(new SendRequest(2).wrId(2).opcode(Opcode.RDMA_WRITE).sge(local, 0, MIB)
            .sge(local, MIB, big - MIB).remote(remote.address() + 64, remote.rkey())), client);
        check(client.postSend(new SendRequest(2).wrId(3).opcode(Opcode.RDMA_READ).sge(local, 0, 1000)
            .sge(local, MIB + 5, big - 1000).remote(remote.address() + 64, remote.rkey())), client);
        expect(clientCq, 1, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
        expect(clientCq, 2, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
        assertEquals(big, batch.byteLength(0));
        expect(clientCq, 3, WcStatus.SUCCESS, Opcode.RDMA_READ);
        assertEquals(big, batch.byteLength(0));
        check(remote, 64, big, 1);
        final MemoryRegion expected = clientPd.allocate(SIZE, Access.LOCAL_WRITE);
        fill(expected, 0, big, 1);
        final byte[] want = new byte[big - 1000];
        final byte[] got = new byte[big - 1000];
        expected.getBytes(1000, want, 0, want.length);
        local.getBytes(MIB + 5, got, 0, got.length);
        org.junit.jupiter.api.Assertions.assertArrayEquals(want, got, "READ scattered into the second SGE");

        // Atomics, atomic against the owner's own CPU atomics.
        remote.putLong(0, 40);
        check(client.postSend(new SendRequest(1).wrId(4).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(local, 0, 8)
            .remote(remote.address(), remote.rkey()).atomic(2, 0)), client);
        check(client.postSend(new SendRequest(1).wrId(5).opcode(Opcode.ATOMIC_CMP_AND_SWP).sge(local, 8, 8)
            .remote(remote.address(), remote.rkey()).atomic(42, 7)), client);
        expect(clientCq, 4, WcStatus.SUCCESS, Opcode.ATOMIC_FETCH_AND_ADD);
        expect(clientCq, 5, WcStatus.SUCCESS, Opcode.ATOMIC_CMP_AND_SWP);
        assertEquals(40, local.getLong(0));
        assertEquals(42, local.getLong(8));
        assertEquals(7, remote.getLongVolatile(0));

        // WRITE_WITH_IMM: the receive completes after the data is in place; a SEND after a served WRITE follows it.
        final MemoryRegion recvBuffer = serverPd.allocate(4096, Access.LOCAL_WRITE);
        server.postRecv(new RecvRequest(1).wrId(10));
        server.postRecv(new RecvRequest(1).wrId(11).sge(recvBuffer, 0, 4096));
        fill(local, 0, 300_000, 9);
        check(client.postSend(new SendRequest(1).wrId(6).opcode(Opcode.RDMA_WRITE_WITH_IMM).immediateData(99)
            .sge(local, 0, 300_000).remote(remote.address() + MIB, remote.rkey())), client);
        check(client.postSend(new SendRequest(1).wrId(7).opcode(Opcode.RDMA_WRITE).sge(local, 0, 100_000)
            .remote(remote.address() + 2 * MIB, remote.rkey())), client);
        check(client.postSend(new SendRequest(1).wrId(8).sge(local, 0, 16)), client);
        expect(clientCq, 6, WcStatus.SUCCESS, Opcode.RDMA_WRITE_WITH_IMM);
        expect(clientCq, 7, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
        expect(clientCq, 8, WcStatus.SUCCESS, Opcode.SEND);
        assertEquals(99, expectServer(10, WcStatus.SUCCESS, Opcode.RECV_RDMA_WITH_IMM));
        check(remote, MIB, 300_000, 9);
        expectServer(11, WcStatus.SUCCESS, Opcode.RECV);
        check(remote, 2 * MIB, 100_000, 9);
    }

    @Test
    void shouldRefuseServedRequestsOutOfBoundsWithTheTargetUntouched()
    {
        setUpConnected();
        final MemoryRegion remote = registered(serverPd, 4096, Access.ALL);
        final MemoryRegion local = clientPd.allocate(MIB, Access.LOCAL_WRITE);
        fill(local, 0, 100_000, 3);
        check(client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 100_000)
            .remote(remote.address(), remote.rkey())), client);
        check(client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_WRITE).sge(local, 0, 8)
            .remote(remote.address(), remote.rkey())), client);
        expect(clientCq, 1, WcStatus.REM_ACCESS_ERR, Opcode.RDMA_WRITE);
        expect(clientCq, 2, WcStatus.WR_FLUSH_ERR, Opcode.RDMA_WRITE);
        for (int i = 0; i < 4096; i += 8)
        {
            assertEquals(0, remote.getLong(i), "target untouched");
        }
        awaitState(server, QpState.ERROR);
    }

    @Test
    void shouldRefuseServedReadWithoutAccessAndAtomicOfAnotherDomain()
    {
        setUpConnected();
        final MemoryRegion noRead = registered(serverPd, 4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final MemoryRegion local = clientPd.allocate(4096, Access.LOCAL_WRITE);
        check(client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_READ).sge(local, 0, 64)
            .remote(noRead.address(), noRead.rkey())), client);
        expect(clientCq, 1, WcStatus.REM_ACCESS_ERR, Opcode.RDMA_READ);
        closeAll();

        setUpConnected();
        final MemoryRegion otherPd = registered(serverDevice.allocateProtectionDomain(), 4096, Access.ALL);
        final MemoryRegion local2 = clientPd.allocate(4096, Access.LOCAL_WRITE);
        check(client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(local2, 0, 8)
            .remote(otherPd.address(), otherPd.rkey()).atomic(1, 0)), client);
        expect(clientCq, 2, WcStatus.REM_ACCESS_ERR, Opcode.ATOMIC_FETCH_AND_ADD);
        assertEquals(0, otherPd.getLongVolatile(0));
    }

    @Test
    void shouldSendAnySizeFromRegisteredBuffersAsFragmentsThroughRnr()
    {
        setUp(ShmTestSupport.context(dir(), true), (s, c) -> c.rnrTimerNs(TimeUnit.MILLISECONDS.toNanos(5)));
        final int length = 5 * MIB + 3;
        final MemoryRegion src = registered(clientPd, 6 * MIB, Access.LOCAL_WRITE);
        final MemoryRegion dstAllocated = serverPd.allocate(6 * MIB, Access.LOCAL_WRITE);
        final MemoryRegion dstRegistered = registered(serverPd, 6 * MIB, Access.LOCAL_WRITE);
        fill(src, 0, length, 5);
        check(client.postSend(new SendRequest(2).wrId(1).opcode(Opcode.SEND_WITH_IMM).immediateData(5)
            .sge(src, 0, MIB).sge(src, MIB, length - MIB)), client);
        check(client.postSend(new SendRequest(1).wrId(2).sge(src, 0, 40_000)), client);
        sleep(20);
        // Posted late: the first fragment was refused (RNR) and the whole message is sent again.
        server.postRecv(new RecvRequest(2).wrId(3).sge(dstAllocated, 0, 2 * MIB).sge(dstRegistered, 0, 4 * MIB));
        server.postRecv(new RecvRequest(1).wrId(4).sge(dstRegistered, 4 * MIB, 2 * MIB));
        expect(serverCq, 3, WcStatus.SUCCESS, Opcode.RECV);
        assertEquals(length, batch.byteLength(0));
        assertEquals(CompletionHandler.WITH_IMM, batch.flags(0));
        assertEquals(5, batch.immediateData(0));
        expect(serverCq, 4, WcStatus.SUCCESS, Opcode.RECV);
        assertEquals(40_000, batch.byteLength(0));
        expect(clientCq, 1, WcStatus.SUCCESS, Opcode.SEND_WITH_IMM);
        expect(clientCq, 2, WcStatus.SUCCESS, Opcode.SEND);
        final MemoryRegion expected = clientPd.allocate(6 * MIB, Access.LOCAL_WRITE);
        fill(expected, 0, length, 5);
        assertRange(expected, 0, dstAllocated, 0, 2 * MIB);
        assertRange(expected, 2 * MIB, dstRegistered, 0, length - 2 * MIB);
        assertRange(expected, 0, dstRegistered, 4 * MIB, 40_000);
    }

    @Test
    void shouldWriteAndReadFromRegisteredLocalBuffersToSharedRegions()
    {
        setUpConnected();
        final MemoryRegion local = registered(clientPd, 4 * MIB, Access.LOCAL_WRITE);
        final MemoryRegion remote = serverPd.allocate(4 * MIB, Access.ALL);
        fill(local, 0, 2 * MIB, 8);
        check(client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 2 * MIB)
            .remote(remote.address() + 7, remote.rkey())), client);
        check(client.postSend(new SendRequest(1).wrId(2).opcode(Opcode.RDMA_READ).sge(local, 2 * MIB, 2 * MIB)
            .remote(remote.address() + 7, remote.rkey())), client);
        expect(clientCq, 1, WcStatus.SUCCESS, Opcode.RDMA_WRITE);
        expect(clientCq, 2, WcStatus.SUCCESS, Opcode.RDMA_READ);
        check(remote, 7, 2 * MIB, 8);
        check(local, 2 * MIB, 2 * MIB, 8);
    }

    private static void assertRange(
        final MemoryRegion expected, final long expectedOffset, final MemoryRegion actual, final long actualOffset,
        final int length)
    {
        final byte[] want = new byte[length];
        final byte[] got = new byte[length];
        expected.getBytes(expectedOffset, want, 0, length);
        actual.getBytes(actualOffset, got, 0, length);
        org.junit.jupiter.api.Assertions.assertArrayEquals(want, got);
    }

    private static void awaitState(final io.verbs4j.QueuePair qp, final QpState state)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (state != qp.state())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("queue pair still " + qp.state());
            }
            sleep(1);
        }
    }
}
