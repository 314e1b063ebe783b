// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * A page-aligned direct buffer with its address, pre-touched so page faults happen at allocation, not while
 * timing. Freed by the garbage collector with its {@link ByteBuffer}.
 */
final class OffHeapBuffer
{
    private static final int PAGE = 4096;

    private final ByteBuffer buffer;
    private final long address;
    private final int length;

    /**
     * Allocates and fills with a non-zero byte.
     *
     * @param length bytes.
     */
    OffHeapBuffer(final int length)
    {
        this.buffer = BufferUtil.allocateDirectAligned(alignUp(length), PAGE);
        this.address = BufferUtil.address(buffer);
        this.length = length;
        UnsafeApi.setMemory(address, buffer.capacity(), (byte)0x5A);
    }

    /**
     * Base address.
     *
     * @return the address, page aligned.
     */
    long address()
    {
        return address;
    }

    /**
     * Usable length.
     *
     * @return the length asked for.
     */
    int length()
    {
        return length;
    }

    /**
     * An Agrona view of the usable bytes; it holds the buffer, so the memory lives as long as the view.
     *
     * @return a new view of {@link #length()} bytes.
     */
    UnsafeBuffer view()
    {
        return new UnsafeBuffer(buffer, 0, length);
    }

    private static int alignUp(final int length)
    {
        final long aligned = (length + (long)PAGE - 1) & -PAGE;
        if (aligned > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("buffer too large: " + length);
        }
        return (int)aligned;
    }
}
