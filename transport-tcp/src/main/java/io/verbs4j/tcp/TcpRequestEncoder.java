// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.buffer.ByteBuf;
import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.spi.WorkQueue;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import org.agrona.UnsafeApi;

/**
 * Turns a send-queue entry into its request frame, for either write path of the {@link TcpRequester}: into a
 * poster's direct batch ({@link #addDirect}, header and inline payload copied into the {@link TcpDirectWriter}, the
 * rest gathered from registered memory) or through the connection's {@link TcpFrameWriter} ({@link #writeRequest},
 * header from a pooled buffer, payload as region slices, possibly the rest of a frame a poster wrote in part). It
 * also decides which requests ask the target for an immediate ACK ({@link FrameFlyweight#FLAG_ACK_REQUEST}).
 * <p>
 * Threading: whoever holds the connection's driver lock (a posting or polling thread, or the event loop). It keeps
 * no part of the send window: the requester passes what the ACK-request decision needs. Allocation-free.
 */
final class TcpRequestEncoder
{
    private static final boolean NATIVE_LITTLE_ENDIAN =
        java.nio.ByteOrder.LITTLE_ENDIAN == java.nio.ByteOrder.nativeOrder();
    /** Unsignaled SEND/WRITEs between two that ask for an immediate ACK. */
    private static final int ACK_REQUEST_INTERVAL = 16;

    private final TcpFrameWriter frames;
    private final TcpCounters counters;
    private final long maxInflightBytes;
    private WorkQueue sendQueue;
    private int sinceAckRequest;
    private long ackWindow;

    /**
     * @param frames           the connection's frame writer.
     * @param counters         the device's counters.
     * @param maxInflightBytes the flow-control limit.
     */
    TcpRequestEncoder(final TcpFrameWriter frames, final TcpCounters counters, final long maxInflightBytes)
    {
        this.frames = frames;
        this.counters = counters;
        this.maxInflightBytes = maxInflightBytes;
    }

    /**
     * The connection is established.
     *
     * @param queue the send queue.
     */
    void start(final WorkQueue queue)
    {
        sendQueue = queue;
        ackWindow = Math.max(1, queue.depth() / 4);
    }

    /**
     * Adds the frame of request {@code pos} to a direct batch.
     *
     * @param writer        the batch.
     * @param pos           the request.
     * @param inflightBytes request bytes unacknowledged (before this batch).
     * @param oldestUnacked the oldest request not yet completed.
     * @return 1 for a READ or atomic, 0 for another request, -1 if it needs the general path.
     */
    int addDirect(final TcpDirectWriter writer, final long pos, final long inflightBytes, final long oldestUnacked)
    {
        final int opcode = sendQueue.opcode(pos);
        final int length = (int)sendQueue.totalLength(pos);
        final boolean inline = sendQueue.isInline(pos);
        final FrameFlyweight header = writer.header();
        final byte type = encodeHeader(header, pos, opcode, length, inflightBytes, oldestUnacked);
        if (inline)
        {
            if (length > 0)
            {
                UnsafeApi.copyMemory(sendQueue.inlineAddress(pos), writer.inlineAddress(), length);
            }
            writer.addHeader(length);
        }
        else if (FrameType.ATOMIC_REQUEST == type)
        {
            UnsafeApi.putLong(writer.inlineAddress(), littleEndian(sendQueue.compareAdd(pos)));
            UnsafeApi.putLong(writer.inlineAddress() + 8, littleEndian(sendQueue.swap(pos)));
            writer.addHeader(FrameFlyweight.ATOMIC_OPERANDS_LENGTH);
        }
        else
        {
            writer.addHeader(0);
            if (FrameType.READ_REQUEST != type)
            {
                for (int i = 0, n = sendQueue.sgeCount(pos); i < n; i++)
                {
                    if (!writer.addRegion((TcpMemoryRegion)sendQueue.sgeRegion(pos, i), sendQueue.sgeOffset(pos, i),
                        sendQueue.sgeLength(pos, i)))
                    {
                        return -1;
                    }
                }
            }
        }
        writer.endFrame(pos);
        return FrameType.READ_REQUEST == type || FrameType.ATOMIC_REQUEST == type ? 1 : 0;
    }

