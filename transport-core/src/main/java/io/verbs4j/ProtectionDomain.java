// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.nio.ByteBuffer;

/**
 * A protection domain ({@code ibv_pd}): memory regions and queue pairs belong to one, and an rkey only works for
 * queue pairs of the same domain (a peer connected through a queue pair of another domain gets
 * {@link WcStatus#REM_ACCESS_ERR}). Setup-path object: methods may allocate and throw; thread-safe.
 */
public interface ProtectionDomain extends AutoCloseable
{
    /** @return the device. */
    Device device();

    /**
     * Allocates and registers zeroed off-heap memory. On providers with one-sided offload (shm) the memory is
     * shareable, so peers' WRITE/READ/atomics are done by the peer itself.
     *
     * @param length bytes, up to {@link Capabilities#maxRegionLength()}; over 2 GiB works.
     * @param access {@link Access} flags.
     * @return the region.
     * @throws IllegalArgumentException for a bad length or access set.
     * @throws VerbsException if the memory cannot be had (e.g. /dev/shm full).
     */
    MemoryRegion allocate(long length, int access);

    /**
     * Registers an existing direct buffer (from its position to its limit). The buffer must stay reachable while
     * registered. Where the provider cannot share the buffer with peers (shm), peers' one-sided operations on it
     * are served by this process's progress thread instead of the peer: correct, but slower; prefer
     * {@link #allocate(long, int)} for remotely accessed memory.
     *
     * @param buffer a direct buffer.
     * @param access {@link Access} flags.
     * @return the region.
     * @throws IllegalArgumentException if the buffer is not direct or empty.
     */
    MemoryRegion register(ByteBuffer buffer, int access);

    /**
     * Creates a queue pair in {@link QpState#RESET}.
     *
     * @param config attributes, checked against the device's capabilities and the CQs' capacity.
     * @return the queue pair.
     * @throws IllegalArgumentException naming the attribute out of range.
     */
    QueuePair createQueuePair(QueuePairConfig config);

    /**
     * Closes every queue pair and region of the domain, then the domain. Idempotent.
     */
    @Override
    void close();
}
