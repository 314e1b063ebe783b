// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.time.Duration;

/**
 * A listening endpoint that hands out incoming connection requests. Thread-safe; closing it refuses further
 * requests but leaves accepted connections alone.
 */
public interface Listener extends AutoCloseable
{
    /** @return the endpoint peers connect to (with the actual port when 0 was asked). */
    String endpoint();

    /**
     * Waits for the next connection request.
     *
     * @param timeout longest wait.
     * @return the request, or null if none came in time.
     * @throws ConnectionException if the listener was closed.
     */
    ConnectionRequest accept(Duration timeout);

    /** Stops listening. Idempotent. */
    @Override
    void close();
}
