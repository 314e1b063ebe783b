// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Float16Test
{
    @Test
    void shouldRoundTripEveryBitPattern()
    {
        for (int bits = 0; bits < 0x10000; bits++)
        {
            final short h = (short)bits;
            final float f = Float16.toFloat(h);
            final short back = Float16.fromFloat(f);
            if (Float16.isNaN(h))
            {
                assertTrue(Float.isNaN(f), () -> "NaN widened to non-NaN: " + Integer.toHexString(h & 0xFFFF));
                assertTrue(Float16.isNaN(back), "NaN narrowed to non-NaN");
                assertEquals((h & 0xFFFF) | 0x0200, back & 0xFFFF, "NaN keeps sign and payload, becomes quiet");
            }
            else
            {
                assertEquals(bits, back & 0xFFFF, "round trip");
            }
        }
    }

    @Test
    void shouldRoundMidpointsBetweenNeighboursToEven()
    {
        // Every pair of adjacent finite positive values (including subnormals and the zero/min-subnormal pair).
        for (int bits = 0; bits < 0x7BFF; bits++)
        {
            final float lo = Float16.toFloat((short)bits);
            final float hi = Float16.toFloat((short)(bits + 1));
            final float mid = (float)(((double)lo + hi) / 2); // exact: the midpoint needs 12 significant bits
            final int even = (bits & 1) == 0 ? bits : bits + 1;
            assertEquals(even, Float16.fromFloat(mid), "midpoint after 0x" + Integer.toHexString(bits));
            assertEquals(even | 0x8000, Float16.fromFloat(-mid) & 0xFFFF, "negative midpoint");
            assertEquals(bits, Float16.fromFloat(Math.nextDown(mid)), "just below midpoint");
            assertEquals(bits + 1, Float16.fromFloat(Math.nextUp(mid)), "just above midpoint");
        }
    }

    @Test
    void shouldMatchNearestNeighbourSearchOnRandomFloats()
    {
        final Random random = new Random(0x5EED16L);
        for (int i = 0; i < 200_000; i++)
        {
            final float f = Float.intBitsToFloat(random.nextInt());
            if (Float.isNaN(f))
            {
                continue;
            }
            assertEquals(reference(f), Float16.fromFloat(f) & 0xFFFF, () -> "value " + f);
        }
    }

    @ParameterizedTest
    @ValueSource(floats = {65504f, 65519.99f, 65520f, 1e9f, Float.POSITIVE_INFINITY})
    void shouldSaturateToInfinityOnlyFromHalfwayAboveMax(final float value)
    {
        final int expected = value < 65520f ? 0x7BFF : 0x7C00;
        assertEquals(expected, Float16.fromFloat(value) & 0xFFFF);
        assertEquals(expected | 0x8000, Float16.fromFloat(-value) & 0xFFFF);
    }

    @Test
    void shouldHandleSpecialValues()
    {
        assertEquals(0x0000, Float16.fromFloat(0f));
        assertEquals(0x8000, Float16.fromFloat(-0f) & 0xFFFF);
        assertEquals(0x0001, Float16.fromFloat(0x1p-24f), "smallest subnormal");
        assertEquals(0x0000, Float16.fromFloat(0x1p-25f), "tie between 0 and min subnormal goes to even (0)");
        assertEquals(0x0001, Float16.fromFloat(Math.nextUp(0x1p-25f)));
        assertEquals(0x0400, Float16.fromFloat(0x1p-14f), "smallest normal");
        assertEquals(0x0000, Float16.fromFloat(Float.MIN_VALUE), "float subnormal underflows");
        assertEquals(0x3C00, Float16.fromFloat(1f));
        assertTrue(Float16.isNaN(Float16.fromFloat(Float.NaN)));
        assertTrue(Float16.isNaN(Float16.fromFloat(Float.intBitsToFloat(0x7F800001))),
            "NaN with payload only in dropped bits stays NaN, not infinity");
        assertEquals(Float.POSITIVE_INFINITY, Float16.toFloat(Float16.POSITIVE_INFINITY));
        assertEquals(65504f, Float16.toFloat(Float16.MAX_VALUE));
        assertTrue(Float.isNaN(Float16.toFloat(Float16.NaN)));
    }

    /** Independent reference: binary search over the ordered positive finite halves, nearest wins, ties to even. */
    private static int reference(final float f)
    {
        final int sign = f < 0 || (f == 0 && 1 / f < 0) ? 0x8000 : 0;
        final double v = Math.abs((double)f);
        if (v >= 65520.0)
        {
            return sign | 0x7C00;
        }
        int lo = 0;
        int hi = 0x7BFF;
        while (lo < hi)
        {
            final int midBits = (lo + hi + 1) >>> 1;
            if (Float16.toFloat((short)midBits) <= v)
            {
                lo = midBits;
            }
            else
            {
                hi = midBits - 1;
            }
        }
        if (lo == 0x7BFF)
        {
            return sign | lo;
        }
        final double below = v - Float16.toFloat((short)lo);
        final double above = Float16.toFloat((short)(lo + 1)) - v;
        final int chosen = below < above ? lo : above < below ? lo + 1 : ((lo & 1) == 0 ? lo : lo + 1);
        return sign | chosen;
    }
}
