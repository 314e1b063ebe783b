// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.unix.FileDescriptor;
import io.verbs4j.SendRequest;
import io.verbs4j.spi.WorkQueue;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;

/**
 * The {@link TcpRequester}'s direct path: a posting thread (or one polling a completion queue) that holds the driver
 * lock writes the send queue's requests straight to the socket, in batches of one {@code writev}
 * ({@link TcpDirectWriter}), as far as flow control allows, with a deferred ACK for the peer's requests riding along;
 * then it accounts for what the socket took. It decides which requests go this way (the rest is the event loop's:
 * bulk streams, requests above {@link TcpConfiguration#directWriteMaxBytes()}, whatever needs the general path), and
 * writes a deferred ACK alone for a polling thread ({@link #writeAckDirect()}).
 * <p>
 * Frame atomicity: a direct write goes only when nothing waits in the connection's ordered queue
 * ({@link TcpOutbound}) or in Netty; the rest of a frame the socket took only in part goes into that queue at once
 * ({@link #finishPartialFrame()}), ahead of anything written later.
 * <p>
 * The send window (what is in flight, the next request to send) is the requester's: this class reads and moves it
 * through the requester. Threading: any thread holding the connection's driver lock.
 */
final class TcpDirectPump
{
    /**
     * A posting or polling thread writes a bulk request (more than {@link TcpResponder#SMALL_FRAME_BYTES}) itself
     * only while the request bytes in flight, with it, stay within this share of the in-flight cap: the pipe is
     * mostly idle, and handing the frame to the I/O thread would only add a wake-up (a 1 MiB AllReduce of two ranks
     * took ~600 µs instead of ~850). Beyond it the traffic is a stream, which the I/O thread writes faster.
     */
    static final int BULK_DIRECT_SHARE = 4;
    private static final long ACK_FRAME = Long.MIN_VALUE;

    private final TcpRequester requester;
    private final TcpLifecycle life;
    private final TcpCounters counters;
    private final TcpFrameWriter frames;
    private final TcpRequestEncoder encoder;
    private final long maxInflightBytes;
    /** Payload bytes above which a request is always written by the I/O thread (configuration). */
    private final long directPayloadMax;
    private WorkQueue sendQueue;
    private TcpResponder responder;

    private long partialPosition = -1;
    private long partialAck = -1;
    private long partialSkip;

    /**
     * @param requester        the requester whose send window this moves.
     * @param life             the connection's life cycle (the socket for direct writes, protocol errors).
     * @param counters         the device's counters.
     * @param frames           the connection's frame writer.
     * @param encoder          the requester's encoder.
     * @param maxInflightBytes the in-flight cap.
     * @param directPayloadMax payload bytes above which a request is always written by the I/O thread.
     */
    TcpDirectPump(
        final TcpRequester requester,
        final TcpLifecycle life,
        final TcpCounters counters,
        final TcpFrameWriter frames,
        final TcpRequestEncoder encoder,
        final long maxInflightBytes,
        final long directPayloadMax)
    {
        this.requester = requester;
        this.life = life;
        this.counters = counters;
        this.frames = frames;
        this.encoder = encoder;
        this.maxInflightBytes = maxInflightBytes;
        this.directPayloadMax = directPayloadMax;
    }

    /**
     * Establishment (driver lock held), from the requester's start.
     *
     * @param queue  the queue pair's send queue.
     * @param target the connection's target side (its deferred ACK rides along).
     */
    void start(final WorkQueue queue, final TcpResponder target)
    {
        sendQueue = queue;
        responder = target;
    }

    /**
     * Posting thread, holding the driver lock: writes what the send queue holds straight to the socket, in batches
     * of one {@code writev}, as far as flow control allows.
     *
     * @return true if nothing is left for the I/O thread (all sent, or stopped by flow control, which the I/O thread
     * resumes from responses); false if it must take over (Netty has queued bytes, the socket is full or failed, or
     * a request needs the general path).
     */
    boolean pump()
    {
        final FileDescriptor fd = life.directFd();
        if (null == fd)
        {
            return false;
        }
        if (!requester.mayTransmit())
        {
            // Nothing to send now: the handshake, the flush or the RNR timer takes it from here.
            return true;
        }
        final TcpDirectWriter writer = frames.directWriter();
        while (true)
        {
            if (hasPartial() || !frames.mayWriteDirect())
            {
                return requester.nextTransmit() >= sendQueue.posted();
            }
            writer.reset();
            final long end = sendQueue.posted();
            long pos = requester.nextTransmit();
            long batchInflight = requester.inflightBytes();
            int batchReads = requester.outstandingReadsAndAtomics();
            boolean general = false;
            boolean batchFull = false;
            while (pos < end)
            {
                if (!sendQueue.isPending(pos))
                {
                    pos++;
                    continue;
                }
                final long cost = encoder.cost(pos);
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
                final int kind = encoder.addDirect(writer, pos, requester.inflightBytes(),
                    requester.oldestUnacked());
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
                if (!general)
                {
                    requester.setNextTransmit(pos);
                }
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
                        requester.setNextTransmit(framePos + 1);
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
                        requester.setNextTransmit(framePos);
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
                requester.setNextTransmit(pos);
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
        if (!requester.addInFlight(pos, opcode) && sendQueue.isInline(pos))
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
        final boolean resumed = encoder.writeRequest(pos, skip, requester.inflightBytes(),
            requester.oldestUnacked()) >= 0;
        frames.outbound().remainderQueued();
        if (!resumed)
        {
            // A region was closed under a half-sent frame: the stream cannot be resumed.
            life.protocolError("registered memory of request " + pos + " was closed while it was sent");
            return;
        }
        if (pos == requester.nextTransmit())
        {
            // Otherwise an RNR NAK rewound the stream meanwhile: the peer drops this frame, it is sent again later.
            requester.addInFlight(pos, sendQueue.opcode(pos));
            requester.setNextTransmit(pos + 1);
        }
        frames.flush();
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

    /** @return true while the rest of a frame the socket took only in part waits. Driver lock held. */
    boolean hasPartial()
    {
        return partialPosition >= 0 || partialAck >= 0;
    }
}
