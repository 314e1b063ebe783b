// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

/**
 * The frame sink of a connection after the handshake: the requester and responder build their frames here (a header
 * buffer from the pool, or from {@link TcpFrameSlots} off the event loop, plus payload pieces wrapped from registered
 * memory, no copy) and hand them over in order to the connection's one {@link TcpOutbound}, which owns frame
 * atomicity. It also holds what a posting or polling thread needs to write straight to the socket: the
 * {@link TcpDirectWriter} and the test whether a direct write may go ({@link #mayWriteDirect()}).
 * <p>
 * Threading: every method runs under the connection's driver lock, on the event loop or on a posting or polling
 * thread; no lock of its own. Nothing is allocated per frame in the steady state.
 */
final class TcpFrameWriter
{
    private static final int MAX_BUFFERED_PIECES = 64;

    private final TcpDevice device;
    private final TcpCounters counters;
    private final TcpLiveness liveness;
    private final TcpInputSigns signs;
    private final TcpOutbound outbound;
    private final ManyToManyConcurrentArrayQueue<RegionByteBuf> bufferPool =
        new ManyToManyConcurrentArrayQueue<>(1024);
    private final RegionByteBuf[] pieces = new RegionByteBuf[MAX_BUFFERED_PIECES];
    private final FrameFlyweight outFrame = new FrameFlyweight();
    private final TcpDirectWriter directWriter = new TcpDirectWriter();
    private final TcpFrameSlots frameSlots = new TcpFrameSlots();
    private ChannelHandlerContext ctx;
    private boolean writtenFromApplication;

    /**
     * @param device   the device (off-loop allocator).
     * @param counters the device's counters.
     * @param liveness told of every frame written.
     * @param signs    told of every frame written that will be answered.
     * @param outbound the connection's ordered way out.
     */
    TcpFrameWriter(final TcpDevice device, final TcpCounters counters, final TcpLiveness liveness,
        final TcpInputSigns signs, final TcpOutbound outbound)
    {
        this.device = device;
        this.counters = counters;
        this.liveness = liveness;
        this.signs = signs;
        this.outbound = outbound;
    }

    /**
     * The channel's context, before the first frame.
     *
     * @param ctx the connection's context.
     */
    void attach(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
    }

    /**
     * @param payloadCapacity bytes the caller will append after the header.
     * @return a pooled direct buffer with room for a header, writer index after it, wrapped by the out flyweight.
     */
    ByteBuf newFrame(final int payloadCapacity)
    {
        final int length = FrameFlyweight.HEADER_LENGTH + payloadCapacity;
        ByteBuf buffer = null;
        if (ctx.executor().inEventLoop())
        {
            buffer = ctx.alloc().directBuffer(length);
        }
        else
        {
            buffer = frameSlots.take(length);
            if (null == buffer)
            {
                buffer = device.offLoopFrames().directBuffer(length);
            }
        }
        buffer.writerIndex(FrameFlyweight.HEADER_LENGTH);
        outFrame.wrap(buffer, 0);
        return buffer;
    }

    /** @return the flyweight over the last {@link #newFrame}'s header. */
    FrameFlyweight outFrame()
    {
        return outFrame;
    }

    /**
     * Driver lock held: the next frame's first buffer (header, inline payload), in order through {@link TcpOutbound}.
     *
     * @param buffer the buffer.
     */
    void writeFrame(final ByteBuf buffer)
    {
        writeFrame(buffer, true);
    }

    /**
     * Driver lock held: as {@link #writeFrame(ByteBuf)}, for a frame that nothing answers (an ACK, a heartbeat): it
     * is no sign that input comes soon, so it does not keep polling threads reading ({@link TcpInputSigns}).
     * A stream's receiver writes an ACK every few messages; counted as signs, they kept its application's polls
     * reading a one-way bulk stream that its I/O thread reads faster.
     *
     * @param buffer the buffer.
     */
    void writeUnansweredFrame(final ByteBuf buffer)
    {
        writeFrame(buffer, false);
    }

