// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.unix.FileDescriptor;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

/**
 * The posting thread's way to the socket: a batch of frames (headers and inline payloads in a pre-allocated native
 * scratch area, payloads straight from pinned registered memory) gathered into one non-blocking {@code writev}
 * on the socket's file descriptor. Headers and inline payloads are packed back to back in the scratch area and
 * adjacent ranges share one {@code iovec}, so a batch of inline frames (a small WRITE and the ACK riding with it)
 * is one plain {@code write}. Used only while holding the connection's driver lock and only when nothing waits
 * in the connection's ordered queue ({@link TcpOutbound}) or in Netty's outbound buffer, so frames never interleave
 * with the I/O thread's; the rest of a frame the socket took only in part goes into that queue at once.
 * <p>
 * Pre-allocated, so a batch costs no allocation; one instance per connection.
 */
final class TcpDirectWriter
{
    /** Most frames per {@code writev}. */
    static final int MAX_FRAMES = 16;
    /** Most {@code iovec} entries per {@code writev} (well under IOV_MAX). */
    static final int MAX_IOV = 64;
    private static final int IOV_LENGTH = 16;
    private static final int SLOT_LENGTH = FrameFlyweight.HEADER_LENGTH + 256;

    private final ByteBuffer scratchBuffer = BufferUtil.allocateDirectAligned(MAX_FRAMES * SLOT_LENGTH, 64);
    private final long scratchAddress = BufferUtil.address(scratchBuffer);
    private final ByteBuf scratch = Unpooled.wrappedBuffer(scratchBuffer);
    private final ByteBuffer iovBuffer = BufferUtil.allocateDirectAligned(MAX_IOV * IOV_LENGTH, 64);
    private final long iovAddress = BufferUtil.address(iovBuffer);
    private final FrameFlyweight frame = new FrameFlyweight();
    private final TcpMemoryRegion[] pinned = new TcpMemoryRegion[MAX_IOV];
    private final long[] framePositions = new long[MAX_FRAMES];
    private final long[] frameEnds = new long[MAX_FRAMES];
    private int pinnedCount;
    private int iovCount;
    private int frameCount;
    private long total;
    /** Scratch bytes used by the batch's headers and inline payloads. */
    private int scratchUsed;
    /** The next frame's header offset in the scratch area (set by {@link #header()}). */
    private int frameScratchStart;
    private int frameIovStart;
    /** Length of the batch's last iovec entry before the current frame (a merge may have extended it). */
    private long frameIovStartLength;
    private long frameStart;

    /** Starts an empty batch. */
    void reset()
    {
        releasePins();
        iovCount = 0;
        frameCount = 0;
        total = 0;
        scratchUsed = 0;
    }

    /**
     * @param iovs iovec entries the next frame needs at most.
     * @return true if one more frame of that many entries fits in the batch.
     */
    boolean hasRoom(final int iovs)
    {
        // The scratch area holds MAX_FRAMES slots of SLOT_LENGTH: packed frames never use more than that.
        return frameCount < MAX_FRAMES && iovCount + iovs <= MAX_IOV;
    }

    /** @return the flyweight over the next frame's header (encode into it, then {@link #addHeader(int)}). */
    FrameFlyweight header()
    {
        frameIovStart = iovCount;
        frameIovStartLength = 0 == iovCount ? 0 : UnsafeApi.getLong(iovAddress + (iovCount - 1L) * IOV_LENGTH + 8);
        frameStart = total;
        frameScratchStart = scratchUsed;
        return frame.wrap(scratch, frameScratchStart);
    }

    /** Drops what was added for the frame begun by the last {@link #header()} (its pins stay until reset). */
    void abandonFrame()
    {
        iovCount = frameIovStart;
        if (iovCount > 0)
        {
            // The frame's header may have been merged into the entry before it.
            UnsafeApi.putLong(iovAddress + (iovCount - 1L) * IOV_LENGTH + 8, frameIovStartLength);
        }
        total = frameStart;
        scratchUsed = frameScratchStart;
    }

    /** @return native address where the next frame's inline payload goes (after its header). */
    long inlineAddress()
    {
        return scratchAddress + frameScratchStart + FrameFlyweight.HEADER_LENGTH;
    }

    /**
     * Adds the next frame's header and the inline bytes written after it.
     *
     * @param inlineBytes bytes at {@link #inlineAddress()} (at most 256).
     */
    void addHeader(final int inlineBytes)
    {
        addIov(scratchAddress + frameScratchStart, FrameFlyweight.HEADER_LENGTH + inlineBytes);
        scratchUsed = frameScratchStart + FrameFlyweight.HEADER_LENGTH + inlineBytes;
    }

    /**
     * Adds a payload range of a region, pinning the region until {@link #reset()}.
     *
     * @param region the region.
     * @param offset offset in it.
     * @param length bytes.
     * @return false if the region is closed or the range needs more iovec entries than are left.
     */
    boolean addRegion(final TcpMemoryRegion region, final long offset, final long length)
    {
        if (0 == length)
        {
            return true;
        }
        if (!region.tryPin())
        {
            return false;
        }
        pinned[pinnedCount++] = region;
        long done = 0;
        while (done < length)
        {
            if (iovCount >= MAX_IOV)
            {
                return false;
            }
            final long part = Math.min(length - done, region.memory().contiguousLength(offset + done));
            addIov(region.memory().addressOf(offset + done), part);
            done += part;
        }
        return true;
    }

    /**
     * Closes the current frame.
     *
     * @param position the send-queue position it carries.
     */
    void endFrame(final long position)
    {
        framePositions[frameCount] = position;
        frameEnds[frameCount] = total;
        frameCount++;
    }

    /** @return frames in the batch. */
    int frameCount()
    {
        return frameCount;
    }

    /**
     * @param index frame index.
     * @return its send-queue position.
     */
    long framePosition(final int index)
    {
        return framePositions[index];
    }

    /**
     * @param index frame index.
     * @return batch bytes up to and including that frame.
     */
    long frameEnd(final int index)
    {
        return frameEnds[index];
    }

    /** @return iovec entries in the batch (tests, diagnostics). */
    int iovCount()
    {
        return iovCount;
    }

    /** @return bytes in the batch. */
    long total()
    {
        return total;
    }

    /**
     * One non-blocking gathering write of the batch.
     *
     * @param fd the socket.
     * @return bytes written (0 when the socket buffer is full), or -1 on a socket error (the I/O thread will see it
     * too and close the connection).
     */
    long write(final FileDescriptor fd)
    {
        try
        {
            return 1 == iovCount ? fd.writeAddress(UnsafeApi.getLong(iovAddress), 0, (int)total) :
                fd.writevAddresses(iovAddress, iovCount);
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /** Unpins what the batch pinned. */
    void releasePins()
    {
        for (int i = 0; i < pinnedCount; i++)
        {
            pinned[i].unpin();
            pinned[i] = null;
        }
        pinnedCount = 0;
    }

    private void addIov(final long address, final long length)
    {
        if (iovCount > 0)
        {
            final long last = iovAddress + (iovCount - 1L) * IOV_LENGTH;
            final long lastLength = UnsafeApi.getLong(last + 8);
            if (UnsafeApi.getLong(last) + lastLength == address)
            {
                // Contiguous with the last entry (packed headers, or one region range after another): extend it.
                UnsafeApi.putLong(last + 8, lastLength + length);
                total += length;
                return;
            }
        }
        final long entry = iovAddress + (long)iovCount * IOV_LENGTH;
        UnsafeApi.putLong(entry, address);
        UnsafeApi.putLong(entry + 8, length);
        iovCount++;
        total += length;
    }
}
