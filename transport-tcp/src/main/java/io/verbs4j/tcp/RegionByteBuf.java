// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

/**
 * A Netty buffer over a contiguous slice of registered memory, so that payloads go to the socket straight from the
 * region (epoll writes it by address with {@code writev}; NIO gets a {@link ByteBuffer} view). It pins its region
 * while alive and, once Netty releases it after the write, unpins the region and returns to its connection's pool:
 * no copy and no garbage per operation.
 * <p>
 * Netty 4.2 cannot wrap a raw address on JDK 17 without reflective access to {@code DirectByteBuffer}, hence this
 * class. The pool is a bounded concurrent queue: buffers are taken by the holder of the connection's driver lock and
 * given back by whichever thread Netty releases them on (a full pool drops the buffer).
 */
final class RegionByteBuf extends AbstractReferenceCountedByteBuf
{
    private static final boolean NATIVE_BIG_ENDIAN = ByteOrder.BIG_ENDIAN == ByteOrder.nativeOrder();

    private final ManyToManyConcurrentArrayQueue<RegionByteBuf> pool;
    private TcpMemoryRegion region;
    private long address;
    private int length;

    private RegionByteBuf(final ManyToManyConcurrentArrayQueue<RegionByteBuf> pool)
    {
        super(Integer.MAX_VALUE);
        this.pool = pool;
    }

    /**
     * Takes a buffer from the pool (or makes one) over {@code [address, address + length)} of {@code region},
     * pinning the region.
     *
     * @param pool    the connection's pool.
     * @param region  the region.
     * @param address native address of the slice (inside one contiguous span).
     * @param length  bytes.
     * @return the buffer (reference count 1, readable bytes = length), or null if the region was closed.
     */
    static RegionByteBuf take(
        final ManyToManyConcurrentArrayQueue<RegionByteBuf> pool,
        final TcpMemoryRegion region,
        final long address,
        final int length)
    {
        if (!region.tryPin())
        {
            return null;
        }
        RegionByteBuf buffer = pool.poll();
        if (null == buffer)
        {
            buffer = new RegionByteBuf(pool);
        }
        else
        {
            buffer.resetRefCnt();
        }
        buffer.region = region;
        buffer.address = address;
        buffer.length = length;
        buffer.setIndex(0, length);
        return buffer;
    }

    /** {@inheritDoc} */
    protected void deallocate()
    {
        final TcpMemoryRegion pinned = region;
        region = null;
        address = 0;
        length = 0;
        if (null != pinned)
        {
            pinned.unpin();
            pool.offer(this);
        }
    }

    /** {@inheritDoc} */
    public int capacity()
    {
        return length;
    }

    /** {@inheritDoc} */
    public ByteBuf capacity(final int newCapacity)
    {
        throw new UnsupportedOperationException("a region slice has a fixed capacity");
    }

    /** {@inheritDoc} */
    public ByteBufAllocator alloc()
    {
        return UnpooledByteBufAllocator.DEFAULT;
    }

    /** {@inheritDoc} */
    @SuppressWarnings("deprecation")
    public ByteOrder order()
    {
        return ByteOrder.BIG_ENDIAN;
    }

    /** {@inheritDoc} */
    public ByteBuf unwrap()
    {
        return null;
    }

    /** {@inheritDoc} */
    public boolean isDirect()
    {
        return true;
    }

    /** {@inheritDoc} */
    public boolean hasArray()
    {
        return false;
    }

    /** {@inheritDoc} */
    public byte[] array()
    {
        throw new UnsupportedOperationException("region memory has no backing array");
    }

    /** {@inheritDoc} */
    public int arrayOffset()
    {
        throw new UnsupportedOperationException("region memory has no backing array");
    }

    /** {@inheritDoc} */
    public boolean hasMemoryAddress()
    {
        return true;
    }

    /** {@inheritDoc} */
    public long memoryAddress()
    {
        return address;
    }

    /** {@inheritDoc} */
    public int nioBufferCount()
    {
        return 1;
    }

    /** {@inheritDoc} */
    public ByteBuffer nioBuffer(final int index, final int length)
    {
        checkIndex(index, length);
        return region.view(address + index, length);
    }

