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

/**
 * The initiator side of a connection, its sending half (siw's {@code qp_tx}, Aeron's sender): walks the send queue
 * in order and writes each request as a frame ({@link TcpRequestEncoder}: header from a pooled buffer, payload
 * straight from registered memory), either straight to the socket from the posting or polling thread or through the
 * event loop. It keeps the send window, which its {@link TcpResponseHandler} moves as the target's responses arrive
 * ({@link TcpResponseHandler.Window}). Sequence numbers are send-queue positions.
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
final class TcpRequester implements Runnable, TcpResponseHandler.Window, TcpDriverLock.PendingWork
{
    private static final VarHandle PUMP_SCHEDULED;
    private static final VarHandle PUMP_WANTED;
    private static final long ACK_FRAME = Long.MIN_VALUE;
    /**
     * A posting or polling thread writes a bulk request (more than {@link TcpResponder#SMALL_FRAME_BYTES}) itself
     * only while the request bytes in flight, with it, stay within this share of the in-flight cap: the pipe is
     * mostly idle, and handing the frame to the I/O thread would only add a wake-up (a 1 MiB AllReduce of two ranks
     * took ~600 µs instead of ~850). Beyond it the traffic is a stream, which the I/O thread writes faster.
     */
    static final int BULK_DIRECT_SHARE = 4;

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
    private final TcpLifecycle life;
    private final TcpCounters counters;
    private final TcpFrameDecoder decoder;
    private final TcpFrameWriter frames;
    private final long maxInflightBytes;
    /** Payload bytes above which a request is always written by the I/O thread (configuration). */
    private final long directPayloadMax;
    private final TcpRequestEncoder encoder;
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
    private TcpResponder responder;
    private long nextTransmit;
    private long oldestUnacked;
    private long inflightBytes;
    private int outstandingReadsAndAtomics;
    private boolean rnrWaiting;
    private boolean progressed;

    /**
     * Driver lock held: whether requests of this side wait for their ACK or response, so that what the peer sends
     * next is likely an answer a poller should read.
     *
     * @return true while request bytes are in flight.
     */
    boolean awaitsAnswers()
    {
        return inflightBytes > 0;
    }

    TcpRequester(final TcpConnection connection)
    {
        this.connection = connection;
        this.life = connection.lifecycle();
        this.counters = connection.counters();
        this.decoder = connection.decoder();
        this.frames = connection.writer();
        this.maxInflightBytes = connection.configuration().maxInflightBytes();
        this.directPayloadMax = connection.configuration().directWriteMaxBytes();
        this.encoder = new TcpRequestEncoder(frames, counters, maxInflightBytes);
    }

    void start(final TcpQueuePair queuePair, final long initialSequence)
    {
        qp = queuePair;
        sendQueue = queuePair.sendQueue();
        nextTransmit = initialSequence;
        oldestUnacked = initialSequence;
        encoder.start(sendQueue);
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
        if (null == life.directFd())
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

    /** {@inheritDoc} */
    public boolean isPumpWanted()
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
        final FileDescriptor fd = life.directFd();
        if (null == fd)
        {
            return false;
        }
        if (!life.isEstablished() || QpState.RTS != qp.state() || rnrWaiting)
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
                final long payload = encoder.payloadOnWire(pos);
                if (payload > directPayloadMax || (payload > TcpResponder.SMALL_FRAME_BYTES &&
                    batchInflight + cost > maxInflightBytes / BULK_DIRECT_SHARE))
                {
                    // A stream of bulk frames goes through the I/O thread, which keeps the socket full while the
                    // poster goes on (streams written by posting threads measured 25 % slower); a bulk frame into
                    // a mostly empty window (a collective's chunk) is written here: the hand-off cost it ~30 µs.
                    general = true;
                    break;
                }
                if (!writer.hasRoom(2 + sendQueue.sgeCount(pos)))
                {
                    batchFull = true;
                    break;
                }
                final int kind = encoder.addDirect(writer, pos, inflightBytes, oldestUnacked);
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
            frames.writeUnansweredFrame(buffer);
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
        final boolean resumed = encoder.writeRequest(pos, skip, inflightBytes, oldestUnacked) >= 0;
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

    /**
     * @return the send-queue position of the next request to transmit: it grows by one with each request this side
     * sends, so two readings differ exactly when requests went out between them (driver lock held).
     */
    long requestsSent()
    {
        return nextTransmit;
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
        final FileDescriptor fd = life.directFd();
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
        frames.wroteAckDirect();
        counters.increment(TcpCounter.ACKS_SENT_ALONE);
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
    public void pump()
    {
        PUMP_WANTED.setVolatile(this, 0);
        if (hasPartial())
        {
            finishPartialFrame();
        }
        if (!life.isEstablished() || QpState.RTS != qp.state() || rnrWaiting)
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
            final int kind = encoder.writeRequest(pos, 0, inflightBytes, oldestUnacked);
            if (kind < 0)
            {
                qp.completeSend(pos, WcStatus.LOC_PROT_ERR, 0);
                break;
            }
            outstandingReadsAndAtomics += kind;
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

    private long cost(final long pos)
    {
        return encoder.cost(pos);
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
