// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

import java.io.IOException;

/**
 * A transport measurable with ping-pong latency.
 * <p>
 * A verbs transport plugs in by implementing this (and/or {@link StreamTransport}) on top of the verbs API, e.g. a
 * {@code verbs-shm-write} transport whose responder creates the queue pair and registers a region and whose endpoint
 * string carries what the initiator needs to connect (queue-pair number, rkey, address, shm segment name).
 */
public interface PingPongTransport extends TransportUnderTest
{
    /**
     * Client side: connects to a responder opened with the same {@code spec}.
     *
     * @param spec     the session, identical to the responder's.
     * @param peerHost host of the responder (the control connection's peer); may be ignored by same-host transports.
     * @param endpoint the responder's {@link Responder#endpoint()}.
     * @return a connected initiator; the caller closes it.
     * @throws IOException if the connection cannot be made.
     */
    PingPongInitiator connectPingPong(SessionSpec spec, String peerHost, String endpoint) throws IOException;

    /**
     * How a timed {@link PingPongInitiator#roundTrip()} becomes a latency row. Ping-pong tests (perftest's
     * {@code ib_write_lat}, {@code ib_send_lat}) report half the round trip; one-sided operations whose initiator
     * waits for its own completion ({@code ib_read_lat}, {@code ib_atomic_lat}) report the full time of one
     * operation.
     *
     * @return {@code true} (the default) to halve each sample, {@code false} to report it whole.
     */
    default boolean halvesRoundTrip()
    {
        return true;
    }
}
