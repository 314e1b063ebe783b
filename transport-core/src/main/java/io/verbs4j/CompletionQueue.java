// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.util.concurrent.TimeUnit;

/**
 * A completion queue ({@code ibv_cq}): fixed capacity, polled in batches.
 * <p>
 * Threading: one thread polls a queue at a time (single consumer); any number of queue pairs, and the provider's
 * threads, produce into it. Polling also drives the provider's progress, so an application that polls needs no
 * other thread to make progress (the provider's agent still runs for what must not wait for the application): a poll
 * that finds nothing always drives it; one that already has completions to return may return them without it, for
 * a few polls at most.
 * <p>
 * Capacity: a queue pair's send and receive slots are released when their completions are polled (for unsignaled
 * sends: when a later signaled completion of the same queue is polled). The queue pairs attached to a CQ may
 * therefore have at most {@link #capacity()} slots in all, which makes overrun impossible; creating a queue pair
 * that would exceed it fails.
 * <pre>{@code
 * final IdleStrategy idle = new BackoffIdleStrategy();
 * while (running)
 * {
 *     idle.idle(cq.poll(handler, 32));
 * }
 * }</pre>
 */
public interface CompletionQueue extends AutoCloseable
{
    /** @return the capacity given at creation. */
    int capacity();

    /**
     * Delivers up to {@code limit} completions to {@code handler}, oldest first. Never blocks, never allocates.
     *
     * @param handler receives each completion.
     * @param limit   most completions to deliver.
     * @return how many were delivered; 0 when none was ready (compose with an idle strategy).
     * @throws NullPointerException     if {@code handler} is null (checked before anything is dequeued).
     * @throws IllegalArgumentException if {@code limit} is negative.
     * @throws IllegalStateException    if the queue is closed.
     */
    int poll(CompletionHandler handler, int limit);

    /**
     * Fills {@code batch} (after clearing it) with up to its capacity of completions.
     *
     * @param batch caller-owned storage.
     * @return how many completions it now holds.
     * @throws IllegalStateException if the queue is closed.
     */
    int poll(CompletionBatch batch);

    /**
     * Waits for at least one completion, backing off from spinning to parking, then delivers up to {@code limit}.
     *
     * @param handler receives each completion.
     * @param limit   most completions to deliver.
     * @param timeout longest wait.
     * @param unit    unit of {@code timeout}.
     * @return how many were delivered; 0 if the timeout passed first.
     * @throws IllegalStateException if the queue is closed.
     * @throws InterruptedException if the thread is interrupted while waiting.
     */
    int poll(CompletionHandler handler, int limit, long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Destroys the queue, and closes the queue pairs that use it as their send or receive queue (where
     * {@code ibv_destroy_cq} would refuse with EBUSY; a Java {@code close()} does not throw, as with
     * {@link ProtectionDomain#close()}). Their unpolled completions are discarded. Afterwards every {@code poll}
     * throws {@link IllegalStateException}, so a polling loop learns that it must stop. Idempotent.
     */
    @Override
    void close();
}
