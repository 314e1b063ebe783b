// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlausibleModelTest
{
    private static final CostModel SHM = CostModel.defaults("shm");

    @Test
    void shouldKeepPlausibleFigures()
    {
        final CostModel m = PlausibleModel.of(1_500, 0.2, 0.1, SHM, "test");
        assertEquals(1_500, m.alphaNs());
        assertEquals(0.2, m.betaNsPerByte());
        assertEquals(0.1, m.gammaNsPerByte());
        assertTrue(m.measured());
        assertEquals("test", m.note());
    }

    @Test
    void shouldReplaceAMillisecondHopOnShmByTheDefaultAndSaySo()
    {
        final CostModel m = PlausibleModel.of(1_400_000, 0.2, 0.1, SHM, "test");
        assertEquals(SHM.alphaNs(), m.alphaNs());
        assertEquals(0.2, m.betaNsPerByte());
        assertTrue(m.note().endsWith("; alpha 1400000 ns implausible (outside 50..40000), default 2000 used"),
            m.note());
        assertTrue(m.toString().contains("measured: test; alpha 1400000 ns"), m::toString);
    }

    @Test
    void shouldReplaceNegativeOrMissingFigures()
    {
        final CostModel m = PlausibleModel.of(Double.NaN, -0.5, 1e-6, SHM, "test");
        assertEquals(SHM.alphaNs(), m.alphaNs());
        assertEquals(SHM.betaNsPerByte(), m.betaNsPerByte());
        assertEquals(SHM.gammaNsPerByte(), m.gammaNsPerByte());
        assertFalse(m.note().equals("test"));
    }

    @Test
    void shouldAcceptASlowerHopOnTcp()
    {
        assertEquals(150_000, PlausibleModel.of(150_000, 1, 0.1, CostModel.defaults("tcp"), "t").alphaNs());
    }
}
