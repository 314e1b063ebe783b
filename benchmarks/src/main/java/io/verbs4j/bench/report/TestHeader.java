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
    String method)
{
}
