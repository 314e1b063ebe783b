// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.netty.buffer.ByteBuf;
import io.netty.channel.unix.FileDescriptor;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.spi.WorkQueue;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import org.agrona.UnsafeApi;

/**
 * The initiator side of a connection (siw's {@code qp_tx}): walks the send queue in order on the I/O thread, turns
 * each request into a frame (header from a pooled buffer, payload straight from registered memory), and completes
 * requests from the target's responses. Sequence numbers are send-queue positions.
 * <p>
 * Flow control: at most {@link TcpConfiguration#maxInflightBytes()} request bytes unacknowledged, and nothing new
 * while the socket is unwritable, so a slow receiver never makes this side buffer without bound. RNR: on an RNR NAK
 * every request from the NAKed one on is sent again after {@code rnrTimerNs} (go-back-N, as RC does), up to
 * {@code rnrRetry} times (7 = for ever), then RNR_RETRY_EXC_ERR.
 * <p>
 * Threading: {@link #requestPump()} from the posting thread; everything else on the connection's event loop. All
 * state is guarded by the connection's driver lock: the posting thread takes it (try-lock, never waits) to write
 * its requests straight to the socket when nothing waits in the connection's ordered queue ({@link TcpOutbound}) or
 * in Netty (the fast path: no thread hop, no wake-up); otherwise, or when the socket takes only part of a batch, it
 * leaves the rest to the event loop. The rest of a frame the socket took only in part goes into the ordered queue at
 * once ({@link #finishPartialFrame()}), ahead of anything written later.
 */
final class TcpRequester implements Runnable, TcpResponseHandler.Window
{
    private static final VarHandle PUMP_SCHEDULED;
    private static final VarHandle PUMP_WANTED;
    private static final boolean NATIVE_LITTLE_ENDIAN =
        java.nio.ByteOrder.LITTLE_ENDIAN == java.nio.ByteOrder.nativeOrder();
    /** Unsignaled SEND/WRITEs between two that ask for an immediate ACK. */
    private static final int ACK_REQUEST_INTERVAL = 16;
    /** Payload above which a request is written by the I/O thread, not by the posting or polling thread. */
    private static final int DIRECT_PAYLOAD_MAX = 16 * 1024;
    private static final long ACK_FRAME = Long.MIN_VALUE;

