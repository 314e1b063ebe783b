// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

/**
 * Everything both sides must agree on for one test session (one transport, one kind, one message size).
 * The initiator sends it to the responder over the control connection before the session starts.
 *
 * @param transport     name of the transport under test.
 * @param kind          latency or bandwidth.
 * @param messageBytes  bytes per message, at least 1.
 * @param warmup        untimed iterations before the timed ones (round trips, or messages for bandwidth).
 * @param iterations    timed iterations (round trips, or messages for bandwidth), at least 1.
 * @param window        bandwidth only: messages per acknowledged window (perftest's tx depth); 1 for latency.
 * @param busyPoll      {@code true}: idle loops busy-spin; {@code false}: spin, then yield, then park.
 * @param timeoutMs     how long any single wait for the peer may take before the session fails.
 */
public record SessionSpec(
    String transport,
    TestKind kind,
    int messageBytes,
    long warmup,
    long iterations,
    int window,
    boolean busyPoll,
    long timeoutMs)
{
    /** Iteration count meaning "until the session is closed" (used by JMH fixtures). */
    public static final long UNBOUNDED = Long.MAX_VALUE / 4;

    /**
     * Validates the fields.
     *
     * @param transport    name of the transport under test.
     * @param kind         latency or bandwidth.
     * @param messageBytes bytes per message, at least 1.
     * @param warmup       untimed iterations before the timed ones.
     * @param iterations   timed iterations, at least 1.
     * @param window       bandwidth only: messages per acknowledged window; 1 for latency.
     * @param busyPoll     whether idle loops busy-spin.
     * @param timeoutMs    how long any single wait for the peer may take.
     */
    public SessionSpec
    {
        if (null == transport || transport.isBlank())
        {
            throw new IllegalArgumentException("transport name missing");
        }
        if (messageBytes < 1)
        {
            throw new IllegalArgumentException("messageBytes must be >= 1: " + messageBytes);
        }
        if (warmup < 0 || iterations < 1)
        {
            throw new IllegalArgumentException("warmup must be >= 0 and iterations >= 1");
        }
        if (window < 1)
        {
            throw new IllegalArgumentException("window must be >= 1: " + window);
        }
        if (timeoutMs < 1)
        {
            throw new IllegalArgumentException("timeoutMs must be >= 1: " + timeoutMs);
        }
    }

    /**
     * Warm-up plus timed iterations: the number of round trips (latency) or messages (bandwidth) the responder
     * must serve before the session ends.
     *
     * @return the total.
     */
    public long totalIterations()
    {
        return warmup + iterations;
    }
}
