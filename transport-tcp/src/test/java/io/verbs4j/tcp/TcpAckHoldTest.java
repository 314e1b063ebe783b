// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hold's invariant: an ACK waits at most one poll, never two holds in a row, and none when holding is off. */
class TcpAckHoldTest
{
    @Test
    void theFirstRequestIsHeldAndTheNextReadReleasesIt()
    {
        final TcpAckHold hold = new TcpAckHold(true);
        assertTrue(hold.holdOrRelease(false, 0, 1, 0));
        assertTrue(hold.isHeld());
        assertFalse(hold.holdOrRelease(false, 0, 1, 0), "a second request while one is held is written at once");
        assertFalse(hold.isHeld());
        assertTrue(hold.holdOrRelease(false, 0, 1, 0), "after a release the next request may be held again");
    }

    @Test
    void aHeldAckThatRodeAlongOnAFrameNoLongerCountsAsHeld()
    {
        final TcpAckHold hold = new TcpAckHold(true);
        assertTrue(hold.holdOrRelease(false, 0, 5, 4), "ACK up to 5 held");
        assertTrue(hold.holdOrRelease(false, 0, 6, 5), "5 went out with this side's frame: 6 may wait in turn");
        assertFalse(hold.holdOrRelease(false, 0, 7, 5), "6 is still unsent: it has waited its poll");
        assertFalse(hold.holdOrRelease(true, 2, 8, 7), "the first bulk request is written at once");
        assertTrue(hold.holdOrRelease(true, 3, 9, 8), "bulk: this side sent since the last bulk ACK");
        assertTrue(hold.holdOrRelease(true, 4, 10, 9), "the ride works for bulk too");
        assertFalse(hold.holdOrRelease(true, 5, 11, 9), "but not twice for an unsent ACK");
    }

    @Test
    void anEmptyPollOrATickTakesTheHeldAckOnce()
    {
        final TcpAckHold hold = new TcpAckHold(true);
        assertFalse(hold.takeHeld(), "nothing held");
        hold.holdOrRelease(false, 0, 1, 0);
        assertTrue(hold.takeHeld());
        assertFalse(hold.takeHeld(), "taken once only");
        assertFalse(hold.isHeld());
    }

    @Test
    void nothingIsHeldWhenHoldingIsOff()
    {
        final TcpAckHold hold = new TcpAckHold(false);
        for (int i = 0; i < 3; i++)
        {
            assertFalse(hold.holdOrRelease(false, 0, 1, 0));
            assertFalse(hold.isHeld());
            assertFalse(hold.takeHeld());
        }
    }

    @Test
    void anAckAskedForByBulkIsNeverHeldInOneWayTrafficAndReleasesOneThatWas()
    {
        final TcpAckHold hold = new TcpAckHold(true);
        assertFalse(hold.holdOrRelease(true, 0, 1, 0), "the first bulk request: nothing known of this side's traffic");
        assertFalse(hold.holdOrRelease(true, 0, 1, 0), "no request of this side's since: one-way, written at once");
        assertFalse(hold.isHeld());
        assertTrue(hold.holdOrRelease(false, 0, 1, 0));
        assertFalse(hold.holdOrRelease(true, 0, 1, 0), "bulk writes the held ACK with its own");
        assertFalse(hold.isHeld());
    }

    @Test
    void anAckAskedForByBulkIsHeldWhileThisSideSendsToo()
    {
        final TcpAckHold hold = new TcpAckHold(true);
        assertFalse(hold.holdOrRelease(true, 5, 1, 0));
        assertTrue(hold.holdOrRelease(true, 6, 1, 0), "this side sent a request since: its next frame carries the ACK");
        assertTrue(hold.takeHeld());
        assertFalse(hold.holdOrRelease(true, 6, 1, 0), "nothing sent since the last bulk ACK: written at once");
        assertTrue(hold.holdOrRelease(true, 8, 1, 0));
        assertFalse(hold.holdOrRelease(true, 9, 1, 0), "never two holds in a row");
        assertFalse(new TcpAckHold(false).holdOrRelease(true, 1, 1, 0), "nor any when holding is off");
    }
}
