// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;

import java.util.List;

/**
 * One table of a perftest run: one transport, one kind, a size sweep, and the per-session settings.
 *
 * @param transport  the transport.
 * @param kind       latency or bandwidth.
 * @param sizes      message sizes in sweep order.
 * @param warmup     untimed iterations per size.
 * @param iterations timed iterations per size.
 * @param window     messages per bandwidth window (1 for latency).
 * @param busyPoll   idle mode.
 * @param timeoutMs  longest single wait.
 * @param warmupMinMs least warm-up time per size: untimed sessions run before the timed one until the warm-up has
 *                    lasted this long ({@link PerftestClient}); 0 for exactly {@code warmup} iterations.
 */
public record TestPlan(
    PerftestTransport transport,
    TestKind kind,
    List<Integer> sizes,
    long warmup,
    long iterations,
    int window,
    boolean busyPoll,
    long timeoutMs,
    long warmupMinMs)
{
    /**
     * A plan warmed up by exactly {@code warmup} iterations per size (no time minimum).
     *
     * @param transport  the transport.
     * @param kind       latency or bandwidth.
     * @param sizes      message sizes in sweep order.
     * @param warmup     untimed iterations per size.
     * @param iterations timed iterations per size.
     * @param window     messages per bandwidth window (1 for latency).
     * @param busyPoll   idle mode.
     * @param timeoutMs  longest single wait.
     */
    public TestPlan(
        final PerftestTransport transport,
        final TestKind kind,
        final List<Integer> sizes,
        final long warmup,
        final long iterations,
        final int window,
        final boolean busyPoll,
        final long timeoutMs)
    {
        this(transport, kind, sizes, warmup, iterations, window, busyPoll, timeoutMs, 0);
    }

    /**
     * The session for one size.
     *
     * @param messageBytes the size.
     * @return the spec.
     */
    public SessionSpec spec(final int messageBytes)
    {
        return new SessionSpec(
            transport.transportName(), kind, messageBytes, warmup, iterations, window, busyPoll, timeoutMs);
    }
}
