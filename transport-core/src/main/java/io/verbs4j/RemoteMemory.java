// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import org.agrona.concurrent.AtomicBuffer;

/**
 * A connected peer's registered memory mapped into this process ({@link QueuePair#mapRemote}): a put is a plain
 * store, a get a plain load, a flag a release-store the peer polls with an acquire-load, and the atomics are the
 * CPU's own, atomic with respect to the peer's local atomics and to verbs atomics on the same memory. This is what
 * CUDA IPC / {@code nvshmem_ptr} give a GPU kernel and XPMEM gives Open MPI, for processes on one host.
 * <p>
 * <b>Offsets</b> are bytes from {@link #remoteAddress()}, the peer-side address the view was mapped at; the view
 * covers {@code [0, length())}.
 * <p>
 * <b>Checked accessors</b> ({@code get*}, {@code put*}, atomics, copies) first check that the view is open, the
 * access was asked for when mapping, the range is in bounds, and the peer's region is still registered under the
 * same rkey and its owner alive ({@link #isValid()}: one volatile load of the peer's region-table entry). A failed
 * check throws {@link RemoteAccessException} with the verbs status the same one-sided verb would have completed
 * with, and touches nothing.
 * <p>
 * <b>Unchecked access</b> through {@link #buffer()} is for kernels that must run at memory speed: it checks nothing.
 * It can never fault the JVM: the mapping is this view's own and is released only when neither the view nor the
 * buffer is reachable, so a buffer in use keeps it mapped even after {@link #close()}, after the owner deregistered
 * the region, or after the owner died. Stores made after deregistration or death land in memory the owner no longer
 * reads; poll {@link #isValid()} (as a waiting loop does now and then) to notice.
 * <p>
 * <b>Ordering</b>: stores of this thread become visible to the peer in program order when the last one is a
 * release-store ({@link #putLongRelease}) that the peer reads with an acquire-load; no fence beyond that is needed
 * for data-then-flag. Checked accessors are not meant for contended use by several threads on the same bytes,
 * except the atomics.
 * <p>
 * <b>Threading</b>: any number of threads may use one view; {@link #close()} may run concurrently with them (they
 * then see {@link #isValid()} false and checked accessors throw).
 */
public interface RemoteMemory extends AutoCloseable
{
    /** @return the peer-side address of offset 0. */
    long remoteAddress();

    /** @return bytes mapped. */
    long length();

    /** @return the access asked for when mapping ({@link Access} REMOTE_* bits). */
    int access();

    /**
     * @return true while the view is open, the peer's region is still registered under the rkey it was mapped with,
     * and its owner is alive and connected.
     */
    boolean isValid();

    /**
     * @param offset byte offset, 8-aligned.
     * @return the long, read with acquire semantics (needs REMOTE_READ).
     */
    long getLongAcquire(long offset);

    /**
     * @param offset byte offset, 8-aligned.
     * @return the long, read volatile (needs REMOTE_READ).
     */
    long getLongVolatile(long offset);

    /**
     * @param offset byte offset.
     * @return the long, a plain read (needs REMOTE_READ).
     */
    long getLong(long offset);

    /**
     * @param offset byte offset, 8-aligned.
     * @param value  stored with release semantics: every earlier store of this thread is visible first (needs
     *               REMOTE_WRITE).
     */
    void putLongRelease(long offset, long value);

    /**
     * @param offset byte offset, 8-aligned.
     * @param value  stored volatile (needs REMOTE_WRITE).
     */
    void putLongVolatile(long offset, long value);

    /**
     * @param offset byte offset.
     * @param value  a plain store (needs REMOTE_WRITE).
     */
    void putLong(long offset, long value);

    /**
     * @param offset   byte offset, 8-aligned.
     * @param expected the value expected.
     * @param update   the new value.
     * @return true if swapped (needs REMOTE_ATOMIC).
     */
    boolean compareAndSetLong(long offset, long expected, long update);

    /**
     * @param offset byte offset, 8-aligned.
     * @param delta  added atomically.
     * @return the value before (needs REMOTE_ATOMIC).
     */
    long getAndAddLong(long offset, long delta);

    /**
     * @param offset byte offset, 8-aligned.
     * @param value  stored atomically.
     * @return the value before (needs REMOTE_ATOMIC).
     */
    long getAndSetLong(long offset, long value);

    /**
     * A put: copies local bytes into the peer's memory (needs REMOTE_WRITE).
     *
     * @param offset       destination offset in this view.
     * @param source       local region (any protection domain; it must be open).
     * @param sourceOffset offset in {@code source}.
     * @param length       bytes.
     */
    void copyFrom(long offset, MemoryRegion source, long sourceOffset, long length);

    /**
     * A get: copies the peer's bytes into local memory (needs REMOTE_READ).
     *
     * @param offset            source offset in this view.
     * @param destination       local region (it must be open).
     * @param destinationOffset offset in {@code destination}.
     * @param length            bytes.
     */
    void copyTo(long offset, MemoryRegion destination, long destinationOffset, long length);

    /**
     * @param offset    destination offset in this view.
     * @param src       bytes.
     * @param srcOffset offset in {@code src}.
     * @param length    bytes (needs REMOTE_WRITE).
     */
    void putBytes(long offset, byte[] src, int srcOffset, int length);

    /**
     * @param offset    source offset in this view.
     * @param dst       bytes.
     * @param dstOffset offset in {@code dst}.
     * @param length    bytes (needs REMOTE_READ).
     */
    void getBytes(long offset, byte[] dst, int dstOffset, int length);

    /**
     * The mapping itself, unchecked, for kernels (see the class comment for what stays safe).
     *
     * @return a buffer over {@code [0, length())}; index 0 is {@link #remoteAddress()}.
     */
    AtomicBuffer buffer();

    /** Closes the view: later checked accesses throw; the mapping goes once nothing refers to it. Idempotent. */
    @Override
    void close();
}
