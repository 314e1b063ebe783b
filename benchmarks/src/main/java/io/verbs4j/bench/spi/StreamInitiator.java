// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * The active side of a bandwidth session, osu_bw style: messages go out in windows, and a window ends when the
 * responder confirms it has received every message of it. The harness calls {@link #sendWindow(int)} with the
 * window sizes of {@link WindowPlan} (warm-up windows first), timing each call, then closes.
 * <p>
 * Hot path: {@link #sendWindow(int)} should not allocate. Single-threaded.
 */
public interface StreamInitiator extends AutoCloseable
{
    /**
     * Sends {@code messages} messages of {@link SessionSpec#messageBytes()} back to back (blocking or waiting on
     * back-pressure as the transport does), then waits for the responder's acknowledgement of all of them.
     *
     * @param messages messages in this window, 1..{@link SessionSpec#window()}.
     * @throws IOException      on a transport failure.
     * @throws TimeoutException if a wait exceeded {@link SessionSpec#timeoutMs()}.
     */
    void sendWindow(int messages) throws IOException, TimeoutException;

    /**
     * Releases the connection. Idempotent; never throws.
     */
    @Override
    void close();
}
