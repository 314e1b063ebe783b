// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link TcpReadCadence} on a synthetic clock: reads within the patience of each other are frequent; the first read,
 * and reads as far apart as a millisecond poller's, are not.
 */
class TcpReadCadenceTest
{
    private static final long PATIENCE_NS = 200_000;

    @Test
    void shouldCountOnlyReadsWithinThePatienceOfThePreviousOneAsFrequent()
    {
        final TcpReadCadence cadence = new TcpReadCadence(PATIENCE_NS);
        final long t0 = 5_000_000_000L;
        assertFalse(cadence.onRead(t0), "the first read has no predecessor");
        assertTrue(cadence.onRead(t0 + 8_000), "a spinning poller's next read, 8 µs later");
        assertTrue(cadence.onRead(t0 + 8_000 + PATIENCE_NS), "exactly the patience later");
        assertFalse(cadence.onRead(t0 + 8_000 + 2 * PATIENCE_NS + 1), "just past the patience");
    }

    @Test
    void shouldNeverCountAMillisecondPollerAsFrequent()
    {
        final TcpReadCadence cadence = new TcpReadCadence(PATIENCE_NS);
        for (long t = 0; t < 100_000_000L; t += 1_000_000L)
        {
            assertFalse(cadence.onRead(-7_000_000_000L + t), "read at " + t + " ns");
        }
    }

    @Test
    void shouldWorkAcrossTheClocksSignChange()
    {
        final TcpReadCadence cadence = new TcpReadCadence(PATIENCE_NS);
        assertFalse(cadence.onRead(Long.MAX_VALUE - 1_000));
        assertTrue(cadence.onRead(Long.MIN_VALUE + 1_000), "2 µs later, across the wrap of nanoTime's range");
    }
}
