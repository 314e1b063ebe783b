// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The comparisons of waits are signed 64-bit, and the options refuse bad settings. */
class CmpTest
{
    @Test
    void shouldCompareSigned64BitValues()
    {
        final long[] values = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE};
        for (final long a : values)
        {
            for (final long b : values)
            {
                assertEquals(a == b, Cmp.EQ.test(a, b));
                assertEquals(a != b, Cmp.NE.test(a, b));
                assertEquals(a > b, Cmp.GT.test(a, b));
                assertEquals(a >= b, Cmp.GE.test(a, b));
                assertEquals(a < b, Cmp.LT.test(a, b));
                assertEquals(a <= b, Cmp.LE.test(a, b));
            }
        }
    }

    @Test
    void shouldRefuseBadOptions()
    {
        assertThrows(IllegalArgumentException.class, () -> new ShmemOptions().staging(1, 64).conclude());
        assertThrows(IllegalArgumentException.class, () -> new ShmemOptions().staging(4, 60).conclude());
        assertThrows(IllegalArgumentException.class,
            () -> new ShmemOptions().opTimeout(java.time.Duration.ZERO).conclude());
        final ShmemOptions ok = new ShmemOptions().staging(4, 128).conclude();
        assertEquals(128, ok.stagingSlotBytes());
        assertThrows(IllegalStateException.class, () -> ok.staging(8, 64));
    }
}
