// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;

/**
 * The I/O thread's select strategy, on a synthetic clock: it blocks unless a bulk batch was read within the spin
 * time, and while it spins it hands over whatever a non-blocking poll finds.
 */
class TcpReadSpinTest
{
    private static final long SPIN_NS = 250_000;

    private long now = 1_000_000_000L;
    private int ready;

    @Test
    void shouldBlockWhenNoBulkBatchWasRead() throws Exception
    {
        final TcpReadSpin spin = new TcpReadSpin(SPIN_NS, () -> now);

        assertEquals(SelectStrategy.SELECT, spin.calculateStrategy(() -> ready, false));
    }

    @Test
    void shouldPollWithoutBlockingForTheSpinTimeAfterABulkBatch() throws Exception
    {
        final TcpReadSpin spin = new TcpReadSpin(SPIN_NS, () -> now);
        spin.calculateStrategy(() -> ready, false);
        assertTrue(TcpReadSpin.onBulkRead(), "the loop's own thread");

        now += SPIN_NS - 1;
        assertEquals(SelectStrategy.CONTINUE, spin.calculateStrategy(() -> ready, false));
        ready = 2;
        assertEquals(2, spin.calculateStrategy(() -> ready, false), "events found while spinning are handled");
        ready = 0;
        now += 1;
        assertEquals(SelectStrategy.SELECT, spin.calculateStrategy(() -> ready, false));
        assertEquals(1, spin.spins());
    }

    @Test
    void shouldRunTasksWithoutBlockingAsNettyDoes() throws Exception
    {
        final TcpReadSpin spin = new TcpReadSpin(SPIN_NS, () -> now);
        ready = 0;

        assertEquals(0, spin.calculateStrategy(() -> ready, true));
    }

    @Test
    void shouldIgnoreBulkReadsOfOtherThreads() throws Exception
    {
        final TcpReadSpin spin = new TcpReadSpin(SPIN_NS, () -> now);
        spin.calculateStrategy(() -> ready, false);
        final AtomicBoolean other = new AtomicBoolean(true);
        final Thread poller = new Thread(() -> other.set(TcpReadSpin.onBulkRead()));
        poller.start();
        poller.join();

        assertFalse(other.get(), "a thread without a loop of its own");
        assertEquals(SelectStrategy.SELECT, spin.calculateStrategy(() -> ready, false));
    }
}
