// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.config;

import java.util.Locale;

/**
 * Who drives a device's progress (receives, acknowledgements, retries, peer liveness), as Aeron's
 * {@code ThreadingMode}: the threads that make a request's bytes move once it is posted. Chosen per device with
 * {@link DeviceContext#threadingMode(ThreadingMode)} or for the JVM with
 * {@value CoreConfiguration#THREADING_MODE_PROP_NAME}.
 * <ul>
 *   <li>{@link #SHARED} (the default): the device's own thread and every thread that polls one of its completion
 *       queues, whoever comes first (a try-lock), so a spinning poller sees a completion without a thread hop and a
 *       job that never polls is still served.</li>
 *   <li>{@link #DEDICATED}: only the device's own threads (shm: its progress agent; tcp: the I/O threads). A
 *       completion-queue poll only takes what they completed: cheap and predictable for applications with many
 *       polling threads, at the cost of a thread hop per completion.</li>
 *   <li>{@link #INVOKER}: only the application's completion-queue polls (no shm agent). Lowest latency for one
 *       busy-polling thread per device; an application that stops polling also stops the device (peer liveness
 *       included) until it polls again. tcp keeps its I/O threads (accept, handshakes, reads while nobody polls),
 *       so there it behaves as {@link #SHARED}.</li>
 * </ul>
 * Posting is not progress: the posting thread carries a request as far as the provider allows in every mode.
 */
public enum ThreadingMode
{
    /** The device's thread and completion-queue polls, whoever comes first. */
    SHARED,
    /** Only the device's own threads; polls only take completions. */
    DEDICATED,
    /** Only the application's completion-queue polls. */
    INVOKER;

    /**
     * @param name a mode's name, any case.
     * @return the mode.
     * @throws IllegalArgumentException naming the accepted values.
     */
    public static ThreadingMode parse(final String name)
    {
        try
        {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(
                "unknown threading mode '" + name + "'; use shared, dedicated or invoker", ex);
        }
    }
}
