// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.CompletionHandler;
import io.verbs4j.Opcode;
import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.shm.protocol.MessageRecordFlyweight;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.WorkQueue;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler.Action;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * Eager messages, both ends: the payload travels in the ring. A SEND that is inline, small (up to the eager limit) or
 * in memory the peer cannot map is copied into one {@code TYPE_SEND_INLINE} record and scattered into the receive
 * from there; one too large for a record goes as {@code TYPE_SEND_FRAGMENT} records, each acknowledged (the MSN
 * window bounds how many are outstanding), scattered into the receive as they come. The notification of a
 * WRITE_WITH_IMM is an eager record with no payload ({@code TYPE_WRITE_IMM}).
 * <p>
 * Threading: the send half ({@code send*}) runs in the pump, under {@link ShmSender}'s send-side lock, whose holder
 * owns the fragment cursor ({@code fragPos}, {@code fragDone}); the receive half ({@link #receiveInline},
 * {@link #onFragment}) runs in the device's progress ({@link ShmReceiver}), whose holder owns the reassembly
 * cursor ({@code fragRecvPos}, {@code fragRecvDone}).
 */
final class ShmEagerMessages
{
    private final ShmSender sender;
    private final ShmSendWindow window;
    private final ShmOwedAck owedAck;
    private final WorkQueue sq;
    private final WorkQueue rq;

    // Send side, owned by the holder of the send lock.
    private final MessageRecordFlyweight sendRecord = new MessageRecordFlyweight();
    private long fragPos = -1;
    private long fragDone;

    // Receive side, owned by the holder of the device's progress.
    private long fragRecvPos = -1;
    private long fragRecvDone;

    /**
     * @param sender   stops the pump on a full ring.
     * @param window   numbers and tracks the records.
     * @param owedAck  the acknowledgement an inline SEND carries.
     * @param sq       the send queue (payloads).
     * @param rq       the receive queue (destinations).
     */
    ShmEagerMessages(
        final ShmSender sender,
        final ShmSendWindow window,
        final ShmOwedAck owedAck,
        final WorkQueue sq,
        final WorkQueue rq)
    {
        this.sender = sender;
        this.window = window;
        this.owedAck = owedAck;
        this.sq = sq;
        this.rq = rq;
    }

    // ---------------------------------------------------------------- send side

    /** No fragmented SEND under way (a new connection, or a replay from an earlier MSN). */
    void resetSend()
    {
        fragPos = -1;
    }

    /** @return true while a fragmented SEND is under way. */
    boolean isFragmenting()
    {
        return fragPos >= 0;
    }

    /**
     * Writes a SEND whose payload fits one record: every header field and the payload stored once, in place,
     * through the {@link MessageRecordFlyweight} (no staging of the record, no bounds check per field).
     *
     * @return false if the ring is full.
     */
    boolean sendInline(final ShmConnection c, final long pos, final int opcode, final long total)
    {
        final OneToOneRingBuffer ring = c.out;
        final int payload = (int)total;
        final int index = sender.claim(c, FrameDescriptor.TYPE_SEND_INLINE, FrameDescriptor.HEADER_LENGTH + payload);
        if (index < 0)
        {
            return false;
        }
        final WorkQueue sq = this.sq;
        final MessageRecordFlyweight record = sendRecord.wrap(ring.buffer().addressOffset() + index);
        final long msn = window.nextMsn();
        // The acknowledgement this side owes rides along: a reply acknowledges its request (ShmAckWatch).
        final int flags = FrameDescriptor.FLAG_ACK | (Opcode.hasImmediate(opcode) ? FrameDescriptor.FLAG_WITH_IMM : 0);
        record.putHeader(SegmentHeader.VERSION, flags, sq.immediateData(pos), msn, payload, (int)owedAck.toCarry());
        if (payload > 0)
        {
            if (sq.isInline(pos))
            {
                record.putPayload(sq.inlineAddress(pos), payload);
            }
            else
            {
                sq.gatherToAddress(pos, record.payloadAddress());
            }
        }
        window.track(msn, pos, ShmSendWindow.KIND_COMPLETE, 0);
        ring.commit(index);
        return true;
    }

    /**
     * Writes the notification of a WRITE_WITH_IMM whose data is in the target region already.
     *
     * @return false if the ring is full.
     */
    boolean sendWriteImmNotice(final ShmConnection c, final long pos, final int opcode, final long total)
    {
        final int index = sender.claim(c, FrameDescriptor.TYPE_WRITE_IMM, FrameDescriptor.HEADER_LENGTH);
        if (index < 0)
        {
            return false;
        }
        final OneToOneRingBuffer ring = c.out;
        final AtomicBuffer buffer = ring.buffer();
        final long msn = window.putMessageHeader(buffer, index, pos, opcode, total);
        buffer.putInt(index + FrameDescriptor.SOURCE_COUNT_OFFSET, 0);
        window.track(msn, pos, ShmSendWindow.KIND_COMPLETE, 0);
        ring.commit(index);
        return true;
    }

    /**
     * Writes the fragments of a SEND (resuming after a full ring or a closed MSN window); the last one completes
     * the request when acknowledged.
     *
     * @return true once every fragment is written.
     */
    boolean sendFragments(final ShmConnection c, final long pos, final int opcode, final long total)
    {
        final WorkQueue sq = this.sq;
        final OneToOneRingBuffer ring = c.out;
        final AtomicBuffer buffer = ring.buffer();
        if (fragPos != pos)
        {
            fragPos = pos;
            fragDone = 0;
        }
        final int maxPayload = ring.maxMsgLength() - FrameDescriptor.REQUEST_HEADER_LENGTH;
        final int immFlag = Opcode.hasImmediate(opcode) ? FrameDescriptor.FLAG_WITH_IMM : 0;
        while (fragDone < total)
        {
            final int fragment = (int)Math.min(maxPayload, total - fragDone);
            final int index = window.windowOpen() ?
                ring.tryClaim(FrameDescriptor.TYPE_SEND_FRAGMENT, FrameDescriptor.REQUEST_HEADER_LENGTH + fragment) :
                    -1;
            if (index < 0)
            {
                sender.ringIsFull();
                return false;
            }
            final boolean last = fragDone + fragment == total;
            final int flags = immFlag | (0 == fragDone ? FrameDescriptor.FLAG_FIRST : 0) |
                (last ? FrameDescriptor.FLAG_LAST : 0);
            final long msn = window.putRequest(buffer, index, pos, flags, (int)total, fragDone, 0, 0, 0);
            buffer.putInt(index + FrameDescriptor.IMMEDIATE_OFFSET, sq.immediateData(pos));
            sq.gatherRange(pos, fragDone, fragment,
                buffer.addressOffset() + index + FrameDescriptor.REQUEST_PAYLOAD_OFFSET);
            window.track(msn, pos, last ? ShmSendWindow.KIND_COMPLETE : ShmSendWindow.KIND_NONE, 0);
            fragDone += fragment;
            ring.commit(index);
        }
        fragPos = -1;
        return true;
    }

    // ---------------------------------------------------------------- receive side

    /** No fragmented SEND being reassembled (a new connection, or a failed receive). */
    void resetReceive()
    {
        fragRecvPos = -1;
    }

    /**
     * Scatters an inline record's payload into the receive at {@code pos}.
     *
     * @return {@link WcStatus#SUCCESS}, or {@link WcStatus#LOC_LEN_ERR} (nothing copied) if the receive is shorter.
     */
    int receiveInline(final long pos, final long payloadAddress, final int messageLength)
    {
        return rq.scatterFromAddress(pos, payloadAddress, messageLength);
    }

    /**
     * A fragment of a SEND: the first takes a receive (or is refused with an RNR NAK), each is scattered into it at
     * its offset, the last completes it.
     */
    Action onFragment(
        final ShmReceiver receiver,
        final ShmConnection c,
        final int type,
        final MutableDirectBuffer buffer,
        final int index,
        final int length,
        final long msn,
        final int messageLength)
    {
        final int fragment = length - FrameDescriptor.REQUEST_HEADER_LENGTH;
        final long offset = length < FrameDescriptor.REQUEST_HEADER_LENGTH ? -1 :
            buffer.getLong(index + FrameDescriptor.REQUEST_ADDRESS_OFFSET);
        final int flags = buffer.getShort(index + FrameDescriptor.FLAGS_OFFSET);
        final boolean first = 0 != (flags & FrameDescriptor.FLAG_FIRST);
        if (offset < 0 || fragment < 0 || messageLength < 0 || offset > messageLength - fragment ||
            (first ? 0 != offset || fragRecvPos >= 0 : fragRecvPos < 0 || offset != fragRecvDone))
        {
            return receiver.protocolError(c, type, length, "fragment at " + offset + " of " + messageLength);
        }
        final WorkQueue rq = this.rq;
        final long pos;
        if (first)
        {
            pos = receiver.takeRecv();
            if (pos < 0)
            {
                return receiver.refuseNoRecv(c, msn);
            }
            if (messageLength > rq.totalLength(pos))
            {
                return receiver.recvFailed(c, pos, msn, WcStatus.LOC_LEN_ERR, Opcode.RECV);
            }
            fragRecvPos = pos;
        }
        else
        {
            pos = fragRecvPos;
        }
        if (!ShmSges.allOpen(rq, pos))
        {
            return receiver.recvFailed(c, pos, msn, WcStatus.LOC_PROT_ERR, Opcode.RECV);
        }
        rq.scatterRange(pos, offset, buffer.addressOffset() + index + FrameDescriptor.REQUEST_PAYLOAD_OFFSET,
            fragment);
        fragRecvDone = offset + fragment;
        receiver.accepted(msn);
        if (0 != (flags & FrameDescriptor.FLAG_LAST))
        {
            if (fragRecvDone != messageLength)
            {
                return receiver.protocolError(
                    c, type, length, "last fragment ends at " + fragRecvDone + " of " + messageLength);
            }
            fragRecvPos = -1;
            final boolean withImm = 0 != (flags & FrameDescriptor.FLAG_WITH_IMM);
            receiver.completeRecv(pos, Opcode.RECV, messageLength,
                withImm ? buffer.getInt(index + FrameDescriptor.IMMEDIATE_OFFSET) : 0,
                withImm ? CompletionHandler.WITH_IMM : 0);
        }
        return Action.CONTINUE;
    }
}
