// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * An opened provider ({@code ibv_context}): the root of every other object. Open with
 * {@link Verbs#open(String)}. Setup-path object: thread-safe; methods may allocate and throw.
 * <pre>{@code
 * try (Device device = Verbs.open("shm"))
 * {
 *     ProtectionDomain pd = device.allocateProtectionDomain();
 *     CompletionQueue cq = device.createCompletionQueue(256);
 *     MemoryRegion mr = pd.allocate(1 << 20, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
 *     QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq));
 *     ...
 * }
 * }</pre>
 */
public interface Device extends AutoCloseable
{
    /** @return the provider name ({@code shm}, {@code tcp}). */
    String name();

    /** @return what the device supports and its limits. */
    Capabilities capabilities();

    /** @return a new protection domain. */
    ProtectionDomain allocateProtectionDomain();

    /**
     * @param capacity completion entries, up to {@link Capabilities#maxCqCapacity()}.
     * @return a new completion queue.
     */
    CompletionQueue createCompletionQueue(int capacity);

    /** @return the device's connection manager. */
    ConnectionManager connectionManager();

    /**
     * Closes every object created from the device and stops its threads; peers' queue pairs go to ERROR.
     * Idempotent.
     */
    @Override
    void close();
}
