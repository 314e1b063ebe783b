// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

import io.verbs4j.Access;
import io.verbs4j.Capabilities;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Memory regions: registration arguments, keys, accessors, close, registered buffers, and regions over 2 GiB
 * used locally and remotely.
 */
public abstract class AbstractMemoryRegionConformanceTest extends AbstractConformanceTest
{
    private static final long THREE_GIB = 3L << 30;

    @Test
    void shouldAllocateZeroedMemoryWithTheAskedAttributes()
    {
        final MemoryRegion mr = allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_READ);
        assertEquals(4096, mr.length());
        assertEquals(Access.LOCAL_WRITE | Access.REMOTE_READ, mr.access());
        assertTrue(mr.isOpen());
        assertEquals(pd, mr.protectionDomain());
        final byte[] bytes = new byte[4096];
        mr.getBytes(0, bytes, 0, 4096);
        assertArrayEquals(new byte[4096], bytes);
    }

    @Test
    void shouldRefuseBadArguments()
    {
        assertThrows(IllegalArgumentException.class, () -> allocate(0, Access.LOCAL_WRITE));
        assertThrows(IllegalArgumentException.class, () -> allocate(-5, Access.LOCAL_WRITE));
        assertThrows(IllegalArgumentException.class, () -> allocate(64, 1 << 20));
        assertThrows(IllegalArgumentException.class, () -> allocate(64, Access.REMOTE_WRITE),
            "remote write without local write is refused as in verbs");
        assertThrows(IllegalArgumentException.class, () -> pd.register(ByteBuffer.allocate(64), Access.LOCAL_WRITE),
            "heap buffers cannot be registered");
        assertThrows(IllegalArgumentException.class,
            () -> allocate(device.capabilities().maxRegionLength() + 1, Access.LOCAL_WRITE));
    }

    @Test
    void shouldDrawUnguessableDistinctKeys()
    {
        final Set<Integer> keys = new HashSet<>();
        int sequentialSteps = 0;
        int previous = 0;
        for (int i = 0; i < 64; i++)
        {
            final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            assertTrue(keys.add(mr.rkey()), "rkeys are distinct");
            assertTrue(keys.add(mr.lkey()), "lkeys are distinct from every key");
            assertNotEquals(0, mr.rkey());
            if (Math.abs((long)mr.rkey() - previous) < 1024)
            {
                sequentialSteps++;
            }
            previous = mr.rkey();
        }
        assertTrue(sequentialSteps < 4, "rkeys must not be sequential");
    }

    @Test
    void shouldOfferTypedAndBulkAccessors()
    {
        final MemoryRegion mr = allocate(256, Access.LOCAL_WRITE);
        mr.putByte(0, (byte)7);
        mr.putInt(4, 0x01020304);
        mr.putLong(8, -2L);
        mr.putLongVolatile(16, 42);
        assertEquals(7, mr.getByte(0));
        assertEquals(0x01020304, mr.getInt(4));
        assertEquals(-2L, mr.getLong(8));
        assertEquals(42, mr.getAndAddLong(16, 8));
        assertTrue(mr.compareAndSetLong(16, 50, 60));
        assertFalse(mr.compareAndSetLong(16, 50, 70));
        assertEquals(60, mr.getLongVolatile(16));
        final ByteBuffer heap = ByteBuffer.wrap(pattern(32, 1));
        mr.putBytes(64, heap);
        assertEquals(32, heap.position());
        final ByteBuffer direct = ByteBuffer.allocateDirect(32);
        mr.getBytes(64, direct);
        direct.flip();
        final byte[] back = new byte[32];
        direct.get(back);
        assertArrayEquals(pattern(32, 1), back);
        final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        mr.wrap(view, 64, 32);
        assertEquals(pattern(32, 1)[5], view.getByte(5));
        final ByteBuffer bb = mr.byteBuffer(64, 32);
        assertEquals(32, bb.remaining());
        assertEquals(pattern(32, 1)[0], bb.get(0));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.getLong(250));
        assertThrows(IllegalArgumentException.class, () -> mr.getAndAddLong(3, 1));
    }

    @Test
    void shouldBeClosedOnceAndThenRefuseUse()
    {
        final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
        mr.close();
        mr.close();
        assertFalse(mr.isOpen());
        assertThrows(IllegalStateException.class, () -> mr.getLong(0));
    }

    @Test
    void shouldRegisterADirectBufferForLocalUse()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        buffer.position(1024).limit(3072);
        final MemoryRegion mr = pd.register(buffer, Access.LOCAL_WRITE);
        assertEquals(2048, mr.length());
        mr.putLong(0, 99);
        assertEquals(99, buffer.duplicate().order(java.nio.ByteOrder.nativeOrder()).getLong(1024));
        final QueuePair qp = connect(1, 64);
        post(qp, new SendRequest(1).sge(mr, 0, 8));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        final Peer.Completion received = peer.pollRecv(1, WAIT_MS)[0];
        assertEquals(99, java.nio.ByteBuffer.wrap(peer.recvData(received.wrId(), 8))
            .order(java.nio.ByteOrder.nativeOrder()).getLong());
    }

    @Test
    void shouldServeOneSidedOperationsOnAPeersRegisteredBuffer()
    {
        assumeTrue(device.capabilities().has(Capabilities.RMA_WRITE) &&
            device.capabilities().has(Capabilities.RMA_READ));
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.register(256 * 1024, Access.LOCAL_WRITE | Access.REMOTE_WRITE |
            Access.REMOTE_READ | Access.REMOTE_ATOMIC);
        final MemoryRegion mr = allocate(512 * 1024, Access.LOCAL_WRITE);
        final byte[] data = pattern(200_000, 41);
        mr.putBytes(0, data, 0, data.length);
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, data.length)
            .remote(remote.address() + 64, remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        assertArrayEquals(data, peer.read(remote.id(), 64, data.length));
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_READ).sge(mr, 256 * 1024, data.length)
            .remote(remote.address() + 64, remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        final byte[] back = new byte[data.length];
        mr.getBytes(256 * 1024, back, 0, back.length);
        assertArrayEquals(data, back);
        if (device.capabilities().has(Capabilities.ATOMIC))
        {
            post(qp, new SendRequest(1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(mr, 0, 8)
                .remote(remote.address(), remote.rkey()).atomic(5, 0));
            assertStatus(WcStatus.SUCCESS, awaitOne(cq));
            post(qp, new SendRequest(1).opcode(Opcode.ATOMIC_CMP_AND_SWP).sge(mr, 8, 8)
                .remote(remote.address(), remote.rkey()).atomic(5, 9));
            assertStatus(WcStatus.SUCCESS, awaitOne(cq));
            assertEquals(0, mr.getLong(0));
            assertEquals(5, mr.getLong(8));
            assertEquals(9, peer.getLongVolatile(remote.id(), 0));
        }
        // The target's checks still apply: past the end is refused and the buffer is untouched.
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 64)
            .remote(remote.address() + 256 * 1024 - 32, remote.rkey()));
        assertStatus(WcStatus.REM_ACCESS_ERR, awaitOne(cq));
        assertArrayEquals(new byte[32], peer.read(remote.id(), 256 * 1024 - 32, 32));
        peer.deregister(remote.id());
    }

    @Test
    void shouldWorkWithRegionsOverTwoGibibytes()
    {
        final MemoryRegion big = allocate(THREE_GIB, Access.LOCAL_WRITE);
        final long last = THREE_GIB - 8;
        big.putLong(last, 123456789L);
        assertEquals(123456789L, big.getLong(last));
        final long boundary = (2L << 30) - 16;
        final byte[] data = pattern(64, 77);
        big.putBytes(boundary, data, 0, 64);
        final byte[] back = new byte[64];
        big.getBytes(boundary, back, 0, 64);
        assertArrayEquals(data, back, "bulk copies cross mapping boundaries");
        assertEquals(THREE_GIB, big.length());
        big.close();
    }

    @Test
    void shouldWriteAndReadRemotelyBeyondTwoGibibytes()
    {
        final QueuePair qp = connect(0, 1);
        final Peer.RegionInfo remote = peer.allocate(THREE_GIB, Access.LOCAL_WRITE | Access.REMOTE_WRITE |
            Access.REMOTE_READ, false);
        final MemoryRegion mr = allocate(8192, Access.LOCAL_WRITE);
        final byte[] data = pattern(4096, 31);
        mr.putBytes(0, data, 0, 4096);
        final long offset = (5L << 29) - 2048;
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 4096)
            .remote(remote.address() + offset, remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        assertArrayEquals(data, peer.read(remote.id(), offset, 4096));
        post(qp, new SendRequest(1).opcode(Opcode.RDMA_READ).sge(mr, 4096, 4096)
            .remote(remote.address() + offset, remote.rkey()));
        assertStatus(WcStatus.SUCCESS, awaitOne(cq));
        final byte[] back = new byte[4096];
        mr.getBytes(4096, back, 0, 4096);
        assertArrayEquals(data, back);
        peer.deregister(remote.id());
    }
}
