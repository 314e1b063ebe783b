// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SilenceDetectorTest
{
    private static final long STALL = 250;
    private static final long TIMEOUT = 500;

    @Test
    void shouldDeclareSilenceAfterTheTimeoutOfPunctualChecks()
    {
        final SilenceDetector detector = new SilenceDetector();
        detector.start(0);
        assertFalse(detector.isSilent(125, false, STALL, TIMEOUT));
        assertFalse(detector.isSilent(250, false, STALL, TIMEOUT));
        assertFalse(detector.isSilent(375, false, STALL, TIMEOUT));
        assertTrue(detector.isSilent(500, false, STALL, TIMEOUT));
        assertEquals(500, detector.silentNs());
    }

    @Test
    void shouldRestartWhenThePeerIsHeard()
    {
        final SilenceDetector detector = new SilenceDetector();
        detector.start(0);
        assertFalse(detector.isSilent(200, false, STALL, TIMEOUT));
        assertFalse(detector.isSilent(400, true, STALL, TIMEOUT));
        assertFalse(detector.isSilent(600, false, STALL, TIMEOUT));
        assertFalse(detector.isSilent(800, false, STALL, TIMEOUT));
        assertTrue(detector.isSilent(1000, false, STALL, TIMEOUT));
    }

    @Test
    void shouldNotCountAGapInWhichTheCheckerItselfDidNotRun()
    {
        final SilenceDetector detector = new SilenceDetector();
        detector.start(0);
        assertFalse(detector.isSilent(100, false, STALL, TIMEOUT));
        // The checker was starved for 900: not the peer's silence. Bunched catch-up checks add almost nothing.
        assertFalse(detector.isSilent(1000, false, STALL, TIMEOUT));
        assertFalse(detector.isSilent(1001, false, STALL, TIMEOUT));
        assertFalse(detector.isSilent(1002, false, STALL, TIMEOUT));
        assertEquals(2, detector.silentNs());
    }
}
