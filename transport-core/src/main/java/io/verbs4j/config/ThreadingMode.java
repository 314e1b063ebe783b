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
 *   <li>{@link #SINGLE_THREAD}: {@link #INVOKER}, and the application promises that one thread at a time makes
 *       every call on the device and on everything made from it (posts, polls, modify, registration, close), with a
 *       happens-before of its own (a lock, a queue hand-off) whenever another thread takes over. The provider then
 *       needs no exclusion of its own: its try-locks, completion claims and publications become plain loads and
 *       release stores, so a busy-polled round trip runs without a locked instruction (UCX's
 *       {@code UCS_THREAD_MODE_SINGLE}, ibverbs' thread domains). A call from a second thread at the same time is a
 *       broken promise whose outcome is undefined, as with those. shm honours it; tcp keeps its I/O threads and treats
 *       it as {@link #SHARED}.</li>
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
    INVOKER,
    /** Only the application's polls, from one thread at a time: no exclusion inside the provider. */
    SINGLE_THREAD;

    /** @return whether the device runs a thread of its own for progress (every mode but the two invoker modes). */
    public boolean progressThread()
    {
        return INVOKER != this && SINGLE_THREAD != this;
    }

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
                "unknown threading mode '" + name + "'; use shared, dedicated, invoker or single_thread", ex);
        }
    }
}