    /** {@inheritDoc} */
    public ByteBuffer internalNioBuffer(final int index, final int length)
    {
        return nioBuffer(index, length);
    }

    /** {@inheritDoc} */
    public ByteBuffer[] nioBuffers(final int index, final int length)
    {
        return new ByteBuffer[]{nioBuffer(index, length)};
    }

    /** {@inheritDoc} */
    protected byte _getByte(final int index)
    {
        return UnsafeApi.getByte(address + index);
    }

    /** {@inheritDoc} */
    protected short _getShort(final int index)
    {
        final short v = UnsafeApi.getShort(address + index);
        return NATIVE_BIG_ENDIAN ? v : Short.reverseBytes(v);
    }

    /** {@inheritDoc} */
    protected short _getShortLE(final int index)
    {
        return Short.reverseBytes(_getShort(index));
    }

    /** {@inheritDoc} */
    protected int _getUnsignedMedium(final int index)
    {
        return (_getByte(index) & 0xff) << 16 | (_getByte(index + 1) & 0xff) << 8 | _getByte(index + 2) & 0xff;
    }

    /** {@inheritDoc} */
    protected int _getUnsignedMediumLE(final int index)
    {
        return _getByte(index) & 0xff | (_getByte(index + 1) & 0xff) << 8 | (_getByte(index + 2) & 0xff) << 16;
    }

    /** {@inheritDoc} */
    protected int _getInt(final int index)
    {
        final int v = UnsafeApi.getInt(address + index);
        return NATIVE_BIG_ENDIAN ? v : Integer.reverseBytes(v);
    }

    /** {@inheritDoc} */
    protected int _getIntLE(final int index)
    {
        return Integer.reverseBytes(_getInt(index));
    }

    /** {@inheritDoc} */
    protected long _getLong(final int index)
    {
        final long v = UnsafeApi.getLong(address + index);
        return NATIVE_BIG_ENDIAN ? v : Long.reverseBytes(v);
    }

    /** {@inheritDoc} */
    protected long _getLongLE(final int index)
    {
        return Long.reverseBytes(_getLong(index));
    }

    /** {@inheritDoc} */
    protected void _setByte(final int index, final int value)
    {
        UnsafeApi.putByte(address + index, (byte)value);
    }

    /** {@inheritDoc} */
    protected void _setShort(final int index, final int value)
    {
        UnsafeApi.putShort(address + index, NATIVE_BIG_ENDIAN ? (short)value : Short.reverseBytes((short)value));
    }

    /** {@inheritDoc} */
    protected void _setShortLE(final int index, final int value)
    {
        _setShort(index, Short.reverseBytes((short)value));
    }

    /** {@inheritDoc} */
    protected void _setMedium(final int index, final int value)
    {
        _setByte(index, value >>> 16);
        _setByte(index + 1, value >>> 8);
        _setByte(index + 2, value);
    }

    /** {@inheritDoc} */
    protected void _setMediumLE(final int index, final int value)
    {
        _setByte(index, value);
        _setByte(index + 1, value >>> 8);
        _setByte(index + 2, value >>> 16);
    }

    /** {@inheritDoc} */
    protected void _setInt(final int index, final int value)
    {
        UnsafeApi.putInt(address + index, NATIVE_BIG_ENDIAN ? value : Integer.reverseBytes(value));
    }

    /** {@inheritDoc} */
    protected void _setIntLE(final int index, final int value)
    {
        _setInt(index, Integer.reverseBytes(value));
    }

    /** {@inheritDoc} */
    protected void _setLong(final int index, final long value)
    {
        UnsafeApi.putLong(address + index, NATIVE_BIG_ENDIAN ? value : Long.reverseBytes(value));
    }

    /** {@inheritDoc} */
    protected void _setLongLE(final int index, final long value)
    {
        _setLong(index, Long.reverseBytes(value));
    }

