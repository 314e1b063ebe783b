// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.nio.ByteBuffer;
import java.util.Objects;

import io.verbs4j.MemoryRegion;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

/**
 * A reusable, mutable reference to the memory a collective reads or writes — like a verbs work request, build it
 * once and re-point it with the {@code wrap} methods, so calls allocate nothing.
 * <ul>
 *   <li><b>Registered region</b> ({@link #of(MemoryRegion)}): no copy at all. Use memory from
 *       {@link Communicator#allocate(long)} (registered with the communicator's protection domain); a region of
 *       another protection domain works too but is copied into the link's staging slot on the send side.</li>
 *   <li><b>Direct {@link ByteBuffer}</b>: received into directly; sent through a staging copy.</li>
 *   <li><b>Heap array or heap ByteBuffer</b>: staged through a registered scratch region (one copy in, one copy
 *       out), as Gloo does for unregistered memory.</li>
 * </ul>
 * Offsets of the data must be aligned to the element size. Lengths are {@code long}: regions over 2 GiB work.
 * The buffer covers {@code [offset, offset + byteLength)} of the memory; a call's count must fit in it.
 * Not thread-safe; must not be re-pointed while a non-blocking call that uses it is pending.
 */
public final class CommBuffer
{
    /** Where the bytes live. */
    public enum Kind
    {
        /** A registered {@link MemoryRegion}. */
        REGION,
        /** Native memory of a direct ByteBuffer. */
        DIRECT,
        /** A Java array (or heap ByteBuffer). */
        HEAP
    }

    private Kind kind;
    private MemoryRegion region;
    private long offset;
    private long byteLength;
    private Object array;
    private long address;
    private ByteBuffer keepAlive;

    private CommBuffer()
    {
    }

    /**
     * @param region a registered region (all of it).
     * @return a buffer over the region.
     */
    public static CommBuffer of(final MemoryRegion region)
    {
        return new CommBuffer().wrap(region, 0, region.length());
    }

    /**
     * @param region     a registered region.
     * @param offset     first byte.
     * @param byteLength bytes.
     * @return a buffer over the slice.
     */
    public static CommBuffer of(final MemoryRegion region, final long offset, final long byteLength)
    {
        return new CommBuffer().wrap(region, offset, byteLength);
    }

    /**
     * @param buffer direct or heap; covers position..limit.
     * @return a buffer.
     */
    public static CommBuffer of(final ByteBuffer buffer)
    {
        return new CommBuffer().wrap(buffer);
    }

    /**
     * @param array the array.
     * @return a buffer over all of it.
     */
    public static CommBuffer of(final byte[] array)
    {
        return new CommBuffer().wrap(array);
    }

    /**
     * @param array the array (float16/bfloat16 bits, or int16).
     * @return a buffer over all of it.
     */
    public static CommBuffer of(final short[] array)
    {
        return new CommBuffer().wrap(array);
    }

    /**
     * @param array the array.
     * @return a buffer over all of it.
     */
    public static CommBuffer of(final int[] array)
    {
        return new CommBuffer().wrap(array);
    }

    /**
     * @param array the array.
     * @return a buffer over all of it.
     */
    public static CommBuffer of(final long[] array)
    {
        return new CommBuffer().wrap(array);
    }

    /**
     * @param array the array.
     * @return a buffer over all of it.
     */
    public static CommBuffer of(final float[] array)
    {
        return new CommBuffer().wrap(array);
    }

    /**
     * @param array the array.
     * @return a buffer over all of it.
     */
    public static CommBuffer of(final double[] array)
    {
        return new CommBuffer().wrap(array);
    }

    /**
     * Re-points this buffer at a region slice.
     *
     * @param region     the region.
     * @param offset     first byte.
     * @param byteLength bytes.
     * @return this.
     */
    public CommBuffer wrap(final MemoryRegion region, final long offset, final long byteLength)
    {
        Objects.requireNonNull(region, "region");
        if (offset < 0 || byteLength < 0 || offset > region.length() - byteLength)
        {
            throw new IndexOutOfBoundsException("slice " + offset + "+" + byteLength + " outside region of " +
                region.length() + " bytes");
        }
        clear();
        this.kind = Kind.REGION;
        this.region = region;
        this.offset = offset;
        this.byteLength = byteLength;
        return this;
    }

