// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.ByteBuffer;

import io.verbs4j.Access;
import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The one SGE walk behind every copy to or from a work-queue slot: ranges that start and end inside SGEs, SGEs that
 * cross memory chunks, native memory or region memory on the other side, and the inline copy of a send.
 */
class WorkQueueSgeWalkTest
{
    private static final int CHUNK_SHIFT = 6;
    private final ByteBuffer[] chunks = new ByteBuffer[4];
    private final RegionMemory chunked;
    private final AbstractMemoryRegion region;
    private final ByteBuffer flat = ByteBuffer.allocateDirect(256);
    private final long flatAddress = BufferUtil.address(flat);
    private final RegionMemory flatMemory = RegionMemory.contiguous(flatAddress, 256, flat);

    WorkQueueSgeWalkTest()
    {
        final long[] addresses = new long[chunks.length];
        for (int i = 0; i < chunks.length; i++)
        {
            chunks[i] = ByteBuffer.allocateDirect(1 << CHUNK_SHIFT);
            addresses[i] = BufferUtil.address(chunks[i]);
        }
        chunked = RegionMemory.chunked(addresses, CHUNK_SHIFT, 256, chunks);
        region = new AbstractMemoryRegion(null, chunked, 0x1000, 1, 2, Access.LOCAL_WRITE)
        {
            protected void release()
            {
            }
        };
        for (int i = 0; i < 256; i++)
        {
            UnsafeApi.putByte(chunked.addressOf(i), (byte)i);
        }
    }

    /** SGEs [10, 40) [60, 110) [200, 220): 100 bytes, the second crossing a chunk boundary (64). */
    private long post(final WorkQueue wq, final int flags)
    {
        final SendRequest request = new SendRequest(3).opcode(Opcode.SEND).flags(flags)
            .sge(0x1000 + 10, 30, 1).sge(0x1000 + 60, 50, 1).sge(0x1000 + 200, 20, 1);
        final long pos = wq.reserve();
        wq.fillSend(pos, request, new AbstractMemoryRegion[]{region, region, region}, new long[]{10, 60, 200});
        wq.publish(pos);
        return pos;
    }

    private static byte[] expectedPayload()
    {
        final byte[] out = new byte[100];
        for (int i = 0; i < 30; i++)
        {
            out[i] = (byte)(10 + i);
        }
        for (int i = 0; i < 50; i++)
        {
            out[30 + i] = (byte)(60 + i);
        }
        for (int i = 0; i < 20; i++)
        {
            out[80 + i] = (byte)(200 + i);
        }
        return out;
    }

    private byte[] flatBytes(final int from, final int length)
    {
        final byte[] out = new byte[length];
        for (int i = 0; i < length; i++)
        {
            out[i] = flat.get(from + i);
        }
        return out;
    }

    @Test
    void shouldGatherWholeAndPartialPayloadsAcrossSgesAndChunks()
    {
        final WorkQueue wq = new WorkQueue(true, 4, 3, 128);
        final long pos = post(wq, SendRequest.SIGNALED);
        wq.gatherToAddress(pos, flatAddress);
        assertArrayEquals(expectedPayload(), flatBytes(0, 100));
        wq.gatherRange(pos, 25, 60, flatAddress + 100);
        assertArrayEquals(java.util.Arrays.copyOfRange(expectedPayload(), 25, 85), flatBytes(100, 60),
            "a range starting in the first SGE and ending in the third");
        wq.gatherTo(pos, flatMemory, 150);
        assertArrayEquals(expectedPayload(), flatBytes(150, 100), "into region memory");
    }

    @Test
    void shouldGatherTheInlineCopyTakenAtPost()
    {
        final WorkQueue wq = new WorkQueue(true, 4, 3, 128);
        final long pos = post(wq, SendRequest.SIGNALED | SendRequest.INLINE);
        for (int i = 0; i < 256; i++)
        {
            UnsafeApi.putByte(chunked.addressOf(i), (byte)0xEE);
        }
        wq.gatherRange(pos, 30, 50, flatAddress);
        assertArrayEquals(java.util.Arrays.copyOfRange(expectedPayload(), 30, 80), flatBytes(0, 50),
            "the payload as it was when posted");
    }

    @Test
    void shouldScatterWholeAndPartialMessagesIntoSges()
    {
        final WorkQueue wq = new WorkQueue(false, 4, 3, 0);
        final long pos = wq.reserve();
        wq.fillRecv(pos, 1, 3, new AbstractMemoryRegion[]{region, region, region}, new long[]{10, 60, 200},
            new int[]{30, 50, 20});
        wq.publish(pos);
        for (int i = 0; i < 256; i++)
        {
            flat.put(i, (byte)(255 - i));
        }
        assertEquals(WcStatus.LOC_LEN_ERR, wq.scatterFromAddress(pos, flatAddress, 101), "longer than the SGEs");
        assertEquals(10, UnsafeApi.getByte(chunked.addressOf(10)), "nothing copied");
        assertEquals(WcStatus.SUCCESS, wq.scatterFromAddress(pos, flatAddress, 35));
        wq.scatterRange(pos, 35, flatAddress + 35, 55);
        wq.scatterRange(pos, 90, flatMemory, 90, 10);
        final byte[] expected = new byte[100];
        for (int i = 0; i < 100; i++)
        {
            expected[i] = (byte)(255 - i);
        }
        final WorkQueue sendView = new WorkQueue(true, 4, 3, 0);
        final long viewPos = post(sendView, 0);
        sendView.gatherToAddress(viewPos, flatAddress + 128);
        assertArrayEquals(expected, flatBytes(128, 100), "every byte landed in its SGE, in order");
        assertEquals(59, UnsafeApi.getByte(chunked.addressOf(59)), "bytes between SGEs untouched");
        assertEquals((byte)110, UnsafeApi.getByte(chunked.addressOf(110)));
    }
}