    private static long littleEndian(final long value)
    {
        return NATIVE_LITTLE_ENDIAN ? value : Long.reverseBytes(value);
    }

    /**
     * @param pos the request.
     * @return the payload bytes its frame carries: none for a READ request or an atomic (their operands are fixed).
     */
    long payloadOnWire(final long pos)
    {
        final int opcode = sendQueue.opcode(pos);
        return Opcode.RDMA_READ == opcode || Opcode.isAtomic(opcode) ? 0 : sendQueue.totalLength(pos);
    }

    /**
     * @param pos the request.
     * @return the bytes it puts on the wire (header and payload), as flow control counts them.
     */
    long cost(final long pos)
    {
        final int opcode = sendQueue.opcode(pos);
        return FrameFlyweight.HEADER_LENGTH + (Opcode.isAtomic(opcode) ? FrameFlyweight.ATOMIC_OPERANDS_LENGTH :
            sendQueue.totalLength(pos));
    }

    /**
     * Encodes the header of request {@code pos}.
     *
     * @return the frame type.
     */
    private byte encodeHeader(
        final FrameFlyweight header,
        final long pos,
        final int opcode,
        final int length,
        final long inflightBytes,
        final long oldestUnacked)
    {
        byte type;
        int flags = 0;
        int argument = 0;
        int payloadLength = length;
        switch (opcode)
        {
            case Opcode.SEND:
                type = FrameType.SEND;
                break;
            case Opcode.SEND_WITH_IMM:
                type = FrameType.SEND;
                flags = FrameFlyweight.FLAG_IMMEDIATE;
                argument = sendQueue.immediateData(pos);
                break;
            case Opcode.RDMA_WRITE:
                type = FrameType.WRITE;
                break;
            case Opcode.RDMA_WRITE_WITH_IMM:
                type = FrameType.WRITE_WITH_IMM;
                flags = FrameFlyweight.FLAG_IMMEDIATE;
                argument = sendQueue.immediateData(pos);
                break;
            case Opcode.RDMA_READ:
                type = FrameType.READ_REQUEST;
                argument = length;
                payloadLength = 0;
                break;
            default:
                type = FrameType.ATOMIC_REQUEST;
                flags = Opcode.ATOMIC_CMP_AND_SWP == opcode ? FrameFlyweight.FLAG_CMP_SWAP : 0;
                payloadLength = FrameFlyweight.ATOMIC_OPERANDS_LENGTH;
                break;
        }
        if (0 != (sendQueue.flags(pos) & SendRequest.SOLICITED))
        {
            flags |= FrameFlyweight.FLAG_SOLICITED;
        }
        if (FrameType.READ_REQUEST != type && FrameType.ATOMIC_REQUEST != type &&
            (0 != (sendQueue.flags(pos) & SendRequest.SIGNALED) || ++sinceAckRequest >= ACK_REQUEST_INTERVAL ||
            inflightBytes + cost(pos) >= maxInflightBytes / 4 || pos - oldestUnacked >= ackWindow))
        {
            flags |= FrameFlyweight.FLAG_ACK_REQUEST;
            sinceAckRequest = 0;
        }
        header.encode(type, flags, payloadLength, pos, sendQueue.remoteAddress(pos), sendQueue.rkey(pos), argument);
        return type;
    }

