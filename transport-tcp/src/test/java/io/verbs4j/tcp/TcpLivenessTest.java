// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * {@link TcpLiveness} alone, ticked with a stepping clock: heartbeats only when nothing else went out, the peer
 * declared dead after the peer timeout of silence, and a starved tick (a gap of more than two intervals) not counted.
 */
class TcpLivenessTest
{
    private static final long INTERVAL_NS = 100;
    private static final long TIMEOUT_NS = 500;

    private final Actions actions = new Actions();
    private final TcpLiveness liveness = new TcpLiveness(actions, INTERVAL_NS, TIMEOUT_NS);
    private long nowNs = 1_000;

    @Test
    void shouldWriteAHeartbeatOnlyWhenNothingElseWentOut()
    {
        liveness.start(nowNs);
        liveness.heard();
        assertTrue(tick());
        assertEquals(List.of("ack", "heartbeat"), actions.calls);

        actions.calls.clear();
        liveness.heard();
        liveness.wrote();
        assertTrue(tick());
        assertEquals(List.of("ack"), actions.calls, "a frame went out this interval: no heartbeat");

        actions.calls.clear();
        liveness.heard();
        assertTrue(tick());
        assertEquals(List.of("ack", "heartbeat"), actions.calls, "the write was forgotten at the previous tick");
    }

    @Test
    void shouldDeclareThePeerDeadAfterThePeerTimeoutOfSilence()
    {
        liveness.start(nowNs);
        for (int i = 0; i < 4; i++)
        {
            assertTrue(tick(), "silent for " + (i + 1) * INTERVAL_NS + " ns");
        }
        assertTrue(actions.timeouts.isEmpty());
        assertFalse(tick());
        assertEquals(List.of(TIMEOUT_NS), actions.timeouts);
    }

    @Test
    void shouldRestartTheCountWhenThePeerIsHeard()
    {
        liveness.start(nowNs);
        for (int i = 0; i < 4; i++)
        {
            assertTrue(tick());
        }
        liveness.heard();
        for (int i = 0; i < 5; i++)
        {
            assertTrue(tick(), "tick " + i + " after a sign of life");
        }
        assertFalse(tick());
        assertEquals(1, actions.timeouts.size());
    }

    @Test
    void shouldNotCountAGapInWhichThisSideWasNotRunning()
    {
        liveness.start(nowNs);
        for (int i = 0; i < 4; i++)
        {
            assertTrue(tick());
        }
        nowNs += 10 * TIMEOUT_NS;
        assertTrue(liveness.tick(nowNs), "a starved event loop: the peer's bytes may be waiting unread");
        for (int i = 0; i < 4; i++)
        {
            assertTrue(tick());
        }
        assertFalse(tick());
    }

    private boolean tick()
    {
        nowNs += INTERVAL_NS;
        return liveness.tick(nowNs);
    }

    private static final class Actions implements TcpLiveness.Actions
    {
        final List<String> calls = new ArrayList<>();
        final List<Long> timeouts = new ArrayList<>();

        public void onPeerTimeout(final long silentNs)
        {
            timeouts.add(silentNs);
        }

        public void flushDeferredAck()
        {
            calls.add("ack");
        }

        public void writeHeartbeat()
        {
            calls.add("heartbeat");
        }
    }
}
