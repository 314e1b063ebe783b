// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.IOException;

import io.netty.buffer.ByteBuf;
import io.netty.channel.unix.FileDescriptor;
import io.verbs4j.spi.RegionMemory;
import io.verbs4j.spi.WorkQueue;

/**
 * Where an arriving payload goes: a list of pinned region segments (a WRITE's target range, the SGEs of a posted
 * receive, or the local SGEs of a READ), filled as bytes come off the socket. Each byte is copied once, from Netty's
 * receive buffer straight into its destination; nothing is accumulated. Large payloads can also be read from the
 * socket straight into the destination ({@link #readDirect}), with no user-space copy at all. Owned by whoever holds
 * the connection's driver lock.
 */
final class PayloadSink
{
    private final TcpMemoryRegion[] regions;
    private final long[] offsets;
    private final long[] lengths;
    private final byte[] bounce = new byte[4096];
    private int count;
    private int index;
    private long segmentDone;

    PayloadSink(final int maxSegments)
    {
        regions = new TcpMemoryRegion[maxSegments];
        offsets = new long[maxSegments];
        lengths = new long[maxSegments];
    }

    /**
     * Adds a segment, pinning its region.
     *
     * @param region the region.
     * @param offset offset in the region.
     * @param length bytes.
     * @return false if the region was closed (nothing added).
     */
    boolean add(final TcpMemoryRegion region, final long offset, final long length)
    {
        if (0 == length)
        {
            return true;
        }
        if (!region.tryPin())
        {
            return false;
        }
        addPinned(region, offset, length);
        return true;
    }

    /**
     * Adds a segment whose region the caller already pinned; the sink unpins it.
     *
     * @param region the pinned region.
     * @param offset offset in the region.
     * @param length bytes.
     */
    void addPinned(final TcpMemoryRegion region, final long offset, final long length)
    {
        regions[count] = region;
        offsets[count] = offset;
        lengths[count] = length;
        count++;
    }

    /**
     * Adds the SGEs of a work-queue slot, up to {@code length} bytes.
     *
     * @param queue  the work queue.
     * @param pos    the slot.
     * @param length bytes that will arrive.
     * @return false if one of the regions was closed (nothing stays pinned).
     */
    boolean addSges(final WorkQueue queue, final long pos, final long length)
    {
        long remaining = length;
        for (int i = 0, n = queue.sgeCount(pos); i < n && remaining > 0; i++)
        {
            final long part = Math.min(remaining, queue.sgeLength(pos, i));
            if (!add((TcpMemoryRegion)queue.sgeRegion(pos, i), queue.sgeOffset(pos, i), part))
            {
                clear();
                return false;
            }
            remaining -= part;
        }
        return true;
    }

    /**
     * Copies {@code n} bytes from {@code in} (advancing its reader index) to the next destination bytes.
     *
     * @param in the received bytes.
     * @param n  how many.
     */
    void write(final ByteBuf in, final int n)
    {
        int readerIndex = in.readerIndex();
        int left = n;
        while (left > 0)
        {
            final long segmentLeft = lengths[index] - segmentDone;
            final int chunk = (int)Math.min(left, segmentLeft);
            copy(in, readerIndex, regions[index].memory(), offsets[index] + segmentDone, chunk);
            readerIndex += chunk;
            left -= chunk;
            segmentDone += chunk;
            if (segmentDone == lengths[index])
            {
                index++;
                segmentDone = 0;
            }
        }
        in.readerIndex(readerIndex);
    }

    /**
     * Reads up to {@code max} payload bytes from the socket straight into the next destination bytes, until the
     * socket has nothing more to give (non-blocking).
     *
     * @param fd  the socket.
     * @param max payload bytes still expected.
     * @return bytes read (0 if none were ready), or -1 at end of stream or on a socket error with nothing read (the
     * channel's own read then reports it).
     */
    long readDirect(final FileDescriptor fd, final long max)
    {
        long total = 0;
        while (total < max && index < count)
        {
            final RegionMemory memory = regions[index].memory();
            final long offset = offsets[index] + segmentDone;
            final long chunk = Math.min(Math.min(max - total, lengths[index] - segmentDone),
                Math.min(memory.contiguousLength(offset), Integer.MAX_VALUE));
            final int n;
            try
            {
                n = fd.readAddress(memory.addressOf(offset), 0, (int)chunk);
            }
            catch (final IOException ex)
            {
                return 0 == total ? -1 : total;
            }
            if (n <= 0)
            {
                return 0 == total && n < 0 ? -1 : total;
            }
            total += n;
            segmentDone += n;
            if (segmentDone == lengths[index])
            {
                index++;
                segmentDone = 0;
            }
            if (n < chunk)
            {
                break;
            }
        }
        return total;
    }

    /** Unpins everything and empties the sink (end of a payload, or the connection went away mid-payload). */
    void clear()
    {
        for (int i = 0; i < count; i++)
        {
            regions[i].unpin();
            regions[i] = null;
        }
        count = 0;
        index = 0;
        segmentDone = 0;
    }

    private void copy(final ByteBuf in, final int index, final RegionMemory dst, final long dstOffset, final int n)
    {
        if (in.hasMemoryAddress())
        {
            dst.copyFrom(in.memoryAddress() + index, dstOffset, n);
        }
        else if (in.hasArray())
        {
            dst.copyFrom(in.array(), in.arrayOffset() + index, dstOffset, n);
        }
        else
        {
            int done = 0;
            while (done < n)
            {
                final int part = Math.min(bounce.length, n - done);
                in.getBytes(index + done, bounce, 0, part);
                dst.copyFrom(bounce, 0, dstOffset + done, part);
                done += part;
            }
        }
    }
}
