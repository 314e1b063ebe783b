// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import io.verbs4j.MemoryRegion;
import io.verbs4j.RemoteMemory;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/** A {@link RemoteMemory} over memory of this process, for link tests without devices; can be invalidated. */
final class LocalRemoteMemory implements RemoteMemory
{
    private final UnsafeBuffer buffer;
    private volatile boolean valid = true;

    LocalRemoteMemory(final long address, final int length)
    {
        this.buffer = new UnsafeBuffer(address, length);
    }

    void invalidate()
    {
        valid = false;
    }

    public long remoteAddress()
    {
        return buffer.addressOffset();
    }

    public long length()
    {
        return buffer.capacity();
    }

    public int access()
    {
        return io.verbs4j.Access.REMOTE_READ | io.verbs4j.Access.REMOTE_WRITE;
    }

    public boolean isValid()
    {
        return valid;
    }

    public long getLongAcquire(final long offset)
    {
        return buffer.getLongAcquire((int)offset);
    }

    public long getLongVolatile(final long offset)
    {
        return buffer.getLongVolatile((int)offset);
    }

    public long getLong(final long offset)
    {
        return buffer.getLong((int)offset);
    }

    public void putLongRelease(final long offset, final long value)
    {
        buffer.putLongRelease((int)offset, value);
    }

    public void putLongVolatile(final long offset, final long value)
    {
        buffer.putLongVolatile((int)offset, value);
    }

    public void putLong(final long offset, final long value)
    {
        buffer.putLong((int)offset, value);
    }

    public boolean compareAndSetLong(final long offset, final long expected, final long update)
    {
        return buffer.compareAndSetLong((int)offset, expected, update);
    }

    public long getAndAddLong(final long offset, final long delta)
    {
        return buffer.getAndAddLong((int)offset, delta);
    }

    public long getAndSetLong(final long offset, final long value)
    {
        return buffer.getAndSetLong((int)offset, value);
    }

    public void copyFrom(final long offset, final MemoryRegion source, final long sourceOffset, final long length)
    {
        final byte[] bytes = new byte[(int)length];
        source.getBytes(sourceOffset, bytes, 0, bytes.length);
        buffer.putBytes((int)offset, bytes);
    }

    public void copyTo(final long offset, final MemoryRegion destination, final long destinationOffset,
        final long length)
    {
        final byte[] bytes = new byte[(int)length];
        buffer.getBytes((int)offset, bytes);
        destination.putBytes(destinationOffset, bytes, 0, bytes.length);
    }

    public void putBytes(final long offset, final byte[] src, final int srcOffset, final int length)
    {
        buffer.putBytes((int)offset, src, srcOffset, length);
    }

    public void getBytes(final long offset, final byte[] dst, final int dstOffset, final int length)
    {
        buffer.getBytes((int)offset, dst, dstOffset, length);
    }

    public AtomicBuffer buffer()
    {
        return buffer;
    }

    public void close()
    {
        valid = false;
    }
}
