// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import org.agrona.BitUtil;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flag region's offsets as the diagram in {@link FlagSlotLayout} draws them: slots of a cache-line multiple,
 * the credit line after the last slot, and in it the consumed count and the heartbeat, each 8-byte aligned, apart
 * and inside the line.
 */
class FlagSlotLayoutTest
{
    @Test
    void shouldPlaceSlotsCreditLineAndHeartbeatAsDrawn()
    {
        final FlagSlotLayout layout = new FlagSlotLayout(8, 8192);
        assertEquals(0, FlagSlotLayout.FLAG_OFFSET);
        assertEquals(8, FlagSlotLayout.LENGTH_OFFSET);
        assertEquals(16, FlagSlotLayout.PAYLOAD_OFFSET);
        assertEquals(BitUtil.align(16 + 8192, BitUtil.CACHE_LINE_LENGTH), layout.stride());
        assertEquals(8L * layout.stride(), layout.creditOffset());
        assertEquals(layout.creditOffset() + FlagSlotLayout.CREDIT_LINE_LENGTH, layout.areaBytes());
        assertEquals(3 * layout.areaBytes(), layout.areaOffset(3));
        assertEquals(layout.slotOffset(0), layout.slotOffset(8), "sequence numbers wrap over the slots");

        assertEquals(0, FlagSlotLayout.CONSUMED_OFFSET);
        assertEquals(8, FlagSlotLayout.HEARTBEAT_OFFSET);
        assertNotEquals(FlagSlotLayout.CONSUMED_OFFSET, FlagSlotLayout.HEARTBEAT_OFFSET);
        for (final int offset : new int[]{FlagSlotLayout.CONSUMED_OFFSET, FlagSlotLayout.HEARTBEAT_OFFSET})
        {
            assertEquals(0, offset & 7, "8-byte aligned for atomic loads and stores");
            assertTrue(offset + 8 <= FlagSlotLayout.CREDIT_LINE_LENGTH, "inside the credit line");
        }
        assertEquals(0, layout.creditOffset() % BitUtil.CACHE_LINE_LENGTH, "the credit line is a line of its own");
    }
}
