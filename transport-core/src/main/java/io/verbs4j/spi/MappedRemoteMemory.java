// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.MappedByteBuffer;
import java.util.Objects;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.RemoteAccessException;
import io.verbs4j.RemoteMemory;
import io.verbs4j.WcStatus;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A {@link RemoteMemory} over a mapping of the peer's region file that belongs to this view alone.
 * <p>
 * Why it cannot fault: the mapping is a {@link MappedByteBuffer} referenced by this view and by the
 * {@link #buffer()} it hands out (an {@link UnsafeBuffer} wrapping a buffer keeps it reachable); the JDK unmaps it
 * only once both are unreachable, so no thread can hold an address into it after it went. Unlinking the file (the
 * owner deregistering or dying) does not take the pages away from a live mapping, and nothing truncates region
 * files. {@link #close()} therefore only marks the view closed.
 */
public final class MappedRemoteMemory implements RemoteMemory
{
    private static final int ANY_REMOTE = Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;

    private final long remoteAddress;
    private final int length;
    private final int access;
    private final PeerRegionProbe probe;
    private final UnsafeBuffer buffer;
    private final long base;
    private volatile boolean closed;

    /**
     * @param mapping       exactly the mapped window.
     * @param remoteAddress the peer-side address of its first byte.
     * @param access        the REMOTE_* bits asked for (already checked against the region).
     * @param probe         the validity check of the peer region.
     */
    public MappedRemoteMemory(final MappedByteBuffer mapping, final long remoteAddress, final int access,
        final PeerRegionProbe probe)
    {
        this.remoteAddress = remoteAddress;
        this.length = mapping.capacity();
        this.access = access;
        this.probe = probe;
        this.buffer = new UnsafeBuffer(mapping);
        this.base = buffer.addressOffset();
    }

    /**
     * Validates the arguments of {@link io.verbs4j.QueuePair#mapRemote}.
     *
     * @param length bytes asked.
     * @param access bits asked.
     * @throws IllegalArgumentException naming what is wrong.
     */
    public static void checkArguments(final long length, final int access)
    {
        if (length < 1 || length > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("mapRemote length " + length + " must be 1 to " + Integer.MAX_VALUE +
                " bytes; map a larger region as several views");
        }
        if (0 == access || 0 != (access & ~ANY_REMOTE))
        {
            throw new IllegalArgumentException("mapRemote access 0x" + Integer.toHexString(access) +
                " must be a non-empty combination of Access.REMOTE_READ, REMOTE_WRITE and REMOTE_ATOMIC");
        }
    }

    /** {@inheritDoc} */
    public long remoteAddress()
    {
        return remoteAddress;
    }

    /** {@inheritDoc} */
    public long length()
    {
        return length;
    }

    /** {@inheritDoc} */
    public int access()
    {
        return access;
    }

    /** {@inheritDoc} */
    public boolean isValid()
    {
        return !closed && WcStatus.SUCCESS == probe.status();
    }

    /** {@inheritDoc} */
    public long getLongAcquire(final long offset)
    {
        return UnsafeApi.getLongAcquire(null, check(offset, 8, Access.REMOTE_READ));
    }

    /** {@inheritDoc} */
    public long getLongVolatile(final long offset)
    {
        return UnsafeApi.getLongVolatile(null, check(offset, 8, Access.REMOTE_READ));
    }

    /** {@inheritDoc} */
    public long getLong(final long offset)
    {
        return UnsafeApi.getLong(check(offset, 8, Access.REMOTE_READ));
    }

    /** {@inheritDoc} */
    public void putLongRelease(final long offset, final long value)
    {
        UnsafeApi.putLongRelease(null, check(offset, 8, Access.REMOTE_WRITE), value);
    }

    /** {@inheritDoc} */
    public void putLongVolatile(final long offset, final long value)
    {
        UnsafeApi.putLongVolatile(null, check(offset, 8, Access.REMOTE_WRITE), value);
    }

    /** {@inheritDoc} */
    public void putLong(final long offset, final long value)
    {
        UnsafeApi.putLong(check(offset, 8, Access.REMOTE_WRITE), value);
    }

    /** {@inheritDoc} */
    public boolean compareAndSetLong(final long offset, final long expected, final long update)
    {
        return UnsafeApi.compareAndSetLong(null, check(offset, 8, Access.REMOTE_ATOMIC), expected, update);
    }

    /** {@inheritDoc} */
    public long getAndAddLong(final long offset, final long delta)
    {
        return UnsafeApi.getAndAddLong(null, check(offset, 8, Access.REMOTE_ATOMIC), delta);
    }

    /** {@inheritDoc} */
    public long getAndSetLong(final long offset, final long value)
    {
        return UnsafeApi.getAndSetLong(null, check(offset, 8, Access.REMOTE_ATOMIC), value);
    }

    /** {@inheritDoc} */
    public void copyFrom(final long offset, final MemoryRegion source, final long sourceOffset, final long length)
    {
        Objects.requireNonNull(source, "source");
        final long target = check(offset, length, Access.REMOTE_WRITE);
        checkLocal(source, sourceOffset, length);
        long done = 0;
        while (done < length)
        {
            final long run = Math.min(length - done, source.contiguousLength(sourceOffset + done));
            UnsafeApi.copyMemory(localAddress(source, sourceOffset + done), target + done, run);
            done += run;
        }
    }

    /** {@inheritDoc} */
    public void copyTo(final long offset, final MemoryRegion destination, final long destinationOffset,
        final long length)
    {
        Objects.requireNonNull(destination, "destination");
        final long from = check(offset, length, Access.REMOTE_READ);
        checkLocal(destination, destinationOffset, length);
        long done = 0;
        while (done < length)
        {
            final long run = Math.min(length - done, destination.contiguousLength(destinationOffset + done));
            UnsafeApi.copyMemory(from + done, localAddress(destination, destinationOffset + done), run);
            done += run;
        }
    }

    /** {@inheritDoc} */
    public void putBytes(final long offset, final byte[] src, final int srcOffset, final int length)
    {
        Objects.requireNonNull(src, "src");
        final long target = check(offset, length, Access.REMOTE_WRITE);
        checkArray(src.length, srcOffset, length);
        UnsafeApi.copyMemory(src, BufferUtil.ARRAY_BASE_OFFSET + srcOffset, null, target, length);
    }

    /** {@inheritDoc} */
    public void getBytes(final long offset, final byte[] dst, final int dstOffset, final int length)
    {
        Objects.requireNonNull(dst, "dst");
        final long from = check(offset, length, Access.REMOTE_READ);
        checkArray(dst.length, dstOffset, length);
        UnsafeApi.copyMemory(null, from, dst, BufferUtil.ARRAY_BASE_OFFSET + dstOffset, length);
    }

    /** {@inheritDoc} */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /** {@inheritDoc} */
    public void close()
    {
        closed = true;
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "RemoteMemory{remoteAddress=0x" + Long.toHexString(remoteAddress) + ", length=" + length +
            ", access=0x" + Integer.toHexString(access) + (closed ? ", closed" : "") + '}';
    }

    private long check(final long offset, final long bytes, final int required)
    {
        if (closed)
        {
            throw new RemoteAccessException(WcStatus.WR_FLUSH_ERR, "the remote memory view was closed");
        }
        if (required != (access & required))
        {
            throw new RemoteAccessException(WcStatus.REM_ACCESS_ERR, "the view was mapped without " +
                Access.toString(required) + "; map it with that access");
        }
        if (offset < 0 || bytes < 0 || offset > length - bytes)
        {
            throw new RemoteAccessException(WcStatus.REM_ACCESS_ERR, "range [" + offset + ", " + offset + " + " +
                bytes + ") is outside the view of " + length + " bytes");
        }
        final int status = probe.status();
        if (WcStatus.SUCCESS != status)
        {
            throw new RemoteAccessException(status, probe.describe(status));
        }
        return base + offset;
    }

    private static void checkLocal(final MemoryRegion region, final long offset, final long bytes)
    {
        if (!region.isOpen())
        {
            throw new IllegalStateException("the local region is closed");
        }
        if (offset < 0 || offset > region.length() - bytes)
        {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + " + " + bytes +
                ") is outside the local region of " + region.length() + " bytes");
        }
    }

    private static void checkArray(final int arrayLength, final int offset, final int bytes)
    {
        if (offset < 0 || offset > arrayLength - bytes)
        {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + " + " + bytes +
                ") is outside the array of " + arrayLength + " bytes");
        }
    }

    private static long localAddress(final MemoryRegion region, final long offset)
    {
        if (region instanceof AbstractMemoryRegion)
        {
            return ((AbstractMemoryRegion)region).memory().addressOf(offset);
        }
        final UnsafeBuffer probe = new UnsafeBuffer(0, 0);
        region.wrap(probe, offset, 1);
        return probe.addressOffset();
    }
}
