// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * The passive side of one session: echoes round trips (latency) or drains and acknowledges windows (bandwidth),
 * exactly {@link SessionSpec#totalIterations()} of them, then {@link #serve()} returns.
 * <p>
 * Thread contract: {@link #serve()} runs on one thread; {@link #close()} may be called from any thread and makes
 * a running {@link #serve()} end promptly with an exception.
 */
public interface Responder extends AutoCloseable
{
    /**
     * Where the initiator connects; opaque to the harness and passed unchanged to the initiator's connect method.
     * For TCP baselines it is the port, for shm baselines the path of the mapped file.
     *
     * @return the endpoint string, without line breaks.
     */
    String endpoint();

    /**
     * Accepts the initiator and serves the whole session.
     *
     * @throws IOException      on a transport failure or if the initiator went away early.
     * @throws TimeoutException if a single wait exceeded {@link SessionSpec#timeoutMs()}.
     */
    void serve() throws IOException, TimeoutException;

    /**
     * Releases everything (sockets, mappings, files). Idempotent; never throws.
     */
    @Override
    void close();
}
