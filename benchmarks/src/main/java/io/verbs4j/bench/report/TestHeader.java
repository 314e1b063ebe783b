// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import io.verbs4j.bench.spi.TestKind;

/**
 * What a table of rows was measured with; printed as the banner (text) or repeated in every row (JSON).
 *
 * @param transport   transport name.
 * @param description transport description.
 * @param kind        latency or bandwidth.
 * @param peer        where the responder ran, e.g. {@code 127.0.0.1 (child JVM pid 4242)} or {@code in-process}.
 * @param idleMode    {@code backoff} or {@code busy-poll}.
 * @param warmup      untimed iterations per size.
 * @param window      messages per window (bandwidth).
 * @param javaVersion the initiator's {@code java.vm.version}.
 * @param method      how the transport measures this test ({@link io.verbs4j.bench.spi.TransportUnderTest#method}),
 *                    or {@code null} for the harness's generic method.
 * @param warmupMinMs  least time spent warming up per size, in untimed sessions before the timed one (0: exactly
 *                    {@code warmup} iterations).
 */
public record TestHeader(
    String transport,
    String description,
    TestKind kind,
    String peer,
    String idleMode,
    long warmup,
    int window,
    String javaVersion,
    String method,
    long warmupMinMs)
{
    /**
     * A header for exactly {@code warmup} iterations of warm-up (no time minimum).
     *
     * @param transport   transport name.
     * @param description transport description.
     * @param kind        latency or bandwidth.
     * @param peer        where the responder ran.
     * @param idleMode    {@code backoff} or {@code busy-poll}.
     * @param warmup      untimed iterations per size.
     * @param window      messages per window (bandwidth).
     * @param javaVersion the initiator's {@code java.vm.version}.
     * @param method      how the transport measures this test, or {@code null}.
     */
    public TestHeader(
        final String transport,
        final String description,
        final TestKind kind,
        final String peer,
        final String idleMode,
        final long warmup,
        final int window,
        final String javaVersion,
        final String method)
    {
        this(transport, description, kind, peer, idleMode, warmup, window, javaVersion, method, 0);
    }

    /** @return the warm-up as the banner states it: iterations, and the time minimum if there is one. */
    public String warmupDescription()
    {
        return warmupMinMs > 0 ? warmup + " + >= " + warmupMinMs + " ms, more while a JIT compiles" :
            Long.toString(warmup);
    }
}
