// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.util.Arrays;

import io.verbs4j.Opcode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MixedScheduleTest
{
    private static final MixedSchedule.Limits LIMITS = new MixedSchedule.Limits(400, 16, 64, true, true);

    @Test
    void shouldMakeTheSameScheduleFromTheSameSeed()
    {
        assertEquals(describe(MixedSchedule.generate(LIMITS, 42, 1, 3)),
            describe(MixedSchedule.generate(LIMITS, 42, 1, 3)));
    }

    @Test
    void shouldMakeDifferentSchedulesForOtherSeedsRolesAndRounds()
    {
        final String base = describe(MixedSchedule.generate(LIMITS, 42, 0, 0));
        assertNotEquals(base, describe(MixedSchedule.generate(LIMITS, 43, 0, 0)));
        assertNotEquals(base, describe(MixedSchedule.generate(LIMITS, 42, 1, 0)));
        assertNotEquals(base, describe(MixedSchedule.generate(LIMITS, 42, 0, 1)));
    }

    @Test
    void shouldUseEveryOpcodeWithMultiSgeReadsAndBothSignaledAndUnsignaledRequests()
    {
        final MixedSchedule s = MixedSchedule.generate(LIMITS, 7, 0, 0);
        final int[] perOpcode = new int[Opcode.SEND_OPCODE_COUNT];
        int multiSgeReads = 0;
        int unsignaled = 0;
        int inline = 0;
        for (int i = 0; i < s.count(); i++)
        {
            perOpcode[s.opcode(i)]++;
            multiSgeReads += Opcode.RDMA_READ == s.opcode(i) && s.sgeCount(i) > 1 ? 1 : 0;
            unsignaled += s.signaled(i) ? 0 : 1;
            inline += s.inline(i) ? 1 : 0;
        }
        for (int op = 0; op < Opcode.SEND_OPCODE_COUNT; op++)
        {
            assertTrue(perOpcode[op] > 10, Opcode.name(op) + " used " + perOpcode[op] + " times");
        }
        assertTrue(multiSgeReads > 20, "READs with 2-3 SGEs: " + multiSgeReads);
        assertTrue(unsignaled > 50 && unsignaled < 350, "unsignaled: " + unsignaled);
        assertTrue(inline > 10, "inline: " + inline);
    }

    @Test
    void shouldKeepEveryRequestWithinItsLimitsAndSlots()
    {
        for (long seed = 0; seed < 20; seed++)
        {
            final MixedSchedule s = MixedSchedule.generate(LIMITS, seed, (int)(seed & 1), (int)seed);
            int run = 0;
            long localEnd = 0;
            long writeEnd = 0;
            for (int i = 0; i < s.count(); i++)
            {
                run = s.signaled(i) ? 0 : run + 1;
                assertTrue(run < MixedSchedule.SIGNAL_INTERVAL, "unsignaled run at " + i);
                int sum = 0;
                long pieceEnd = s.localOffset(i);
                for (int k = 0; k < s.sgeCount(i); k++)
                {
                    assertTrue(s.sgeOffset(i, k) >= pieceEnd + MixedSchedule.GAP, "canary gap before SGE " + k);
                    assertTrue(s.sgeCount(i) == 1 || s.sgeLength(i, k) > 0, "empty piece of a multi-SGE request");
                    pieceEnd = s.sgeOffset(i, k) + s.sgeLength(i, k);
                    sum += s.sgeLength(i, k);
                }
                assertEquals(s.length(i), sum, s.describe(i));
                assertEquals(localEnd, s.localOffset(i), "slots are packed in order");
                localEnd = i + 1 < s.count() ? s.localOffset(i + 1) : s.localLength();
                assertTrue(pieceEnd <= localEnd, "slot of " + s.describe(i) + " overlaps the next");
                assertTrue(s.sgeCount(i) <= MixedSchedule.MAX_SGES && s.length(i) <= MixedSchedule.MAX_LENGTH);
                assertFalse(s.inline(i) && s.length(i) > LIMITS.maxInline(), s.describe(i));
                final int op = s.opcode(i);
                if (Opcode.RDMA_WRITE == op || Opcode.RDMA_WRITE_WITH_IMM == op)
                {
                    assertEquals(writeEnd, s.remoteOffset(i), "writes are packed in order");
                    writeEnd = s.remoteOffset(i) + ((s.length(i) + 7) & ~7);
                }
                if (Opcode.RDMA_READ == op)
                {
                    assertTrue(s.length(i) > 0 && s.remoteOffset(i) + s.length(i) <= MixedSchedule.READ_REGION_LENGTH);
                }
                if (Opcode.isAtomic(op))
                {
                    assertEquals(0, s.sgeOffset(i, 0) & 7, "atomic result aligned");
                }
            }
            assertTrue(s.signaled(s.count() - 1), "the last request is signaled");
            assertEquals(writeEnd, s.writeLength());
            assertTrue(s.localLength() <= (long)s.count() * MixedSchedule.MAX_SLOT);
            assertTrue(s.writeLength() <= (long)s.count() * MixedSchedule.MAX_LENGTH);
        }
    }

    @Test
    void shouldPredictEveryAtomicResultAndTheFinalCounters()
    {
        final MixedSchedule s = MixedSchedule.generate(LIMITS, 99, 1, 2);
        long add = 0;
        long swap = 0;
        int failedCompares = 0;
        for (int i = 0; i < s.count(); i++)
        {
            if (Opcode.ATOMIC_FETCH_AND_ADD == s.opcode(i))
            {
                assertEquals(add, s.expectedAtomic(i));
                add += s.compareAdd(i);
            }
            else if (Opcode.ATOMIC_CMP_AND_SWP == s.opcode(i))
            {
                assertEquals(swap, s.expectedAtomic(i));
                if (swap == s.compareAdd(i))
                {
                    swap = s.swap(i);
                }
                else
                {
                    failedCompares++;
                }
            }
        }
        assertEquals(add, s.finalAdd());
        assertEquals(swap, s.finalSwap());
        assertTrue(failedCompares > 0, "some compares must fail");
        assertEquals(2 * MixedSchedule.ATOMIC_SLOT, s.atomicOffset(0));
        assertEquals(2 * MixedSchedule.ATOMIC_SLOT + 8, s.atomicOffset(1));
    }

    @Test
    void shouldListTheRequestsThatConsumeReceivesInOrder()
    {
        final MixedSchedule s = MixedSchedule.generate(LIMITS, 5, 0, 0);
        int k = 0;
        for (int i = 0; i < s.count(); i++)
        {
            if (Opcode.consumesRemoteRecv(s.opcode(i)))
            {
                assertEquals(i, s.recvConsumer(k++));
            }
        }
        assertEquals(k, s.recvCount());
    }

    @Test
    void shouldHonourTheDeviceLimits()
    {
        final MixedSchedule.Limits narrow = new MixedSchedule.Limits(300, 1, 0, false, false);
        final MixedSchedule s = MixedSchedule.generate(narrow, 3, 0, 0);
        for (int i = 0; i < s.count(); i++)
        {
            assertEquals(1, s.sgeCount(i));
            assertFalse(s.inline(i) && s.length(i) > 0);
            assertFalse(Opcode.isAtomic(s.opcode(i)) || Opcode.RDMA_WRITE_WITH_IMM == s.opcode(i), s.describe(i));
        }
        assertEquals(narrow, MixedSchedule.Limits.decode(narrow.encode()));
    }

    @Test
    void shouldMakeDeterministicPayloadsThatDifferPerKey()
    {
        final byte[] a = new byte[100];
        final byte[] b = new byte[100];
        MixedSchedule.payload(1234, a, 0, 100);
        MixedSchedule.payload(1234, b, 0, 100);
        assertArrayEquals(a, b);
        final byte[] tail = new byte[37];
        MixedSchedule.payload(1234, tail, 63, 37);
        assertArrayEquals(Arrays.copyOfRange(a, 63, 100), tail, "a payload can be made from any byte on");
        MixedSchedule.payload(1235, b, 0, 100);
        assertFalse(Arrays.equals(a, b));
    }

    private static String describe(final MixedSchedule s)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.count(); i++)
        {
            sb.append(s.describe(i)).append('@').append(s.localOffset(i)).append('/').append(s.remoteOffset(i))
                .append('/').append(s.compareAdd(i)).append('/').append(s.swap(i)).append('/')
                .append(s.immediate(i)).append('/').append(s.payloadKey(i)).append('\n');
        }
        return sb.toString();
    }
}
