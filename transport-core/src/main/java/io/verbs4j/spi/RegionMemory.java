// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

/**
 * Native memory behind a region, seen as {@code length} bytes addressed by offset. It may be one contiguous block
 * or several equal chunks (a file mapped in 1 GiB pieces, since a JDK 17 mapping is limited to 2 GiB); the copy
 * methods split at chunk boundaries so callers never see them. Allocation-free and thread-safe (no state changes
 * after construction).
 */
public final class RegionMemory
{
    /** Chunk size exponent used for mapped files: 1 GiB, so 8-byte atomics never straddle a chunk. */
    public static final int MAPPED_CHUNK_SHIFT = 30;
    private static final int SINGLE_CHUNK_SHIFT = 62;

    private final long length;
    private final int chunkShift;
    private final long chunkMask;
    private final long[] chunkAddresses;
    private final Object[] keepAlive;
    // One block (one chunk, however large the chunk size): copies need no split and no per-chunk lookup.
    private final boolean oneBlock;
    private final long baseAddress;

    private RegionMemory(final long length, final int chunkShift, final long[] chunkAddresses, final Object[] keepAlive)
    {
        this.length = length;
        this.chunkShift = chunkShift;
        this.chunkMask = (1L << chunkShift) - 1;
        this.chunkAddresses = chunkAddresses;
        this.keepAlive = keepAlive;
        this.oneBlock = 1 == chunkAddresses.length;
        this.baseAddress = 0 == chunkAddresses.length ? 0 : chunkAddresses[0];
    }

    /**
     * @param address   native address of byte 0.
     * @param length    length in bytes.
     * @param keepAlive an object that must stay reachable while the memory is used (e.g. its ByteBuffer), or null.
     * @return contiguous memory.
     */
    public static RegionMemory contiguous(final long address, final long length, final Object keepAlive)
    {
        return new RegionMemory(length, SINGLE_CHUNK_SHIFT, new long[]{address}, new Object[]{keepAlive});
    }

    /**
     * @param chunkAddresses native address of each chunk; every chunk but the last is {@code 1 << chunkShift} long.
     * @param chunkShift     log2 of the chunk size.
     * @param length         total length.
     * @param keepAlive      objects to keep reachable (one per chunk), may hold nulls.
     * @return chunked memory.
     */
    public static RegionMemory chunked(
        final long[] chunkAddresses, final int chunkShift, final long length, final Object[] keepAlive)
    {
        final long expectedChunks = (length + (1L << chunkShift) - 1) >>> chunkShift;
        if (expectedChunks != chunkAddresses.length)
        {
            throw new IllegalArgumentException("length " + length + " needs " + expectedChunks + " chunks, got " +
                chunkAddresses.length);
        }
        return new RegionMemory(length, chunkShift, chunkAddresses.clone(), keepAlive.clone());
    }

    /** @return the length in bytes. */
    public long length()
    {
        return length;
    }

    /** @return the chunks' native addresses (do not modify). */
    public long[] chunkAddresses()
    {
        return chunkAddresses;
    }

    /** @return log2 of the chunk size. */
    public int chunkShift()
    {
        return chunkShift;
    }

    /**
     * @param offset an offset below {@link #length()}.
     * @return the native address of that byte.
     */
    public long addressOf(final long offset)
    {
        return chunkAddresses[(int)(offset >>> chunkShift)] + (offset & chunkMask);
    }

    /**
     * @param offset an offset below {@link #length()}.
     * @return bytes from {@code offset} to the end of its chunk or of the memory.
     */
    public long contiguousLength(final long offset)
    {
        final long toChunkEnd = (1L << chunkShift) - (offset & chunkMask);
        return Math.min(toChunkEnd, length - offset);
    }

    /**
     * Copies out to native memory.
     *
     * @param offset     source offset.
     * @param dstAddress destination native address.
     * @param count      bytes.
     */
    public void copyTo(final long offset, final long dstAddress, final long count)
    {
        if (oneBlock)
        {
            UnsafeApi.copyMemory(baseAddress + offset, dstAddress, count);
            return;
        }
        long done = 0;
        while (done < count)
        {
            final long n = Math.min(count - done, contiguousLength(offset + done));
            UnsafeApi.copyMemory(addressOf(offset + done), dstAddress + done, n);
            done += n;
        }
    }