    private void writeFrame(final ByteBuf buffer, final boolean answered)
    {
        counters.increment(TcpCounter.FRAMES_SENT);
        liveness.wrote();
        writtenFromApplication = true;
        if (answered)
        {
            signs.expectInput();
        }
        outbound.write(buffer);
    }

    /**
     * Driver lock held: writes a frame with no payload.
     *
     * @param type     frame type.
     * @param sequence sequence field.
     * @param argument argument field.
     */
    void writeControl(final byte type, final long sequence, final int argument)
    {
        final ByteBuf buffer = newFrame(0);
        outFrame.encode(type, 0, 0, sequence, 0, 0, argument);
        writeFrame(buffer, FrameType.ACK != type && FrameType.HEARTBEAT != type);
    }

    /** Driver lock held: sends what was written (from another thread than the event loop: soon, in order). */
    void flush()
    {
        outbound.flush();
    }

    /**
     * Wraps {@code [offset, offset + length)} of a region as socket buffers, in contiguous pieces, into
     * {@link #pieces()} from index {@code first}.
     *
     * @param region the region.
     * @param offset offset in it.
     * @param length bytes.
     * @param first  first free index of {@link #pieces()}.
     * @return the next free index, or -1 if the region was closed or too many pieces were needed (pieces taken by
     * this call are released).
     */
    int wrap(final TcpMemoryRegion region, final long offset, final long length, final int first)
    {
        int next = first;
        long done = 0;
        while (done < length)
        {
            final long part = Math.min(length - done, region.memory().contiguousLength(offset + done));
            final RegionByteBuf piece = next < MAX_BUFFERED_PIECES ?
                RegionByteBuf.take(bufferPool, region, region.memory().addressOf(offset + done), (int)part) : null;
            if (null == piece)
            {
                releasePieces(first, next);
                return -1;
            }
            pieces[next++] = piece;
            done += part;
        }
        return next;
    }

    /** @return the pieces {@link #wrap} filled. */
    RegionByteBuf[] pieces()
    {
        return pieces;
    }

    /**
     * Releases pieces that will not be written.
     *
     * @param from first index.
     * @param to   index after the last.
     */
    void releasePieces(final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            pieces[i].release();
            pieces[i] = null;
        }
    }

    /**
     * Driver lock held: writes the first {@code count} pieces, in order, after the frame's header buffer.
     *
     * @param count pieces.
     */
    void writePieces(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            outbound.write(pieces[i]);
            pieces[i] = null;
        }
    }

    /**
     * @return true if no frame waits in the connection's ordered queue ({@link TcpOutbound}) nor in Netty's outbound
     * buffer (written or not yet flushed): a direct write may go now. Driver lock held.
     */
    boolean mayWriteDirect()
    {
        return outbound.mayWriteDirect();
    }

    /** @return the connection's ordered way out (frame atomicity of direct writes). Driver lock held. */
    TcpOutbound outbound()
    {
        return outbound;
    }

    /** @return the posting thread's writer. Driver lock held. */
    TcpDirectWriter directWriter()
    {
        return directWriter;
    }

    /** A poster wrote frames straight to the socket (no heartbeat needed this tick). Driver lock held. */
    void wroteDirect()
    {
        liveness.wrote();
        signs.expectInput();
    }

    /** A poster or poller wrote an ACK alone straight to the socket: as {@link #writeUnansweredFrame}. Lock held. */
    void wroteAckDirect()
    {
        liveness.wrote();
    }

    /** A polling thread starts reading: forget earlier writes ({@link #takeWrittenFromApplication()}). */
    void clearWrittenFromApplication()
    {
        writtenFromApplication = false;
    }

    /** @return true (once) if a frame was written since {@link #clearWrittenFromApplication()}: flush it. */
    boolean takeWrittenFromApplication()
    {
        if (writtenFromApplication)
        {
            writtenFromApplication = false;
            return true;
        }
        return false;
    }

    /** The connection closed (after {@link TcpOutbound#close()}): frees the pools. */
    void close()
    {
        bufferPool.clear();
        frameSlots.close();
    }
}
