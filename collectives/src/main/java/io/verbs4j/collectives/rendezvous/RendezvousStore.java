// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.time.Duration;
import java.util.Collection;

/**
 * A key/value store the ranks of a communicator use to find each other.
 *
 * <p>Contract, for every implementation:
 * <ul>
 *   <li>Keys are non-empty strings of at most {@link #MAX_KEY_LENGTH} UTF-8 bytes without NUL characters;
 *       values are byte arrays (copied in and out, never shared with the caller).</li>
 *   <li>{@link #set} overwrites; a value once visible to one rank stays visible to all until overwritten or
 *       deleted. There is no ordering guarantee between different keys written by different ranks.</li>
 *   <li>Blocking calls wait at most their timeout and then throw {@link RendezvousTimeoutException} naming the
 *       keys still missing. A thread interrupted while waiting gets a {@link RendezvousException} whose cause is
 *       an {@link InterruptedException}, with the interrupt flag set again.</li>
 *   <li>Methods may be called from any thread. After {@link #close()} every call throws
 *       {@link IllegalStateException}.</li>
 *   <li>{@link #add} counters are stored as the ASCII decimal text of the value (as PyTorch's stores do), so
 *       {@link #get} of a counter key returns e.g. {@code "3".getBytes(US_ASCII)}.</li>
 * </ul>
 *
 * <pre>{@code
 * try (RendezvousStore store = new FileStore(dir))
 * {
 *     store.set("addr/" + rank, myAddress);
 *     byte[] peer = store.get("addr/" + peerRank, Duration.ofSeconds(30));
 * }
 * }</pre>
 */
public interface RendezvousStore extends AutoCloseable
{
    /** Default timeout for bootstrap waits, the same 30 s Gloo uses. */
    Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /** Largest key, in UTF-8 bytes. */
    int MAX_KEY_LENGTH = 1024;

    /**
     * Stores {@code value} under {@code key}, replacing any previous value, and wakes waiters on that key.
     *
     * @param key   the key.
     * @param value the value, may be empty.
     * @throws IllegalArgumentException if the key or value is invalid.
     * @throws RendezvousException      if the store cannot be reached or written.
     */
    void set(String key, byte[] value);

    /**
     * Returns the value of {@code key}, waiting until it is present.
     *
     * @param key     the key.
     * @param timeout how long to wait, positive.
     * @return a copy of the value.
     * @throws RendezvousTimeoutException if the key is still missing after the timeout.
     * @throws RendezvousException        if the store cannot be reached or the wait is interrupted.
     */
    byte[] get(String key, Duration timeout);

    /**
     * Waits until every key is present.
     *
     * @param keys    the keys, not empty.
     * @param timeout how long to wait in total, positive.
     * @throws RendezvousTimeoutException naming every key still missing after the timeout.
     * @throws RendezvousException        if the store cannot be reached or the wait is interrupted.
     */
    void waitFor(Collection<String> keys, Duration timeout);

    /**
     * Atomically adds {@code delta} to the counter under {@code key}, creating it at 0 if absent.
     *
     * @param key   the counter's key.
     * @param delta the amount to add, may be 0 or negative.
     * @return the counter's value after the addition.
     * @throws IllegalArgumentException if the key holds a value that is not a decimal long.
     * @throws RendezvousException      if the store cannot be reached or written.
     */
    long add(String key, long delta);

    /**
     * Whether every key is present right now, without waiting.
     *
     * @param keys the keys.
     * @return true if all are present.
     */
    boolean check(Collection<String> keys);

    /**
     * Removes a key.
     *
     * @param key the key.
     * @return true if it was present.
     */
    boolean delete(String key);

    /**
     * Releases this handle's resources (connections, server threads it owns). Data written to a shared backend,
     * such as a FileStore directory, is left in place. Idempotent.
     */
    @Override
    void close();
}
