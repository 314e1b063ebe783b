// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the send side reads the peer's acknowledgement line: always on a new connection; not while replies carry the
 * acknowledgements; at the latest after a bounded number of looks or a bounded time; always again once the line had
 * one the records did not.
 */
class ShmAckWatchTest
{
    private long now = 1_000_000;
    private final ShmAckWatch watch = new ShmAckWatch(() -> now);

    /** {@value ShmAckWatch#CARRIED_RUN} ping-pong rounds: the line read, a record carrying the same value. */
    private long enterCarriedMode()
    {
        long seen = 0;
        for (int i = 0; i < ShmAckWatch.CARRIED_RUN; i++)
        {
            assertFalse(watch.isCarried(), "still line mode after " + i + " rounds");
            assertTrue(watch.lineDue());
            watch.afterRound(seen + 1, seen + 1, seen);
            seen++;
        }
        assertTrue(watch.isCarried());
        return seen;
    }

    @Test
    void shouldReadTheLineOnEveryLookOfANewConnection()
    {
        for (int i = 0; i < 10 * ShmAckWatch.OVERDUE_LOOKS; i++)
        {
            assertTrue(watch.lineDue());
        }
        assertFalse(watch.isCarried());
    }

    @Test
    void shouldLeaveTheLineAloneWhileRepliesCarryTheAcknowledgements()
    {
        long seen = enterCarriedMode();
        for (int round = 0; round < 1000; round++)
        {
            // A wait of 40 looks (a round trip at busy poll), then the reply with its acknowledgement.
            for (int look = 0; look < 40; look++)
            {
                assertFalse(watch.lineDue(), "look " + look + " of round " + round);
                now += 20;
            }
            watch.afterRound(-1, seen + 1, seen);
            seen++;
        }
        assertTrue(watch.isCarried());
    }

    @Test
    void shouldReadTheLineAfterABoundedNumberOfLooksWithoutAnAcknowledgement()
    {
        enterCarriedMode();
        int looks = 0;
        while (!watch.lineDue())
        {
            looks++;
        }
        assertEquals(ShmAckWatch.OVERDUE_LOOKS - 1, looks, "the clock did not move: the look bound");
        // Nothing new on the line: still carried mode, and the next wait starts over.
        watch.afterRound(5, -1, 8);
        assertTrue(watch.isCarried());
        assertFalse(watch.lineDue());
    }

    @Test
    void shouldReadTheLineAfterABoundedTimeWithoutAnAcknowledgement()
    {
        enterCarriedMode();
        int looks = 0;
        while (!watch.lineDue())
        {
            looks++;
            now += 1_000;
        }
        // The clock is read every CLOCK_EVERY looks, the first reading starts the wait: due at the first reading at
        // least OVERDUE_NS after it.
        final long microsPerReading = ShmAckWatch.CLOCK_EVERY;
        final long readings = 1 + (ShmAckWatch.OVERDUE_NS / 1_000 + microsPerReading - 1) / microsPerReading;
        assertEquals(readings * ShmAckWatch.CLOCK_EVERY - 1, looks, "looks of 1 us each");
        assertTrue(looks < ShmAckWatch.OVERDUE_LOOKS);
    }

    @Test
    void shouldStayDueFromTheLookThatFoundItDueToTheRoundThatReadsTheLine()
    {
        enterCarriedMode();
        while (!watch.lineDue())
        {
            now += 10;
        }
        assertTrue(watch.lineDue(), "the look said yes: the round it leads to reads the line too");
        assertTrue(watch.lineDue());
        watch.lineQuiet();
        assertFalse(watch.lineDue(), "a look found nothing new: the wait starts over");
    }

    @Test
    void shouldGoBackToTheLineWhenItHasAnAcknowledgementTheRecordsDidNotCarry()
    {
        final long seen = enterCarriedMode();
        // The peer stopped answering: only the line has its acknowledgement, found by an overdue read.
        watch.afterRound(seen + 1, -1, seen);
        assertFalse(watch.isCarried());
        assertTrue(watch.lineDue());
        assertTrue(watch.lineDue());
    }

    @Test
    void shouldNeedALongerRunAfterEachReturnToLineModeUpToABound()
    {
        long seen = enterCarriedMode();
        int expectedRun = ShmAckWatch.CARRIED_RUN;
        for (int flap = 0; flap < 12; flap++)
        {
            watch.afterRound(seen + 1, -1, seen);
            seen++;
            assertFalse(watch.isCarried());
            expectedRun = Math.min(2 * expectedRun, ShmAckWatch.MAX_CARRIED_RUN);
            for (int i = 0; i < expectedRun; i++)
            {
                assertFalse(watch.isCarried(), "flap " + flap + ": carried after " + i + " of " + expectedRun);
                watch.afterRound(seen + 1, seen + 1, seen);
                seen++;
            }
            assertTrue(watch.isCarried(), "flap " + flap);
        }
        watch.reset();
        enterCarriedMode();
    }

    @Test
    void shouldNotEnterCarriedModeOnRoundsWithoutCarriedAcknowledgements()
    {
        for (int i = 0; i < 4 * ShmAckWatch.CARRIED_RUN; i++)
        {
            watch.afterRound(i + 1, -1, i);
            watch.afterRound(i + 1, -1, i + 1);
        }
        assertFalse(watch.isCarried());
    }

    @Test
    void shouldStartOverInLineModeOnReset()
    {
        enterCarriedMode();
        watch.reset();
        assertFalse(watch.isCarried());
        assertTrue(watch.lineDue());
    }
}
