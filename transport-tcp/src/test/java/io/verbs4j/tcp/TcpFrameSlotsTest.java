// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

/**
 * {@link TcpFrameSlots}: a slot goes out retained, comes back when Netty releases it, is never handed out twice while
 * in flight, and is freed by whichever of the connection's close and Netty's release comes last.
 */
class TcpFrameSlotsTest
{
    @Test
    void shouldHandOutASlotOnlyWhenNettyGaveItBack()
    {
        final TcpFrameSlots slots = new TcpFrameSlots();
        final ByteBuf[] inFlight = new ByteBuf[TcpFrameSlots.SLOTS];
        for (int i = 0; i < TcpFrameSlots.SLOTS; i++)
        {
            inFlight[i] = slots.take(40);
            assertNotNull(inFlight[i]);
            assertEquals(2, inFlight[i].refCnt(), "ours and Netty's");
            inFlight[i].writeLong(i);
        }
        assertNull(slots.take(40), "every slot in flight: the caller allocates");
        inFlight[5].release();
        final ByteBuf again = slots.take(40);
        assertSame(inFlight[5], again, "the one Netty gave back");
        assertEquals(0, again.readableBytes(), "emptied");
        for (final ByteBuf slot : inFlight)
        {
            slot.release();
        }
        slots.close();
    }

    @Test
    void shouldLeaveLargeFramesToTheAllocator()
    {
        final TcpFrameSlots slots = new TcpFrameSlots();
        assertNull(slots.take(TcpFrameSlots.SLOT_BYTES + 1));
        final ByteBuf slot = slots.take(TcpFrameSlots.SLOT_BYTES);
        assertEquals(TcpFrameSlots.SLOT_BYTES, slot.maxCapacity());
        slot.release();
        slots.close();
    }

    @Test
    void shouldFreeASlotInFlightWhenNettyReleasesItAfterTheClose()
    {
        final TcpFrameSlots slots = new TcpFrameSlots();
        final ByteBuf inFlight = slots.take(32);
        final ByteBuf returned = slots.take(32);
        returned.release();
        slots.close();
        assertEquals(0, returned.refCnt(), "freed at the close");
        assertEquals(1, inFlight.refCnt(), "still Netty's");
        inFlight.release();
        assertEquals(0, inFlight.refCnt());
        assertNull(slots.take(32), "closed: the caller allocates");
    }
}
