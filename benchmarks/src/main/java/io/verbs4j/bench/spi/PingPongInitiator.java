// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * The active side of a latency session. The harness calls {@link #roundTrip()} exactly
 * {@link SessionSpec#totalIterations()} times, timing each call with {@link System#nanoTime()}, then closes.
 * <p>
 * Hot path: {@link #roundTrip()} should not allocate. Single-threaded.
 */
public interface PingPongInitiator extends AutoCloseable
{
    /**
     * Sends one message of {@link SessionSpec#messageBytes()} and returns when the responder's reply of the same
     * size has fully arrived.
     *
     * @throws IOException      on a transport failure.
     * @throws TimeoutException if the reply did not come within {@link SessionSpec#timeoutMs()}.
     */
    void roundTrip() throws IOException, TimeoutException;

    /**
     * Releases the connection. Idempotent; never throws.
     */
    @Override
    void close();
}
