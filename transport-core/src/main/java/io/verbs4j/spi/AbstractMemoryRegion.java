// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.ByteBuffer;
import java.util.Objects;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.WcStatus;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The shared implementation of {@link MemoryRegion} over a {@link RegionMemory}: keys, bounds and access checks,
 * accessors and close. A provider supplies the memory and {@link #release()}.
 */
public abstract class AbstractMemoryRegion implements MemoryRegion
{
    private final AbstractProtectionDomain pd;
    private final RegionMemory memory;
    private final long address;
    private final int lkey;
    private final int rkey;
    private final int access;
    private volatile boolean open = true;

    /**
     * @param pd      owning domain.
     * @param memory  the bytes.
     * @param address the IOVA of byte 0 (by convention the native address of the first chunk).
     * @param lkey    local key (from {@link KeyTable#newKey()}).
     * @param rkey    remote key (from {@link KeyTable#newKey()}).
     * @param access  validated access flags.
     */
    protected AbstractMemoryRegion(
        final AbstractProtectionDomain pd,
        final RegionMemory memory,
        final long address,
        final int lkey,
        final int rkey,
        final int access)
    {
        this.pd = pd;
        this.memory = memory;
        this.address = address;
        this.lkey = lkey;
        this.rkey = rkey;
        this.access = access;
    }

    /** @return the memory behind the region. */
    public final RegionMemory memory()
    {
        return memory;
    }

    /**
     * Bounds check of an address range.
     *
     * @param rangeAddress start, as an IOVA.
     * @param rangeLength  length.
     * @return the offset of {@code rangeAddress} in the region, or -1 if the range is not inside it.
     */
    public final long offsetOf(final long rangeAddress, final long rangeLength)
    {
        final long offset = rangeAddress - address;
        if (offset < 0 || rangeLength < 0 || offset > memory.length() - rangeLength)
        {
            return -1;
        }
        return offset;
    }

    /**
     * The target-side check of a one-sided request: validity, access bits, then bounds (libfabric's order).
     *
     * @param rangeAddress   requested start (IOVA).
     * @param rangeLength    requested length.
     * @param requiredAccess the {@link Access} bit the operation needs.
     * @return {@link WcStatus#SUCCESS} or {@link WcStatus#REM_ACCESS_ERR}.
     */
    public final int checkRemote(final long rangeAddress, final long rangeLength, final int requiredAccess)
    {
        if (!open || requiredAccess != (access & requiredAccess) || offsetOf(rangeAddress, rangeLength) < 0)
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        return WcStatus.SUCCESS;
    }

    /** {@inheritDoc} */
    public final long address()
    {
        return address;
    }

    /** {@inheritDoc} */
    public final long length()
    {
        return memory.length();
    }

    /** {@inheritDoc} */
    public final int lkey()
    {
        return lkey;
    }

    /** {@inheritDoc} */
    public final int rkey()
    {
        return rkey;
    }

    /** {@inheritDoc} */
    public final int access()
    {
        return access;
    }

    /** {@inheritDoc} */
    public final ProtectionDomain protectionDomain()
    {
        return pd;
    }

    /** {@inheritDoc} */
    public final boolean isOpen()
    {
        return open;
    }

    /**
     * Whether a resolution remembered across posts still holds: regions are closed, never changed in place (access
     * and bounds are final), so only openness can end it.
     *
     * @param regions the resolved regions of a request's SGEs.
     * @param count   how many SGEs.
     * @return true if every one of them is still open.
     */
    static boolean allOpen(final AbstractMemoryRegion[] regions, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            if (!regions[i].isOpen())
            {
                return false;
            }
        }
        return true;
    }

    /** {@inheritDoc} */
    public final long contiguousLength(final long offset)
    {
        checkRange(offset, 0);
        return memory.contiguousLength(offset);
    }

    /** {@inheritDoc} */
    public final void wrap(final UnsafeBuffer buffer, final long offset, final int length)
    {
        Objects.requireNonNull(buffer, "buffer");
        buffer.wrap(contiguousAddress(offset, length), length);
    }

    /** {@inheritDoc} */
    public final ByteBuffer byteBuffer(final long offset, final int length)
    {
        contiguousAddress(offset, length);
        final int chunk = (int)(offset >>> memory.chunkShift());
        final Object backing = memory.keepAlive(chunk);
        if (!(backing instanceof ByteBuffer))
        {
            throw new IllegalStateException("this region is not backed by a ByteBuffer; use wrap(UnsafeBuffer, ...)");
        }
        final long chunkOffset = offset - ((long)chunk << memory.chunkShift());
        final ByteBuffer view = ((ByteBuffer)backing).duplicate();
        view.limit((int)chunkOffset + length).position((int)chunkOffset);
        return view.slice();
    }

    /** {@inheritDoc} */
    public final byte getByte(final long offset)
    {
        checkRange(offset, 1);
        return UnsafeApi.getByte(memory.addressOf(offset));
    }

    /** {@inheritDoc} */
    public final void putByte(final long offset, final byte value)
    {
        checkRange(offset, 1);
        UnsafeApi.putByte(memory.addressOf(offset), value);
    }

    /** {@inheritDoc} */
    public final int getInt(final long offset)
    {
        return UnsafeApi.getInt(contiguousAddress(offset, 4));
    }

    /** {@inheritDoc} */
    public final void putInt(final long offset, final int value)
    {
        UnsafeApi.putInt(contiguousAddress(offset, 4), value);
    }

    /** {@inheritDoc} */
    public final long getLong(final long offset)
    {
        return UnsafeApi.getLong(contiguousAddress(offset, 8));
    }

    /** {@inheritDoc} */
    public final void putLong(final long offset, final long value)
    {
        UnsafeApi.putLong(contiguousAddress(offset, 8), value);
    }

    /** {@inheritDoc} */
    public final long getLongVolatile(final long offset)
    {
        return UnsafeApi.getLongVolatile(null, alignedAddress(offset));
    }

    /** {@inheritDoc} */
    public final void putLongVolatile(final long offset, final long value)
    {
        UnsafeApi.putLongVolatile(null, alignedAddress(offset), value);
    }

    /** {@inheritDoc} */
    public final long getAndAddLong(final long offset, final long delta)
    {
        return UnsafeApi.getAndAddLong(null, alignedAddress(offset), delta);
    }

    /** {@inheritDoc} */
    public final boolean compareAndSetLong(final long offset, final long expected, final long update)
    {
        return UnsafeApi.compareAndSetLong(null, alignedAddress(offset), expected, update);
    }

    /** {@inheritDoc} */
    public final void getBytes(final long offset, final byte[] dst, final int dstOffset, final int length)
    {
        Objects.requireNonNull(dst, "dst");
        checkRange(offset, length);
        if (dstOffset < 0 || dstOffset > dst.length - length)
        {
            throw new IndexOutOfBoundsException("array range " + dstOffset + "+" + length + " of " + dst.length);
        }
        memory.copyTo(offset, dst, dstOffset, length);
    }

    /** {@inheritDoc} */
    public final void putBytes(final long offset, final byte[] src, final int srcOffset, final int length)
    {
        Objects.requireNonNull(src, "src");
        checkRange(offset, length);
        if (srcOffset < 0 || srcOffset > src.length - length)
        {
            throw new IndexOutOfBoundsException("array range " + srcOffset + "+" + length + " of " + src.length);
        }
        memory.copyFrom(src, srcOffset, offset, length);
    }

    /** {@inheritDoc} */
    public final void getBytes(final long offset, final ByteBuffer dst)
    {
        Objects.requireNonNull(dst, "dst");
        final int length = dst.remaining();
        checkRange(offset, length);
        if (dst.isDirect())
        {
            memory.copyTo(offset, BufferUtil.address(dst) + dst.position(), length);
        }
        else
        {
            memory.copyTo(offset, dst.array(), dst.arrayOffset() + dst.position(), length);
        }
        dst.position(dst.position() + length);
    }

    /** {@inheritDoc} */
    public final void putBytes(final long offset, final ByteBuffer src)
    {
        Objects.requireNonNull(src, "src");
        final int length = src.remaining();
        checkRange(offset, length);
        if (src.isDirect())
        {
            memory.copyFrom(BufferUtil.address(src) + src.position(), offset, length);
        }
        else
        {
            memory.copyFrom(src.array(), src.arrayOffset() + src.position(), offset, length);
        }
        src.position(src.position() + length);
    }

    /** {@inheritDoc} */
    public final void setMemory(final long offset, final long length, final byte value)
    {
        checkRange(offset, length);
        memory.setMemory(offset, length, value);
    }

    /** {@inheritDoc} */
    public final void close()
    {
        if (open)
        {
            synchronized (this)
            {
                if (!open)
                {
                    return;
                }
                // Invalidate first, so that every later remote check with the old rkey fails before memory goes.
                open = false;
            }
            pd.deregister(this);
            release();
        }
    }

    /** Releases the memory (unmap, free, or hand back). Called once, after the keys are invalidated. */
    protected abstract void release();

    /** {@inheritDoc} */
    public String toString()
    {
        return getClass().getSimpleName() + "{address=0x" + Long.toHexString(address) + ", length=" + length() +
            ", lkey=0x" + Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) +
            ", access=" + Access.toString(access) + ", open=" + open + '}';
    }

    private void checkRange(final long offset, final long length)
    {
        if (!open)
        {
            throw new IllegalStateException("memory region is closed: " + this);
        }
        if (offset < 0 || length < 0 || offset > memory.length() - length)
        {
            throw new IndexOutOfBoundsException("range " + offset + "+" + length + " is outside the region of length " +
                memory.length());
        }
    }

    private long contiguousAddress(final long offset, final long length)
    {
        checkRange(offset, length);
        if (length > memory.contiguousLength(offset))
        {
            throw new IllegalArgumentException("range " + offset + "+" + length + " crosses a mapping boundary " +
                "(regions over 2 GiB are mapped in 1 GiB chunks); split the access at contiguousLength(offset)");
        }
        return memory.addressOf(offset);
    }

    private long alignedAddress(final long offset)
    {
        if (0 != (offset & 7))
        {
            throw new IllegalArgumentException("offset " + offset + " is not 8-byte aligned (atomics need it)");
        }
        return contiguousAddress(offset, 8);
    }

}
