// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.nio.ByteBuffer;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Registered memory ({@code struct ibv_mr}): off-heap bytes with an address, a length, an lkey for local SGEs and an
 * rkey that peers use for one-sided operations, subject to the region's {@link Access} flags.
 * <p>
 * Lengths and offsets are {@code long}: regions over 2 GiB work. Such a region may be backed by several mappings;
 * the accessors below hide that, except the views ({@link #wrap}, {@link #byteBuffer}), which must not cross a
 * {@link #contiguousLength(long) contiguous} span.
 * <p>
 * Closing deregisters the region: from then on every remote access with its rkey fails with
 * {@link WcStatus#REM_ACCESS_ERR}, local SGEs with its lkey fail with {@link WcStatus#LOC_PROT_ERR}, and the memory
 * is released (allocated regions) or handed back to its owner (registered buffers). Close is idempotent.
 * <p>
 * Accessors may be called from any thread; they give plain (not ordered) access unless named otherwise.
 * <p>
 * Lifetime: what the provider does with a region asynchronously (a peer's WRITE streaming in, a send payload
 * queued on a socket, a copy by a progress thread) is safe against a concurrent {@link #close()}: it fails with a
 * status or finishes before the memory goes. What the application does itself is not: closing a region while
 * another application thread is still inside one of its accessors, a view from {@link #wrap}/{@link #byteBuffer},
 * or a {@code postSend} of an {@link SendRequest#INLINE} request naming it (the inline copy is made on the posting
 * thread) is a race in the application, as it is for any off-heap memory in Java, and may read released memory.
 * Close a region once the threads that use it are done with it.
 */
public interface MemoryRegion extends AutoCloseable
{
    /** @return the address (IOVA) of byte 0, the base for SGE and remote addresses. */
    long address();

    /** @return the length in bytes. */
    long length();

    /** @return the local key, for SGEs on this process's queue pairs. */
    int lkey();

    /** @return the remote key, unguessable, for peers' one-sided operations. */
    int rkey();

    /** @return the {@link Access} flags. */
    int access();

    /** @return the protection domain the region belongs to. */
    ProtectionDomain protectionDomain();

    /** @return false once closed. */
    boolean isOpen();

    /**
     * @param offset an offset in the region.
     * @return how many bytes from {@code offset} on are in one contiguous mapping.
     */
    long contiguousLength(long offset);

    /**
     * Points {@code buffer} at a slice of this region, without allocating.
     *
     * @param buffer the caller's buffer to re-point.
     * @param offset offset of the slice.
     * @param length length of the slice; must lie in one contiguous span.
     */
    void wrap(UnsafeBuffer buffer, long offset, int length);

    /**
     * A new direct {@link ByteBuffer} view of a slice (allocates: setup path only).
     *
     * @param offset offset of the slice.
     * @param length length of the slice; must lie in one contiguous span.
     * @return the view; valid until the region is closed.
     */
    ByteBuffer byteBuffer(long offset, int length);

    /**
     * @param offset offset.
     * @return the byte there.
     */
    byte getByte(long offset);

    /**
     * @param offset offset.
     * @param value  the byte.
     */
    void putByte(long offset, byte value);

    /**
     * @param offset offset.
     * @return the int there (native byte order).
     */
    int getInt(long offset);

    /**
     * @param offset offset.
     * @param value  the int (native byte order).
     */
    void putInt(long offset, int value);

    /**
     * @param offset offset.
     * @return the long there (native byte order).
     */
    long getLong(long offset);

    /**
     * @param offset offset.
     * @param value  the long (native byte order).
     */
    void putLong(long offset, long value);

    /**
     * @param offset offset, 8-byte aligned.
     * @return the long, read with volatile semantics (sees peers' atomics and ordered writes).
     */
    long getLongVolatile(long offset);

    /**
     * @param offset offset, 8-byte aligned.
     * @param value  the long, written with volatile semantics.
     */
    void putLongVolatile(long offset, long value);

    /**
     * @param offset offset, 8-byte aligned.
     * @param delta  value to add atomically (atomic with respect to peers' ATOMIC_FETCH_AND_ADD).
     * @return the previous value.
     */
    long getAndAddLong(long offset, long delta);

    /**
     * @param offset   offset, 8-byte aligned.
     * @param expected expected value.
     * @param update   new value.
     * @return true if swapped (atomic with respect to peers' ATOMIC_CMP_AND_SWP).
     */
    boolean compareAndSetLong(long offset, long expected, long update);

    /**
     * @param offset    offset in the region.
     * @param dst       destination array.
     * @param dstOffset offset in the array.
     * @param length    bytes to copy.
     */
    void getBytes(long offset, byte[] dst, int dstOffset, int length);

    /**
     * @param offset    offset in the region.
     * @param src       source array.
     * @param srcOffset offset in the array.
     * @param length    bytes to copy.
     */
    void putBytes(long offset, byte[] src, int srcOffset, int length);

    /**
     * Copies {@code dst.remaining()} bytes into {@code dst}, advancing its position.
     *
     * @param offset offset in the region.
     * @param dst    destination (heap or direct).
     */
    void getBytes(long offset, ByteBuffer dst);

    /**
     * Copies {@code src.remaining()} bytes from {@code src}, advancing its position.
     *
     * @param offset offset in the region.
     * @param src    source (heap or direct).
     */
    void putBytes(long offset, ByteBuffer src);

    /**
     * @param offset offset.
     * @param length bytes to set.
     * @param value  the byte value.
     */
    void setMemory(long offset, long length, byte value);

    /**
     * Deregisters the region (see the class comment). Idempotent.
     */
    @Override
    void close();
}
