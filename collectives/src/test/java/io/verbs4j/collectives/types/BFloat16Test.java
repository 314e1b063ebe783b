// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BFloat16Test
{
    @Test
    void shouldRoundTripEveryBitPattern()
    {
        for (int bits = 0; bits < 0x10000; bits++)
        {
            final short b = (short)bits;
            final float f = BFloat16.toFloat(b);
            assertEquals(bits << 16, Float.floatToRawIntBits(f) & 0xFFFF0000, "widening appends zero bits");
            final short back = BFloat16.fromFloat(f);
            if (BFloat16.isNaN(b))
            {
                assertEquals(bits | 0x0040, back & 0xFFFF, "NaN keeps sign and payload, becomes quiet");
            }
            else
            {
                assertEquals(bits, back & 0xFFFF, "round trip of " + Integer.toHexString(bits & 0xFFFF));
            }
        }
    }

    @Test
    void shouldRoundMidpointsToEvenAndNeighboursToNearest()
    {
        // All adjacent finite positive pairs: the midpoint is the float with only bit 15 set below the kept bits.
        for (int bits = 0; bits < 0x7F7F; bits++)
        {
            final float mid = Float.intBitsToFloat((bits << 16) | 0x8000);
            final int even = (bits & 1) == 0 ? bits : bits + 1;
            assertEquals(even, BFloat16.fromFloat(mid) & 0xFFFF);
            assertEquals(even | 0x8000, BFloat16.fromFloat(-mid) & 0xFFFF);
            assertEquals(bits, BFloat16.fromFloat(Math.nextDown(mid)) & 0xFFFF);
            assertEquals(bits + 1, BFloat16.fromFloat(Math.nextUp(mid)) & 0xFFFF);
        }
    }

    @Test
    void shouldHandleSpecialValues()
    {
        assertEquals(0x7F80, BFloat16.fromFloat(Float.MAX_VALUE) & 0xFFFF, "max float rounds up to infinity");
        assertEquals(0x7F7F, BFloat16.fromFloat(Float.intBitsToFloat(0x7F7F7FFF)) & 0xFFFF, "below halfway stays");
        assertEquals(0xFF80, BFloat16.fromFloat(Float.NEGATIVE_INFINITY) & 0xFFFF);
        assertEquals(0x8000, BFloat16.fromFloat(-0f) & 0xFFFF);
        assertEquals(0x0002, BFloat16.fromFloat(Float.intBitsToFloat(0x00018000)) & 0xFFFF,
            "subnormal tie rounds to even");
        assertTrue(BFloat16.isNaN(BFloat16.fromFloat(Float.intBitsToFloat(0x7F800001))),
            "NaN with payload only in dropped bits stays NaN, not infinity");
        assertTrue(Float.isNaN(BFloat16.toFloat(BFloat16.NaN)));
        assertEquals(Float.POSITIVE_INFINITY, BFloat16.toFloat(BFloat16.POSITIVE_INFINITY));
    }
}