    /**
     * Re-points this buffer at a ByteBuffer's position..limit.
     *
     * @param buffer direct or heap (not read-only heap).
     * @return this.
     */
    public CommBuffer wrap(final ByteBuffer buffer)
    {
        Objects.requireNonNull(buffer, "buffer");
        clear();
        if (buffer.isDirect())
        {
            this.kind = Kind.DIRECT;
            this.address = BufferUtil.address(buffer) + buffer.position();
            this.keepAlive = buffer;
        }
        else
        {
            if (!buffer.hasArray())
            {
                throw new IllegalArgumentException("a read-only heap ByteBuffer cannot be used; wrap its array");
            }
            this.kind = Kind.HEAP;
            this.array = buffer.array();
            this.offset = UnsafeApi.arrayBaseOffset(byte[].class) + buffer.arrayOffset() + buffer.position();
        }
        this.byteLength = buffer.remaining();
        return this;
    }

    /**
     * @param array the array.
     * @return this.
     */
    public CommBuffer wrap(final byte[] array)
    {
        Objects.requireNonNull(array, "array");
        return heap(array, byte[].class, array.length);
    }

    /**
     * @param array the array.
     * @return this.
     */
    public CommBuffer wrap(final short[] array)
    {
        Objects.requireNonNull(array, "array");
        return heap(array, short[].class, 2L * array.length);
    }

    /**
     * @param array the array.
     * @return this.
     */
    public CommBuffer wrap(final int[] array)
    {
        Objects.requireNonNull(array, "array");
        return heap(array, int[].class, 4L * array.length);
    }

    /**
     * @param array the array.
     * @return this.
     */
    public CommBuffer wrap(final long[] array)
    {
        Objects.requireNonNull(array, "array");
        return heap(array, long[].class, 8L * array.length);
    }

    /**
     * @param array the array.
     * @return this.
     */
    public CommBuffer wrap(final float[] array)
    {
        Objects.requireNonNull(array, "array");
        return heap(array, float[].class, 4L * array.length);
    }

    /**
     * @param array the array.
     * @return this.
     */
    public CommBuffer wrap(final double[] array)
    {
        Objects.requireNonNull(array, "array");
        return heap(array, double[].class, 8L * array.length);
    }

    /** @return where the bytes live. */
    public Kind kind()
    {
        return kind;
    }

    /** @return bytes covered. */
    public long byteLength()
    {
        return byteLength;
    }

    /** @return the region (REGION kind), else null. */
    public MemoryRegion region()
    {
        return region;
    }

    /** @return offset in the region (REGION kind), or the Unsafe offset in the array (HEAP kind). */
    public long offset()
    {
        return offset;
    }

    /** @return the array (HEAP kind), else null. */
    public Object array()
    {
        return array;
    }

    /** @return native address of the first byte (DIRECT kind), else 0. */
    public long address()
    {
        return address;
    }

    /**
     * @param other another buffer.
     * @return true when both start at the same memory (an in-place call).
     */
    public boolean sameStart(final CommBuffer other)
    {
        if (this == other)
        {
            return true;
        }
        if (kind != other.kind)
        {
            return false;
        }
        switch (kind)
        {
            case REGION:
                return region == other.region && offset == other.offset;
            case DIRECT:
                return address == other.address;
            default:
                return array == other.array && offset == other.offset;
        }
    }

    private CommBuffer heap(final Object array, final Class<?> type, final long length)
    {
        Objects.requireNonNull(array, "array");
        clear();
        this.kind = Kind.HEAP;
        this.array = array;
        this.offset = UnsafeApi.arrayBaseOffset(type);
        this.byteLength = length;
        return this;
    }

    private void clear()
    {
        region = null;
        array = null;
        keepAlive = null;
        address = 0;
        offset = 0;
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "CommBuffer{" + kind + ", " + byteLength + " bytes" + (null != region ? ", region " + region : "") + '}';
    }
}
