// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import io.verbs4j.collectives.CollectivesConfiguration;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The link protocol's immediate-data layouts: every field decodes to what was encoded, at its limits. */
class ImmediateDataTest
{
    @Test
    void dataCarriesSlotTagAndLengthAndNoCredits()
    {
        final int imm = ImmediateData.data(64 + 5, 1 << 23);
        assertEquals(ImmediateData.KIND_DATA, ImmediateData.kind(imm));
        assertTrue(ImmediateData.isData(ImmediateData.kind(imm)));
        assertEquals(5, ImmediateData.slot(imm));
        assertEquals(1 << 23, ImmediateData.dataLength(imm));
        assertEquals(0, ImmediateData.credits(imm));
        assertEquals(ImmediateData.LEAVE_LENGTH,
            ImmediateData.dataLength(ImmediateData.data(7, ImmediateData.LEAVE_LENGTH)));
    }

    @Test
    void dataWithCreditsCarriesSlotTagLengthAndCreditsAtTheirLimits()
    {
        for (final int credits : new int[] { 1, 2, 4, 17, ImmediateData.MAX_PIGGYBACK_CREDITS })
        {
            for (final int length : new int[] { 0, 8, 65536, 256 * 1024, ImmediateData.MAX_PIGGYBACK_LENGTH })
            {
                for (final long seq : new long[] { 0, 63, 64, 1_000_001 })
                {
                    final int imm = ImmediateData.dataWithCredits(seq, length, credits);
                    assertEquals(ImmediateData.KIND_DATA_CREDIT, ImmediateData.kind(imm));
                    assertTrue(ImmediateData.isData(ImmediateData.kind(imm)));
                    assertEquals((int)(seq & ImmediateData.SLOT_MASK), ImmediateData.slot(imm));
                    assertEquals(length, ImmediateData.dataLength(imm));
                    assertEquals(credits, ImmediateData.credits(imm));
                }
            }
        }
        assertEquals(524_287, ImmediateData.MAX_PIGGYBACK_LENGTH);
        assertEquals(31, ImmediateData.MAX_PIGGYBACK_CREDITS);
    }

    @Test
    void aFullSlotOfTheDefaultSizeCarriesEveryCreditTheDefaultSlotsCanFree()
    {
        // A ring's pieces fill whole slots; when they could not carry credits, each rank wrote a CREDIT message (a
        // frame, a system call and the peer's read) for every second piece.
        final int slotBytes = CollectivesConfiguration.CHUNK_BYTES_DEFAULT;
        for (int credits = 1; credits <= CollectivesConfiguration.SLOTS_DEFAULT; credits++)
        {
            assertEquals(credits, ImmediateData.creditsToCarry(slotBytes, credits));
        }
        assertEquals(0, ImmediateData.creditsToCarry(0, 0));
        assertEquals(0, ImmediateData.creditsToCarry(ImmediateData.MAX_PIGGYBACK_LENGTH + 1, 2), "too long");
        assertEquals(0, ImmediateData.creditsToCarry(8, ImmediateData.MAX_PIGGYBACK_CREDITS + 1), "too many");
        assertEquals(0, ImmediateData.creditsToCarry(ImmediateData.LEAVE_LENGTH, 1), "a leave carries none");
    }

    @Test
    void creditAndAbortAreNotData()
    {
        final int credit = ImmediateData.credit(ImmediateData.MAX_VALUE);
        assertEquals(ImmediateData.KIND_CREDIT, ImmediateData.kind(credit));
        assertFalse(ImmediateData.isData(ImmediateData.kind(credit)));
        assertEquals(ImmediateData.MAX_VALUE, ImmediateData.credits(credit));

        final int abort = ImmediateData.abort(41);
        assertEquals(ImmediateData.KIND_ABORT, ImmediateData.kind(abort));
        assertFalse(ImmediateData.isData(ImmediateData.kind(abort)));
        assertEquals(42, ImmediateData.value(abort));
        assertEquals(0, ImmediateData.credits(abort));
    }
}
