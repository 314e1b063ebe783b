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
        assertTrue(hold.holdOrRelease(false));
        assertTrue(hold.isHeld());
        assertFalse(hold.holdOrRelease(false), "a second request while one is held is written at once");
        assertFalse(hold.isHeld());
        assertTrue(hold.holdOrRelease(false), "after a release the next request may be held again");
    }

    @Test
    void anEmptyPollOrATickTakesTheHeldAckOnce()
    {
        final TcpAckHold hold = new TcpAckHold(true);
        assertFalse(hold.takeHeld(), "nothing held");
        hold.holdOrRelease(false);
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
            assertFalse(hold.holdOrRelease(false));
            assertFalse(hold.isHeld());
            assertFalse(hold.takeHeld());
        }
    }

    @Test
    void anAckAskedForByBulkIsNeverHeldAndReleasesOneThatWas()
    {
        final TcpAckHold hold = new TcpAckHold(true);
        assertFalse(hold.holdOrRelease(true));
        assertFalse(hold.isHeld());
        assertTrue(hold.holdOrRelease(false));
        assertFalse(hold.holdOrRelease(true), "bulk writes the held ACK with its own");
        assertFalse(hold.isHeld());
    }
}