    /**
     * Copies in from native memory.
     *
     * @param srcAddress source native address.
     * @param offset     destination offset.
     * @param count      bytes.
     */
    public void copyFrom(final long srcAddress, final long offset, final long count)
    {
        if (oneBlock)
        {
            UnsafeApi.copyMemory(srcAddress, baseAddress + offset, count);
            return;
        }
        long done = 0;
        while (done < count)
        {
            final long n = Math.min(count - done, contiguousLength(offset + done));
            UnsafeApi.copyMemory(srcAddress + done, addressOf(offset + done), n);
            done += n;
        }
    }

    /**
     * Copies out to a heap array.
     *
     * @param offset    source offset.
     * @param dst       destination array.
     * @param dstOffset index in the array.
     * @param count     bytes.
     */
    public void copyTo(final long offset, final byte[] dst, final int dstOffset, final int count)
    {
        if (oneBlock)
        {
            UnsafeApi.copyMemory(null, baseAddress + offset, dst, BufferUtil.ARRAY_BASE_OFFSET + dstOffset, count);
            return;
        }
        long done = 0;
        while (done < count)
        {
            final long n = Math.min(count - done, contiguousLength(offset + done));
            final long dstIndex = BufferUtil.ARRAY_BASE_OFFSET + dstOffset + done;
            UnsafeApi.copyMemory(null, addressOf(offset + done), dst, dstIndex, n);
            done += n;
        }
    }

    /**
     * Copies in from a heap array.
     *
     * @param src       source array.
     * @param srcOffset index in the array.
     * @param offset    destination offset.
     * @param count     bytes.
     */
    public void copyFrom(final byte[] src, final int srcOffset, final long offset, final int count)
    {
        if (oneBlock)
        {
            UnsafeApi.copyMemory(src, BufferUtil.ARRAY_BASE_OFFSET + srcOffset, null, baseAddress + offset, count);
            return;
        }
        long done = 0;
        while (done < count)
        {
            final long n = Math.min(count - done, contiguousLength(offset + done));
            final long srcIndex = BufferUtil.ARRAY_BASE_OFFSET + srcOffset + done;
            UnsafeApi.copyMemory(src, srcIndex, null, addressOf(offset + done), n);
            done += n;
        }
    }

    /**
     * Copies between two memories (either may be chunked; ranges may not overlap).
     *
     * @param src       source.
     * @param srcOffset source offset.
     * @param dst       destination.
     * @param dstOffset destination offset.
     * @param count     bytes.
     */
    public static void copy(
        final RegionMemory src, final long srcOffset, final RegionMemory dst, final long dstOffset, final long count)
    {
        if (src.oneBlock & dst.oneBlock)
        {
            // the direct path's case (a WRITE or READ between two regions of one block each): no chunk arithmetic
            UnsafeApi.copyMemory(src.baseAddress + srcOffset, dst.baseAddress + dstOffset, count);
            return;
        }
        long done = 0;
        while (done < count)
        {
            final long n = Math.min(
                count - done, Math.min(src.contiguousLength(srcOffset + done), dst.contiguousLength(dstOffset + done)));
            UnsafeApi.copyMemory(src.addressOf(srcOffset + done), dst.addressOf(dstOffset + done), n);
            done += n;
        }
    }

    /**
     * @param offset start.
     * @param count  bytes.
     * @param value  byte value.
     */
    public void setMemory(final long offset, final long count, final byte value)
    {
        long done = 0;
        while (done < count)
        {
            final long n = Math.min(count - done, contiguousLength(offset + done));
            UnsafeApi.setMemory(addressOf(offset + done), n, value);
            done += n;
        }
    }

    /**
     * @param index a chunk.
     * @return the object kept alive for it (e.g. its mapping), or null.
     */
    public Object keepAlive(final int index)
    {
        return keepAlive[index];
    }

    /** @return number of chunks. */
    public int chunkCount()
    {
        return chunkAddresses.length;
    }
}
