// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.bench.run.InProcessSession;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;

import java.io.IOException;

/**
 * Shared set-up for the JMH suites: an unbounded {@link InProcessSession} of a named transport, busy-polling
 * (JMH measures the data path, not the idle strategy), one per trial.
 */
final class SessionState
{
    /** Timeout of any single wait inside a benchmark. */
    static final long TIMEOUT_MS = 60_000;

    private SessionState()
    {
    }

    /**
     * Opens a session that runs until closed.
     *
     * @param transport    transport name, a {@link io.verbs4j.bench.run.PerftestTransport} row.
     * @param kind         latency or bandwidth.
     * @param messageBytes message size.
     * @param window       messages per window (bandwidth), 1 for latency.
     * @return the session.
     * @throws IOException if it cannot be set up.
     */
    static InProcessSession open(final String transport, final TestKind kind, final int messageBytes, final int window)
        throws IOException
    {
        return open(transport, kind, messageBytes, window, true);
    }

    /**
     * Opens a session that runs until closed, with the given idle mode.
     *
     * @param transport    transport name, a {@link io.verbs4j.bench.run.PerftestTransport} row.
     * @param kind         latency or bandwidth.
     * @param messageBytes message size.
     * @param window       messages per window (bandwidth), 1 for latency.
     * @param busyPoll     busy-spin (verbs: device idle {@code spin}, tcp {@code poll} mode) or back off.
     * @return the session.
     * @throws IOException if it cannot be set up.
     */
    static InProcessSession open(
        final String transport, final TestKind kind, final int messageBytes, final int window, final boolean busyPoll)
        throws IOException
    {
        final SessionSpec spec = new SessionSpec(
            transport, kind, messageBytes, 0, SessionSpec.UNBOUNDED, window, busyPoll, TIMEOUT_MS);
        return InProcessSession.open(spec);
    }
}
