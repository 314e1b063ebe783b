// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

/**
 * A transport the perftest tool can measure: {@link PingPongTransport} for latency and/or {@link StreamTransport} for
 * bandwidth. The tool's transports, with their names and descriptions, are the rows of
 * {@code io.verbs4j.bench.run.PerftestTransport}; a new one is a new row there.
 * <p>
 * One instance serves many sessions, possibly in both roles of the same JVM (tests and JMH run responder and
 * initiator in one process), so implementations hold no per-session state; each session gets its own
 * {@link Responder} and initiator objects.
 */
public interface TransportUnderTest
{
    /**
     * Whether sessions need a responder in a peer process. {@code false} means the initiator works alone in the
     * client JVM (e.g. the single-thread memcpy baseline) and is given a {@code null} endpoint.
     *
     * @return {@code true} for two-process transports.
     */
    default boolean needsPeer()
    {
        return true;
    }

    /**
     * Whether this transport can run a session of this kind and message size.
     *
     * @param kind         latency or bandwidth.
     * @param messageBytes message size.
     * @return {@code true} if {@link PingPongTransport} (latency) or {@link StreamTransport} (bandwidth) is
     * implemented and the size is within its limits.
     */
    boolean supports(TestKind kind, int messageBytes);

    /**
     * Server side: allocates what the initiator will connect to (a listening socket, a mapped file) and returns the
     * responder that serves one session. Called on the responder host before the endpoint is sent to the initiator.
     *
     * @param spec        the session; {@link #supports} holds for its kind and size.
     * @param bindAddress local address to bind network listeners to.
     * @return the responder; the caller closes it.
     * @throws java.io.IOException if resources cannot be set up.
     */
    Responder openResponder(SessionSpec spec, String bindAddress) throws java.io.IOException;

    /**
     * How this transport measures a test, one line for the report banner, e.g. which verb, signalling and polling
     * it uses. {@code null} (the default) prints the harness's generic method line.
     *
     * @param kind latency or bandwidth.
     * @return the method line, or {@code null}.
     */
    default String method(TestKind kind)
    {
        return null;
    }
}
