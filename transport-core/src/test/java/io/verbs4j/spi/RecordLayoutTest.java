// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordLayoutTest
{
    @Test
    void shouldLayAnEntryOutAsSixDistinctWordsOfSixtyFourBytes()
    {
        assertEquals(64, CompletionRecord.LENGTH);
        final Set<Integer> words = new HashSet<>();
        for (final int word : new int[]{CompletionRecord.SEQUENCE, CompletionRecord.WR_ID, CompletionRecord.POSITION,
            CompletionRecord.STATUS_OPCODE, CompletionRecord.BYTE_LENGTH_IMMEDIATE, CompletionRecord.FLAGS_QP_NUMBER})
        {
            assertTrue(word >= 0 && word < CompletionRecord.WORDS);
            assertTrue(words.add(word), "word " + word + " used twice");
        }
    }

    @Test
    void shouldLayAWorkQueueSlotsRequestOutAsARecordOfSixtyFourBytes()
    {
        assertEquals(64, WorkRecord.LENGTH);
        final Set<Integer> request = new HashSet<>();
        for (final int word : new int[]{WorkRecord.WR_ID, WorkRecord.OPCODE_FLAGS, WorkRecord.TOTAL_LENGTH,
            WorkRecord.REMOTE_ADDRESS, WorkRecord.RKEY_IMMEDIATE, WorkRecord.COMPARE_ADD, WorkRecord.SWAP,
            WorkRecord.SGE_COUNT})
        {
            assertTrue(word >= 0 && word < WorkRecord.WORDS);
            assertTrue(request.add(word), "request word " + word + " used twice");
        }
        // the slot's completion record is a CQ entry's layout (CompletionRecord), checked above
    }

    @Test
    void shouldPackTwoIntsOfAnySignAndGetThemBack()
    {
        final int[] values = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x8000_0001, 12_345};
        for (final int high : values)
        {
            for (final int low : values)
            {
                final long word = IntPair.pack(high, low);
                assertEquals(high, IntPair.high(word));
                assertEquals(low, IntPair.low(word));
            }
        }
    }
}