    static
    {
        try
        {
            PUMP_SCHEDULED = MethodHandles.lookup().findVarHandle(TcpRequester.class, "pumpScheduled", int.class);
            PUMP_WANTED = MethodHandles.lookup().findVarHandle(TcpRequester.class, "pumpWanted", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final TcpConnection connection;
    private final TcpCounters counters;
    private final TcpFrameDecoder decoder;
    private final TcpFrameWriter frames;
    private final long maxInflightBytes;
    private final Runnable rnrRetryTask = this::onRnrTimer;
    private TcpQueuePair qp;
    private WorkQueue sendQueue;
    @SuppressWarnings("unused")
    private volatile int pumpScheduled;
    @SuppressWarnings("unused")
    private volatile int pumpWanted;

    private long partialPosition = -1;
    private long partialAck = -1;
    private long partialSkip;
    private int sinceAckRequest;
    private long ackWindow;
    private TcpResponder responder;
    private long nextTransmit;
    private long oldestUnacked;
    private long inflightBytes;
    private int outstandingReadsAndAtomics;
    private boolean rnrWaiting;
    private boolean progressed;

    TcpRequester(final TcpConnection connection)
    {
        this.connection = connection;
        this.counters = connection.counters();
        this.decoder = connection.decoder();
        this.frames = connection.writer();
        this.maxInflightBytes = connection.configuration().maxInflightBytes();
    }

    void start(final TcpQueuePair queuePair, final long initialSequence)
    {
        qp = queuePair;
        sendQueue = queuePair.sendQueue();
        nextTransmit = initialSequence;
        oldestUnacked = initialSequence;
        ackWindow = Math.max(1, sendQueue.depth() / 4);
        responder = connection.responder();
    }

    /**
     * From the posting thread, after publishing a request: write it to the socket from this thread if the driver
     * lock is free and nothing is queued in Netty, else make the I/O thread send it (the lock's holder sees the
     * request when it unlocks; otherwise at most one wake-up task is in flight).
     */
    void requestPump()
    {
        PUMP_WANTED.setVolatile(this, 1);
        if (connection.inEventLoop())
        {
            schedulePump();
            return;
        }
        if (null == connection.directFd())
        {
            schedulePump();
            return;
        }
        if (!connection.tryLockDriver())
        {
            // Held by the I/O thread, which looks at PUMP_WANTED when it unlocks.
            return;
        }
        boolean done;
        try
        {
            done = pumpDirect();
        }
        finally
        {
            connection.unlockDriver();
        }
        if (!done)
        {
            schedulePump();
        }
    }

    private void schedulePump()
    {
        if (PUMP_SCHEDULED.compareAndSet(this, 0, 1))
        {
            counters.increment(TcpCounter.PUMP_WAKEUPS);
            try
            {
                connection.execute(this);
            }
            catch (final java.util.concurrent.RejectedExecutionException ex)
            {
                PUMP_SCHEDULED.setVolatile(this, 0);
            }
        }
    }

    /** @return true if a poster asked for the send queue to be looked at. */
    boolean isPumpWanted()
    {
        return 0 != (int)PUMP_WANTED.getVolatile(this);
    }

    /** {@inheritDoc} */
    public void run()
    {
        PUMP_SCHEDULED.setVolatile(this, 0);
        final boolean locked = connection.lockIo();
        try
        {
            pump();
        }
        finally
        {
            connection.unlockIo(locked);
        }
    }

    /**
     * Posting thread, holding the driver lock: writes what the send queue holds straight to the socket, in batches
     * of one {@code writev}, as far as flow control allows.
     *
     * @return true if nothing is left for the I/O thread (all sent, or stopped by flow control, which the I/O thread
     * resumes from responses); false if it must take over (Netty has queued bytes, the socket is full or failed, or
     * a request needs the general path).
     */
    private boolean pumpDirect()
    {
        PUMP_WANTED.setVolatile(this, 0);
        final FileDescriptor fd = connection.directFd();
        if (null == fd)
        {
            return false;
        }
        if (!connection.isEstablished() || QpState.RTS != qp.state() || rnrWaiting)
        {
            // Nothing to send now: the handshake, the flush or the RNR timer takes it from here.
            return true;
        }
        final TcpDirectWriter writer = frames.directWriter();
        while (true)
        {
            if (hasPartial() || !frames.mayWriteDirect())
            {
                return nextTransmit >= sendQueue.posted();
            }
            writer.reset();
            final long end = sendQueue.posted();
            long pos = nextTransmit;
            long batchInflight = inflightBytes;
            int batchReads = outstandingReadsAndAtomics;
            boolean general = false;
            boolean batchFull = false;
            while (pos < end)
            {
                if (!sendQueue.isPending(pos))
                {
                    pos++;
                    continue;
                }
                final long cost = cost(pos);
                if (batchInflight > 0 && batchInflight + cost > maxInflightBytes)
                {
                    counters.increment(TcpCounter.BACK_PRESSURE_EVENTS);
                    break;
                }
                if (0 != (sendQueue.flags(pos) & SendRequest.FENCE) && batchReads > 0)
                {
                    break;
                }
                if (carriesLargePayload(pos))
                {
                    // Bulk goes through the I/O thread: the hand-off costs nothing next to the copy, and streams
                    // of large frames written by posting threads measured slower (benchmarks/RESULTS.md, issue 12).
                    general = true;
                    break;
                }
                if (!writer.hasRoom(2 + sendQueue.sgeCount(pos)))
                {
                    batchFull = true;
                    break;
                }
                final int kind = addDirect(writer, pos);
                if (kind < 0)
                {
                    writer.abandonFrame();
                    general = true;
                    break;
                }
                batchInflight += cost;
                batchReads += kind;
                pos++;
            }
            if (0 == writer.frameCount())
            {
                writer.reset();
                nextTransmit = general ? nextTransmit : pos;
                return !general;
            }
            // A deferred ACK for the peer's requests rides along (ping-pong traffic needs no separate ACKs).
            final long ack = responder.deferredAck();
            if (ack >= 0 && writer.hasRoom(1))
            {
                writer.header().encode(FrameType.ACK, 0, 0, ack, 0, 0, 0);
                writer.addHeader(0);
                writer.endFrame(ACK_FRAME);
            }
            final int frameCount = writer.frameCount();
            final long written = writer.write(fd);
            long frameStart = 0;
            boolean complete = true;
            for (int i = 0; i < frameCount; i++)
            {
                final long framePos = writer.framePosition(i);
                final long frameEnd = writer.frameEnd(i);
                final boolean isAck = ACK_FRAME == framePos;
                if (written >= frameEnd)
                {
                    counters.increment(TcpCounter.FRAMES_SENT_DIRECT);
                    if (isAck)
                    {
                        counters.increment(TcpCounter.FRAMES_SENT);
                        responder.ackSent(ack);
                    }
                    else
                    {
                        sent(framePos, frameEnd - frameStart);
                        nextTransmit = framePos + 1;
                    }
                }
                else
                {
                    if (written > frameStart)
                    {
                        frames.outbound().directWriteTookPart();
                        partialSkip = written - frameStart;
                        if (isAck)
                        {
                            partialAck = ack;
                        }
                        else
                        {
                            partialPosition = framePos;
                        }
                    }
                    if (!isAck)
                    {
                        nextTransmit = framePos;
                    }
                    complete = false;
                    break;
                }
                frameStart = frameEnd;
            }
            writer.reset();
            if (written > 0)
            {
                frames.wroteDirect();
            }
            if (hasPartial())
            {
                // The rest of the half-written frame goes first into the ordered queue (nothing waits there: this
                // batch went direct), so no other writer's frame can come between its two halves.
                finishPartialFrame();
            }
            if (complete)
            {
                nextTransmit = pos;
            }
            if (!complete || general)
            {
                return false;
            }
            if (!batchFull)
            {
                return true;
            }
        }
    }

    /**
     * Adds the frame of request {@code pos} to a direct batch.
     *
     * @return 1 for a READ or atomic, 0 for another request, -1 if it needs the general path.
     */
    private int addDirect(final TcpDirectWriter writer, final long pos)
    {
        final int opcode = sendQueue.opcode(pos);
        final int length = (int)sendQueue.totalLength(pos);
        final boolean inline = sendQueue.isInline(pos);
        final FrameFlyweight header = writer.header();
        final byte type = encodeHeader(header, pos, opcode, length);
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

    private void sent(final long pos, final long frameBytes)
    {
        final int opcode = sendQueue.opcode(pos);
        inflightBytes += cost(pos);
        if (Opcode.RDMA_READ == opcode || Opcode.isAtomic(opcode))
        {
            outstandingReadsAndAtomics++;
        }
        else if (sendQueue.isInline(pos))
        {
            counters.add(TcpCounter.BYTES_COPIED_ON_SEND, sendQueue.totalLength(pos));
        }
        counters.increment(TcpCounter.FRAMES_SENT);
        counters.add(TcpCounter.BYTES_SENT, frameBytes - FrameFlyweight.HEADER_LENGTH);
    }

    /**
     * Driver lock held, right after a direct write that the socket took only in part: hands the rest of that frame to
     * the connection's ordered queue ({@link TcpOutbound}), so that the next bytes on the wire after it start a frame.
     */
    void finishPartialFrame()
    {
        if (partialAck >= 0)
        {
            final long ack = partialAck;
            final ByteBuf buffer = frames.newFrame(0);
            frames.outFrame().encode(FrameType.ACK, 0, 0, ack, 0, 0, 0);
            buffer.skipBytes((int)partialSkip);
            partialAck = -1;
            partialSkip = 0;
            frames.writeFrame(buffer);
            frames.outbound().remainderQueued();
            frames.flush();
            responder.ackSent(ack);
            return;
        }
        final long pos = partialPosition;
        if (pos < 0)
        {
            return;
        }
        partialPosition = -1;
        final int skip = (int)partialSkip;
        partialSkip = 0;
        final boolean resumed = writeRequest(pos, skip);
        frames.outbound().remainderQueued();
        if (!resumed)
        {
            // A region was closed under a half-sent frame: the stream cannot be resumed.
            connection.protocolError("registered memory of request " + pos + " was closed while it was sent");
            return;
        }
        if (pos == nextTransmit)
        {
            // Otherwise an RNR NAK rewound the stream meanwhile: the peer drops this frame, it is sent again later.
            final int opcode = sendQueue.opcode(pos);
            inflightBytes += cost(pos);
            if (Opcode.RDMA_READ == opcode || Opcode.isAtomic(opcode))
            {
                outstandingReadsAndAtomics++;
            }
            nextTransmit = pos + 1;
        }
        frames.flush();
    }

    /**
     * After reading on an application thread (polling mode, driver lock held): did responses make room for requests
     * that wait to be sent?
     *
     * @return true if {@link #pumpFromPoller()} has something to do.
     */
    boolean hasUnsent()
    {
        if (!progressed)
        {
            return false;
        }
        progressed = false;
        return null != sendQueue && nextTransmit < sendQueue.posted();
    }

    /** Application thread, driver lock held: send what waits, straight to the socket if possible. */
    void pumpFromPoller()
    {
        if (!pumpDirect())
        {
            schedulePump();
        }
    }

    /**
     * Application thread, driver lock held: writes the deferred ACK alone, straight to the socket.
     *
     * @return false if it could not (Netty holds queued bytes, the socket is full, or direct writes are off): the
     * I/O thread must write it.
     */
    boolean writeAckDirect()
    {
        final long ack = responder.deferredAck();
        if (ack < 0)
        {
            responder.ackSent(-1);
            return true;
        }
        final FileDescriptor fd = connection.directFd();
        if (null == fd || hasPartial() || !frames.mayWriteDirect())
        {
            return false;
        }
        final TcpDirectWriter writer = frames.directWriter();
        writer.reset();
        writer.header().encode(FrameType.ACK, 0, 0, ack, 0, 0, 0);
        writer.addHeader(0);
        writer.endFrame(ACK_FRAME);
        final long written = writer.write(fd);
        writer.reset();
        if (written <= 0)
        {
            return false;
        }
        frames.wroteDirect();
        if (written < FrameFlyweight.HEADER_LENGTH)
        {
            frames.outbound().directWriteTookPart();
            partialAck = ack;
            partialSkip = written;
            finishPartialFrame();
            return true;
        }
        counters.increment(TcpCounter.FRAMES_SENT);
        counters.increment(TcpCounter.FRAMES_SENT_DIRECT);
        responder.ackSent(ack);
        return true;
    }

    private boolean hasPartial()
    {
        return partialPosition >= 0 || partialAck >= 0;
    }

    /** Sends what the send queue holds, as far as flow control allows. Event loop, driver lock held. */
    void pump()
    {
        PUMP_WANTED.setVolatile(this, 0);
        if (hasPartial())
        {
            finishPartialFrame();
        }
        if (!connection.isEstablished() || QpState.RTS != qp.state() || rnrWaiting)
        {
            return;
        }
        final long end = sendQueue.posted();
        boolean wrote = false;
        while (nextTransmit < end)
        {
            final long pos = nextTransmit;
            if (!sendQueue.isPending(pos))
            {
                nextTransmit++;
                continue;
            }
            final long cost = cost(pos);
            if (inflightBytes > 0 && (inflightBytes + cost > maxInflightBytes || !connection.isWritable()))
            {
                counters.increment(TcpCounter.BACK_PRESSURE_EVENTS);
                break;
            }
            if (0 != (sendQueue.flags(pos) & SendRequest.FENCE) && outstandingReadsAndAtomics > 0)
            {
                break;
            }
            if (!writeRequest(pos, 0))
            {
                qp.completeSend(pos, WcStatus.LOC_PROT_ERR, 0);
                break;
            }
            inflightBytes += cost;
            nextTransmit++;
            wrote = true;
        }
        if (wrote)
        {
            responder.flushDeferredAck();
            frames.flush();
        }
    }

    /** End of a read batch: send more if responses made room. */
    void afterRead()
    {
        if (progressed)
        {
            progressed = false;
            if (nextTransmit < sendQueue.posted())
            {
                pump();
            }
        }
    }

    /** @return whether request {@code pos} puts more than {@link #DIRECT_PAYLOAD_MAX} payload bytes on the wire. */
    private boolean carriesLargePayload(final long pos)
    {
        final int opcode = sendQueue.opcode(pos);
        return Opcode.RDMA_READ != opcode && !Opcode.isAtomic(opcode) &&
            sendQueue.totalLength(pos) > DIRECT_PAYLOAD_MAX;
    }

    private long cost(final long pos)
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
    private byte encodeHeader(final FrameFlyweight header, final long pos, final int opcode, final int length)
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
     * @return false if one of its regions was closed.
     */
    private boolean writeRequest(final long pos, final int skip)
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
                    return false;
                }
            }
        }
        final int inFrame = inline ? length : type == FrameType.ATOMIC_REQUEST ? payloadLength : 0;
        final ByteBuf buffer = frames.newFrame(inFrame);
        encodeHeader(frames.outFrame(), pos, opcode, length);
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
        if (skip > 0)
        {
            // The poster's partial write: finishPartialFrame() does the accounting.
            return true;
        }
        if (FrameType.READ_REQUEST == type || FrameType.ATOMIC_REQUEST == type)
        {
            outstandingReadsAndAtomics++;
        }
        return true;
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

    // ---------------------------------------------------------------- the send window, as responses move it

    /** {@inheritDoc} */
    public long oldestUnacked()
    {
        return oldestUnacked;
    }

    /** {@inheritDoc} */
    public long nextTransmit()
    {
        return nextTransmit;
    }

    /** {@inheritDoc} */
    public void progressed()
    {
        progressed = true;
    }

    /** {@inheritDoc} */
    public void acknowledged(final long pos)
    {
        inflightBytes -= cost(pos);
        oldestUnacked = pos + 1;
    }

    /** {@inheritDoc} */
    public void answered(final long sequence)
    {
        inflightBytes -= cost(sequence);
        outstandingReadsAndAtomics--;
        oldestUnacked = sequence + 1;
    }

    /** {@inheritDoc} */
    public void rewind(final long sequence, final long delayNs)
    {
        nextTransmit = sequence;
        inflightBytes = 0;
        outstandingReadsAndAtomics = 0;
        rnrWaiting = true;
        connection.schedule(rnrRetryTask, delayNs);
    }

    /** {@inheritDoc} */
    public void protocolError(final String reason)
    {
        connection.protocolError(reason);
    }

    private void onRnrTimer()
    {
        final boolean locked = connection.lockIo();
        try
        {
            rnrWaiting = false;
            pump();
        }
        finally
        {
            connection.unlockIo(locked);
        }
    }
}
