// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import io.verbs4j.Access;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.SendRequest;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.WorkQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provider's SGE loops alone, on one device's regions and a bare work queue: which slots name only open or only
 * shared regions, the source list of a rendezvous record, and the direct path's copy walk in both directions.
 */
class ShmSgesTest
{
    private static Path dir;

    private final WorkQueue sq = new WorkQueue(true, 4, 4, 64);
    private final AbstractMemoryRegion[] regions = new AbstractMemoryRegion[4];
    private final long[] offsets = new long[4];
    private Device device;
    private ProtectionDomain pd;
    private MemoryRegion shared;
    private MemoryRegion otherShared;
    private MemoryRegion registered;

    @BeforeAll
    static void createDir()
    {
        dir = ShmTestSupport.newDir("sges");
    }

    @AfterAll
    static void deleteDir()
    {
        ShmTestSupport.deleteDir(dir);
    }

    @BeforeEach
    void open()
    {
        device = ShmTestSupport.open(dir, false);
        pd = device.allocateProtectionDomain();
        shared = pd.allocate(8192, Access.LOCAL_WRITE);
        otherShared = pd.allocate(8192, Access.LOCAL_WRITE);
        registered = pd.register(ByteBuffer.allocateDirect(8192), Access.LOCAL_WRITE);
    }

    @AfterEach
    void close()
    {
        device.close();
    }

    /** Reserves and fills a send slot as a post does, resolving each SGE to the region it lies in. */
    private long post(final SendRequest request)
    {
        for (int i = 0; i < request.sgeCount(); i++)
        {
            regions[i] = regionOf(request.sgeAddress(i));
            offsets[i] = request.sgeAddress(i) - regions[i].address();
        }
        final long pos = sq.reserve();
        sq.fillSend(pos, request, regions, offsets);
        return pos;
    }

    private AbstractMemoryRegion regionOf(final long address)
    {
        for (final MemoryRegion region : new MemoryRegion[] {shared, otherShared, registered})
        {
            if (address >= region.address() && address < region.address() + region.length())
            {
                return (AbstractMemoryRegion)region;
            }
        }
        throw new AssertionError("no region holds " + address);
    }

    @Test
    void shouldSeeEveryRegionOpenUntilOneIsClosed()
    {
        final long pos = post(new SendRequest(4).opcode(Opcode.SEND).sge(shared, 0, 100).sge(otherShared, 0, 50));
        assertTrue(ShmSges.allOpen(sq, pos));
        otherShared.close();
        assertFalse(ShmSges.allOpen(sq, pos));
    }

    @Test
    void shouldNotLookAtTheRegionsOfAnInlineSend()
    {
        final long pos = post(new SendRequest(4).opcode(Opcode.SEND).flags(SendRequest.INLINE)
            .sge(shared, 0, 32));
        shared.close();
        assertTrue(ShmSges.allOpen(sq, pos), "the payload was copied at post");
    }

    @Test
    void shouldCallASendSharedOnlyIfItHasSgesAndAllAreInSharedRegions()
    {
        final long both = post(new SendRequest(4).opcode(Opcode.SEND).sge(shared, 0, 10).sge(otherShared, 8, 10));
        assertTrue(ShmSges.allShared(sq, both, sq.sgeCount(both)));
        final long mixed = post(new SendRequest(4).opcode(Opcode.SEND).sge(shared, 0, 10).sge(registered, 0, 10));
        assertFalse(ShmSges.allShared(sq, mixed, sq.sgeCount(mixed)), "a registered buffer cannot be pulled");
        final long none = post(new SendRequest(4).opcode(Opcode.SEND));
        assertFalse(ShmSges.allShared(sq, none, 0), "nothing to pull");
    }

    @Test
    void shouldListEverySgeAsARendezvousSource()
    {
        final long pos = post(new SendRequest(4).opcode(Opcode.SEND).sge(shared, 16, 300)
            .sge(otherShared, 4096, 200).sge(shared, 1000, 1));
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final int at = 40;
        ShmSges.putSources(sq, pos, 3, buffer, at);
        final MemoryRegion[] expected = {shared, otherShared, shared};
        final long[] expectedOffsets = {16, 4096, 1000};
        final long[] expectedLengths = {300, 200, 1};
        for (int i = 0; i < 3; i++)
        {
            final int source = at + i * FrameDescriptor.SOURCE_LENGTH;
            assertEquals(expected[i].rkey(), buffer.getInt(source + FrameDescriptor.SOURCE_RKEY_OFFSET));
            assertEquals(0, buffer.getInt(source + FrameDescriptor.SOURCE_RKEY_OFFSET + 4));
            assertEquals(expectedOffsets[i], buffer.getLong(source + FrameDescriptor.SOURCE_OFFSET_OFFSET));
            assertEquals(expectedLengths[i], buffer.getLong(source + FrameDescriptor.SOURCE_LENGTH_OFFSET));
        }
    }

    @Test
    void shouldGatherSgesInOrderIntoTheOtherSideAndScatterThemBack()
    {
        final byte[] first = new byte[100];
        final byte[] second = new byte[28];
        for (int i = 0; i < first.length; i++)
        {
            first[i] = (byte)(i + 1);
        }
        for (int i = 0; i < second.length; i++)
        {
            second[i] = (byte)(-i - 1);
        }
        shared.putBytes(0, first, 0, first.length);
        otherShared.putBytes(500, second, 0, second.length);
        final SendRequest request = new SendRequest(4).opcode(Opcode.RDMA_WRITE).sge(shared, 0, 100)
            .sge(otherShared, 500, 28);
        regions[0] = (AbstractMemoryRegion)shared;
        offsets[0] = 0;
        regions[1] = (AbstractMemoryRegion)otherShared;
        offsets[1] = 500;
        final AbstractMemoryRegion remote = (AbstractMemoryRegion)pd.allocate(4096, Access.LOCAL_WRITE);

        ShmSges.copy(request, regions, offsets, remote.memory(), 1000, true);
        final byte[] out = new byte[128];
        remote.getBytes(1000, out, 0, 128);
        final byte[] expected = new byte[128];
        System.arraycopy(first, 0, expected, 0, 100);
        System.arraycopy(second, 0, expected, 100, 28);
        assertArrayEquals(expected, out);

        shared.putBytes(0, new byte[100], 0, 100);
        otherShared.putBytes(500, new byte[28], 0, 28);
        ShmSges.copy(request, regions, offsets, remote.memory(), 1000, false);
        final byte[] back = new byte[100];
        shared.getBytes(0, back, 0, 100);
        assertArrayEquals(first, back);
        final byte[] backSecond = new byte[28];
        otherShared.getBytes(500, backSecond, 0, 28);
        assertArrayEquals(second, backSecond);
    }
}