    /**
     * Writes request {@code pos} through Netty (header from a pooled buffer, payload as region slices).
     *
     * @param pos  the request.
     * @param skip bytes of the frame already on the wire (a poster's partial direct write), else 0.
     * @param inflightBytes request bytes unacknowledged.
     * @param oldestUnacked the oldest request not yet completed.
     * @return -1 if one of its regions was closed, else 1 for a READ or atomic (one more outstanding, which the
     * caller counts unless {@code skip > 0}), 0 for another request.
     */
    int writeRequest(final long pos, final int skip, final long inflightBytes, final long oldestUnacked)
    {
        final int opcode = sendQueue.opcode(pos);
        final int length = (int)sendQueue.totalLength(pos);
        final boolean inline = sendQueue.isInline(pos);
        byte type;
        int payloadLength = length;
        boolean payloadFromMemory = !inline;
        switch (opcode)
        {
            case Opcode.RDMA_READ:
                type = FrameType.READ_REQUEST;
                payloadLength = 0;
                payloadFromMemory = false;
                break;
            case Opcode.ATOMIC_FETCH_AND_ADD:
            case Opcode.ATOMIC_CMP_AND_SWP:
                type = FrameType.ATOMIC_REQUEST;
                payloadLength = FrameFlyweight.ATOMIC_OPERANDS_LENGTH;
                payloadFromMemory = false;
                break;
            default:
                type = FrameType.SEND;
                break;
        }
        int pieces = 0;
        if (payloadFromMemory)
        {
            for (int i = 0, n = sendQueue.sgeCount(pos); i < n; i++)
            {
                pieces = frames.wrap((TcpMemoryRegion)sendQueue.sgeRegion(pos, i), sendQueue.sgeOffset(pos, i),
                    sendQueue.sgeLength(pos, i), pieces);
                if (pieces < 0)
                {
                    return -1;
                }
            }
        }
        final int inFrame = inline ? length : type == FrameType.ATOMIC_REQUEST ? payloadLength : 0;
        final ByteBuf buffer = frames.newFrame(inFrame);
        encodeHeader(frames.outFrame(), pos, opcode, length, inflightBytes, oldestUnacked);
        if (inline && length > 0)
        {
            copyFromAddress(buffer, sendQueue.inlineAddress(pos), length);
            counters.add(TcpCounter.BYTES_COPIED_ON_SEND, length);
        }
        else if (FrameType.ATOMIC_REQUEST == type)
        {
            buffer.writeLongLE(sendQueue.compareAdd(pos));
            buffer.writeLongLE(sendQueue.swap(pos));
        }
        if (skip > 0)
        {
            skipWritten(buffer, pieces, skip);
        }
        frames.writeFrame(buffer);
        frames.writePieces(pieces);
        counters.add(TcpCounter.BYTES_SENT, payloadLength);
        // After a poster's partial write (skip > 0) the requester's finishPartialFrame() does the accounting.
        return FrameType.READ_REQUEST == type || FrameType.ATOMIC_REQUEST == type ? 1 : 0;
    }

    /** Drops the first {@code skip} bytes of a frame (header buffer, then payload pieces): already on the wire. */
    private void skipWritten(final ByteBuf header, final int pieces, final int skip)
    {
        int left = skip;
        final int fromHeader = Math.min(left, header.readableBytes());
        header.skipBytes(fromHeader);
        left -= fromHeader;
        final RegionByteBuf[] slices = frames.pieces();
        for (int i = 0; i < pieces && left > 0; i++)
        {
            final int fromPiece = Math.min(left, slices[i].readableBytes());
            slices[i].skipBytes(fromPiece);
            left -= fromPiece;
        }
    }

    private static void copyFromAddress(final ByteBuf buffer, final long address, final int length)
    {
        if (buffer.hasMemoryAddress())
        {
            UnsafeApi.copyMemory(address, buffer.memoryAddress() + buffer.writerIndex(), length);
            buffer.writerIndex(buffer.writerIndex() + length);
        }
        else
        {
            for (int i = 0; i < length; i++)
            {
                buffer.writeByte(UnsafeApi.getByte(address + i));
            }
        }
    }
}
