// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.time.Duration;

/**
 * Connects queue pairs ({@code librdmacm}'s role): a passive side listens on an endpoint and accepts requests, an
 * active side connects to it. Both sides exchange private data in the handshake, typically addresses and rkeys.
 * Endpoints are URIs: {@code shm://name} for the shm provider, {@code tcp://host:port} for tcp (port 0 picks a free
 * one; {@link Listener#endpoint()} tells which).
 * <p>
 * A successful connect or accept moves the queue pair through INIT and RTR to RTS. Thread-safe.
 */
public interface ConnectionManager
{
    /**
     * Starts listening.
     *
     * @param endpoint where to listen.
     * @return the listener; close it to stop listening.
     * @throws ConnectionException if the endpoint is malformed or already taken.
     */
    Listener listen(String endpoint);

    /**
     * Connects {@code qp} (in RESET or INIT) to the queue pair that a listener at {@code endpoint} accepts it with.
     *
     * @param qp          the local queue pair.
     * @param endpoint    the listener's endpoint.
     * @param privateData bytes for the peer (up to {@link Capabilities#maxPrivateDataLength()}), may be empty or null.
     * @param timeout     longest wait for the peer's answer.
     * @return the private data of the peer's accept.
     * @throws ConnectionException        if refused, rejected, timed out, or the endpoint is malformed.
     * @throws MemoryReservationException if the connection's shared memory (shm rings) cannot be reserved; nothing
     *                                    was sent to the listener.
     */
    byte[] connect(QueuePair qp, String endpoint, byte[] privateData, Duration timeout);
}