    /** {@inheritDoc} */
    public ByteBuf getBytes(final int index, final ByteBuf dst, final int dstIndex, final int length)
    {
        checkIndex(index, length);
        if (dst.hasMemoryAddress())
        {
            UnsafeApi.copyMemory(address + index, dst.memoryAddress() + dstIndex, length);
        }
        else if (dst.hasArray())
        {
            getBytes(index, dst.array(), dst.arrayOffset() + dstIndex, length);
        }
        else
        {
            dst.setBytes(dstIndex, this, index, length);
        }
        return this;
    }

    /** {@inheritDoc} */
    public ByteBuf getBytes(final int index, final byte[] dst, final int dstIndex, final int length)
    {
        checkIndex(index, length);
        UnsafeApi.copyMemory(null, address + index, dst, BufferUtil.ARRAY_BASE_OFFSET + dstIndex, length);
        return this;
    }

    /** {@inheritDoc} */
    public ByteBuf getBytes(final int index, final ByteBuffer dst)
    {
        final int count = dst.remaining();
        checkIndex(index, count);
        if (dst.isDirect())
        {
            UnsafeApi.copyMemory(address + index, BufferUtil.address(dst) + dst.position(), count);
        }
        else
        {
            getBytes(index, dst.array(), dst.arrayOffset() + dst.position(), count);
        }
        dst.position(dst.position() + count);
        return this;
    }

    /** {@inheritDoc} */
    public ByteBuf getBytes(final int index, final OutputStream out, final int length) throws IOException
    {
        final byte[] bytes = new byte[length];
        getBytes(index, bytes, 0, length);
        out.write(bytes);
        return this;
    }

    /** {@inheritDoc} */
    public int getBytes(final int index, final GatheringByteChannel out, final int length) throws IOException
    {
        return out.write(nioBuffer(index, length));
    }

    /** {@inheritDoc} */
    public int getBytes(final int index, final FileChannel out, final long position, final int length)
        throws IOException
    {
        return out.write(nioBuffer(index, length), position);
    }

    /** {@inheritDoc} */
    public ByteBuf setBytes(final int index, final ByteBuf src, final int srcIndex, final int length)
    {
        checkIndex(index, length);
        if (src.hasMemoryAddress())
        {
            UnsafeApi.copyMemory(src.memoryAddress() + srcIndex, address + index, length);
        }
        else if (src.hasArray())
        {
            setBytes(index, src.array(), src.arrayOffset() + srcIndex, length);
        }
        else
        {
            src.getBytes(srcIndex, this, index, length);
        }
        return this;
    }

    /** {@inheritDoc} */
    public ByteBuf setBytes(final int index, final byte[] src, final int srcIndex, final int length)
    {
        checkIndex(index, length);
        UnsafeApi.copyMemory(src, BufferUtil.ARRAY_BASE_OFFSET + srcIndex, null, address + index, length);
        return this;
    }

    /** {@inheritDoc} */
    public ByteBuf setBytes(final int index, final ByteBuffer src)
    {
        final int count = src.remaining();
        checkIndex(index, count);
        if (src.isDirect())
        {
            UnsafeApi.copyMemory(BufferUtil.address(src) + src.position(), address + index, count);
        }
        else
        {
            setBytes(index, src.array(), src.arrayOffset() + src.position(), count);
        }
        src.position(src.position() + count);
        return this;
    }

    /** {@inheritDoc} */
    public int setBytes(final int index, final InputStream in, final int length) throws IOException
    {
        final byte[] bytes = in.readNBytes(length);
        setBytes(index, bytes, 0, bytes.length);
        return bytes.length;
    }

    /** {@inheritDoc} */
    public int setBytes(final int index, final ScatteringByteChannel in, final int length) throws IOException
    {
        return in.read(nioBuffer(index, length));
    }

    /** {@inheritDoc} */
    public int setBytes(final int index, final FileChannel in, final long position, final int length)
        throws IOException
    {
        return in.read(nioBuffer(index, length), position);
    }

    /** {@inheritDoc} */
    public ByteBuf copy(final int index, final int length)
    {
        checkIndex(index, length);
        final ByteBuf copy = alloc().directBuffer(length);
        copy.writeBytes(this, index, length);
        return copy;
    }
}
