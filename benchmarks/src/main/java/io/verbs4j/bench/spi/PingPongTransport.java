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
}
