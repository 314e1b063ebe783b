// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TcpInputSignsTest
{
    @Test
    void shouldKeepTheTimesInEventModeOnly() throws InterruptedException
    {
        final TcpInputSigns polling = new TcpInputSigns(false);
        final long expected = polling.inputExpectedNs();
        final long posted = polling.postedNs();
        Thread.sleep(1);
        polling.expectInput();
        polling.posted(true);
        assertEquals(expected, polling.inputExpectedNs(), "polling mode: pollers always read, no clock read");
        assertEquals(posted, polling.postedNs());
        assertEquals(posted, polling.bulkPostedNs());

        final TcpInputSigns event = new TcpInputSigns(true);
        final long before = System.nanoTime();
        event.posted(false);
        assertTrue(event.inputExpectedNs() - before >= 0, "event mode: a post is a sign");
        assertTrue(event.postedNs() - before >= 0);
        assertTrue(event.bulkPostedNs() - before < 0, "not a bulk post");
        event.posted(true);
        assertTrue(event.bulkPostedNs() - before >= 0);
        final long signed = event.inputExpectedNs();
        Thread.sleep(1);
        event.expectInput();
        assertTrue(event.inputExpectedNs() - signed > 0);
    }
}
