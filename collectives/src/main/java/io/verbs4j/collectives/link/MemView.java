// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A mutable view of {@code length} bytes that the engine reads, writes and sends from: either a slice of a
 * registered {@link MemoryRegion} (sendable without a copy on queue pairs of its protection domain), or raw native
 * memory (sent through a staging copy). It hides the 1 GiB mappings of regions over 2 GiB: {@link #nativeAddress}
 * is valid for {@link #contiguousBytes} bytes. Allocation-free; single-threaded.
 */
public final class MemView
{
    private MemoryRegion region;
    private long regionOffset;
    private long length;
    private long nativeBase;
    private boolean contiguous;
    private final UnsafeBuffer probe = new UnsafeBuffer(new byte[8]);

    /**
     * @param region the region.
     * @param offset offset of byte 0 of the view in the region.
     * @param length bytes.
     * @return this.
     */
    public MemView wrapRegion(final MemoryRegion region, final long offset, final long length)
    {
        this.region = region;
        this.regionOffset = offset;
        this.length = length;
        this.contiguous = region.contiguousLength(0) >= region.length();
        this.nativeBase = contiguous ? region.address() + offset : 0;
        return this;
    }

    /**
     * @param address native address of byte 0.
     * @param length  bytes.
     * @return this.
     */
    public MemView wrapNative(final long address, final long length)
    {
        this.region = null;
        this.regionOffset = 0;
        this.length = length;
        this.contiguous = true;
        this.nativeBase = address;
        return this;
    }

    /**
     * Points this view at the same memory as another, starting {@code offset} bytes into it.
     *
     * @param other  the view.
     * @param offset bytes into {@code other}.
     * @param length bytes.
     * @return this.
     */
    public MemView wrapView(final MemView other, final long offset, final long length)
    {
        if (null != other.region)
        {
            return wrapRegion(other.region, other.regionOffset + offset, length);
        }
        return wrapNative(other.nativeBase + offset, length);
    }

    /** @return bytes. */
    public long length()
    {
        return length;
    }

    /** @return the region, or null for raw memory. */
    public MemoryRegion region()
    {
        return region;
    }

    /**
     * @param offset byte offset in the view.
     * @return the native address of that byte.
     */
    public long nativeAddress(final long offset)
    {
        if (contiguous)
        {
            return nativeBase + offset;
        }
        region.wrap(probe, regionOffset + offset, 1);
        return probe.addressOffset();
    }

    /**
     * @param offset byte offset in the view.
     * @return bytes from there that are contiguous in native memory (up to the end of the view).
     */
    public long contiguousBytes(final long offset)
    {
        final long rest = length - offset;
        return contiguous ? rest : Math.min(rest, region.contiguousLength(regionOffset + offset));
    }

    /**
     * @param pd a protection domain.
     * @return true when the view's region belongs to it (sends need no staging copy).
     */
    public boolean registeredIn(final ProtectionDomain pd)
    {
        return null != region && null != pd && region.protectionDomain() == pd;
    }

    /** @return the region's lkey (only meaningful when {@link #registeredIn} is true). */
    public int lkey()
    {
        return region.lkey();
    }

    /**
     * @param offset byte offset in the view.
     * @return the verbs (IOVA) address of that byte, for SGEs.
     */
    public long iova(final long offset)
    {
        return region.address() + regionOffset + offset;
    }

    /**
     * @param other another view.
     * @return true when both start at the same native byte.
     */
    public boolean sameStart(final MemView other)
    {
        return (0 == length && 0 == other.length) || nativeAddress(0) == other.nativeAddress(0);
    }
}
