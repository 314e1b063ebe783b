// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.CompletionHandler;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.shm.protocol.MessageRecordFlyweight;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.WorkQueue;
import io.verbs4j.stat.SingleWriterCounters;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;

/**
 * The receive side of a shm queue pair and its progress round ({@link #doWork()}): reads the peer's records in
 * order, checks each one's header and MSN, hands it to its protocol by record type ({@link ShmEagerMessages},
 * {@link ShmRendezvousPull}, {@link ShmServedRequests}), completes receives and publishes the acknowledgement; then
 * lets the {@link ShmSender} take the peer's acknowledgements, NAKs and error, and resume the pump.
 * <p>
 * A record that finds no posted receive is refused with an RNR NAK, and every later record is dropped until the
 * sender, after {@code rnrTimerNs}, retransmits from the refused MSN (go-back-N, as RC does). A malformed record
 * (short, unknown version or type, inconsistent lengths) moves the connection to ERROR.
 * <p>
 * Threading: the device's progress only ({@link ShmProgress}, the one driver; asserted), so a single receiving
 * thread per queue pair at a time, and no lock of its own: whoever holds the progress owns the expected MSN, the
 * acknowledgement published, the NAK count and the error flags. Unbinding, region close and the retirement of a
 * peer's mapping wait for the progress ({@link ShmDevice#progressExclusive}).
 */
final class ShmReceiver implements ControlledMessageHandler
{
    private static final System.Logger LOG = System.getLogger("io.verbs4j.shm");
    private static final int READ_LIMIT = 64;

    private final ShmQueuePair qp;
    private final WorkQueue rq;
    private final ShmSender sender;
    private final ShmSendWindow window;
    private final ShmOwedAck owedAck;
    private final ShmAckWatch ackWatch;
    private final ShmEagerMessages eager;
    private final ShmRendezvousPull rendezvous;
    private final ShmServedRequests served;
    private final ShmCounters deviceCounters;
    /** The receive-side data-path counters, written by the holder of the device's progress. */
    private final SingleWriterCounters counters;

    // Owned by the holder of the device's progress.
    private long expectedMsn;
    private long publishedAck;
    private long nakCount;
    /** The highest acknowledgement the records read in this round carried (widened), or -1. */
    private long carriedIn = -1;
    private boolean broken;
    private boolean remoteErrorSent;
    private ShmConnection reading;
    private final MessageRecordFlyweight record = new MessageRecordFlyweight();

    /**
     * @param qp             the queue pair (state, receive queue, completions, connection, error).
     * @param sender         the send side (acknowledgements, pump) and its protocols.
     * @param deviceCounters the device's counters (rare events: error completions).
     * @param counters       this queue pair's data-path counters.
     */
    ShmReceiver(
        final ShmQueuePair qp,
        final ShmSender sender,
        final ShmCounters deviceCounters,
        final SingleWriterCounters counters)
    {
        this.qp = qp;
        this.rq = qp.recvQueue();
        this.sender = sender;
        this.window = sender.window();
        this.owedAck = sender.owedAck();
        this.ackWatch = sender.ackWatch();
        this.eager = sender.eager();
        this.rendezvous = sender.rendezvous();
        this.served = sender.served();
        this.deviceCounters = deviceCounters;
        this.counters = counters;
    }

    /** For the connection manager (setup path, nothing running): a fresh receive side for a new connection. */
    void reset()
    {
        remoteErrorSent = false;
        eager.resetReceive();
        expectedMsn = 0;
        publishedAck = 0;
        nakCount = 0;
        broken = false;
    }

    /** Unbinding (the progress and the send lock held): forgets the connection being read. */
    void forgetPeer()
    {
        reading = null;
    }

    // ---------------------------------------------------------------- progress

    /**
     * One round of this queue pair's progress: incoming records, acknowledgements, NAKs, the peer's state, and the
     * pump if sends are waiting. Called by the holder of the device's progress only (asserted when assertions are
     * on): that exclusion is the receive side's, so a round takes no lock of its own.
     *
     * @return work done.
     */
    int doWork()
    {
        assert qp.shmDevice().holdsProgress() : "a receive round outside the device's progress";
        final ShmConnection c = qp.connection();
        if (null == c || !mayHaveWork(c) || QpState.ERROR == qp.state())
        {
            return 0;
        }
        final boolean peerClosed = c.peerClosed();
        int work = 0;
        reading = c;
        carriedIn = -1;
        try
        {
            work += c.in.controlledRead(this, READ_LIMIT);
        }
        catch (final RuntimeException ex)
        {
            LOG.log(System.Logger.Level.WARNING, "verbs4j shm: queue pair " + qp.qpNumber() +
                ": unreadable ring from peer queue pair " + c.peerQpn + " (" + ex + "); connection to ERROR");
            broken = true;
        }
        if (expectedMsn != publishedAck)
        {
            publishedAck = expectedMsn;
            c.putAcked(expectedMsn);
        }
        owedAck.taken(expectedMsn);
        if (broken)
        {
            qp.enterError();
            return work + 1;
        }
        // The acknowledgement first, then the limit: the limit is released before a record is committed, so
        // one read after an acknowledgement covers every record that acknowledgement can count. Read the other
        // way round, records committed in between (by a posting thread) look acknowledged but never sent. The
        // records read above come first: what they carried is never more than the line holds by then.
        // The line only when due (ShmAckWatch), and always once the peer has closed (its last acknowledgements).
        final long seenBefore = window.ackedSeen();
        final long lineAck = peerClosed || ackWatch.lineDue() ? c.peerAckedMsn() : -1;
        final long peerAcked = Math.max(lineAck, carriedIn);
        final long trackedMsnLimit = sender.trackedMsnLimit();
        if (peerAcked > trackedMsnLimit)
        {
            // The counter is written by the peer: never trust it past what was sent (a huge value would
            // otherwise spin this loop for ever and complete sends that were never carried out).
            LOG.log(System.Logger.Level.WARNING, "verbs4j shm: queue pair " + qp.qpNumber() +
                ": peer queue pair " + c.peerQpn + " acknowledged message " + peerAcked + " but only " +
                trackedMsnLimit + " were sent; connection to ERROR");
            qp.enterError();
            return work + 1;
        }
        ackWatch.afterRound(lineAck, carriedIn, seenBefore);
        work += sender.processAcks(c, peerAcked);
        if (peerClosed && QpState.ERROR != qp.state())
        {
            qp.enterError();
            return work + 1;
        }
        if (sender.pumpNeeded())
        {
            sender.pump();
        }
        return work;
    }

    /**
     * A look at whether {@link #doWork()} could have anything to do: a record waiting, an acknowledgement to publish,
     * anything new from the peer's control block (acknowledgement, NAK, error, close), or sends for the pump. Plain
     * loads and volatile reads only, so an idle poll costs no atomic instruction; a stale read of this side's own
     * counters can only say yes when the answer is no, never the reverse (they only move towards the peer's values).
     */
    private boolean mayHaveWork(final ShmConnection c)
    {
        return c.hasIncoming() || expectedMsn != publishedAck || broken || sender.mayHaveWork(c);
    }

    // ---------------------------------------------------------------- records

    /** {@inheritDoc} */
    public Action onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final ShmConnection c = reading;
        if (length < FrameDescriptor.HEADER_LENGTH)
        {
            return protocolError(c, type, length, "short record or unknown version");
        }
        // The ring's read placed the whole record (length bytes from index) inside the ring: fields are read at
        // its address without a bounds check each.
        final MessageRecordFlyweight record = this.record.wrap(buffer.addressOffset() + index);
        if (SegmentHeader.VERSION != record.version())
        {
            return protocolError(c, type, length, "short record or unknown version");
        }
        if (FrameDescriptor.TYPE_SEND_INLINE == type && 0 != (record.flags() & FrameDescriptor.FLAG_ACK))
        {
            // The peer's acknowledgement of this side's records, taken even from a record skipped below.
            carriedIn = Math.max(carriedIn, window.widenAck(record.sourceCount()));
        }
        final long msn = record.msn();
        if (msn != expectedMsn || remoteErrorSent)
        {
            // Sent after a message this side refused (RNR): the sender retransmits from that one.
            return Action.CONTINUE;
        }
        final int messageLength = record.messageLength();
        final int count = record.sourceCount();
        switch (type)
        {
            case FrameDescriptor.TYPE_SEND_INLINE:
                if (messageLength != length - FrameDescriptor.HEADER_LENGTH)
                {
                    return protocolError(c, type, length, "message length " + messageLength);
                }
                break;
            case FrameDescriptor.TYPE_SEND_RENDEZVOUS:
                if (count < 1 || count > ShmDevice.MAX_SGE ||
                    length != FrameDescriptor.HEADER_LENGTH + count * FrameDescriptor.SOURCE_LENGTH ||
                        messageLength < 0)
                {
                    return protocolError(c, type, length, "source count " + count);
                }
                break;
            case FrameDescriptor.TYPE_WRITE_IMM:
                if (messageLength < 0)
                {
                    return protocolError(c, type, length, "message length " + messageLength);
                }
                break;
            case FrameDescriptor.TYPE_SEND_FRAGMENT:
                return eager.onFragment(this, c, type, buffer, index, length, msn, messageLength);
            case FrameDescriptor.TYPE_WRITE_REQUEST:
            case FrameDescriptor.TYPE_READ_REQUEST:
            case FrameDescriptor.TYPE_ATOMIC_REQUEST:
                return served.onRequest(this, c, type, buffer, index, length, msn, messageLength);
            default:
                return protocolError(c, type, length, "unknown record type");
        }
        final long pos = qp.takeRecv();
        if (pos < 0)
        {
            return refuseNoRecv(c, msn);
        }
        int opcode = Opcode.RECV;
        final int status;
        if (!ShmSges.allOpen(rq, pos))
        {
            status = WcStatus.LOC_PROT_ERR;
        }
        else if (FrameDescriptor.TYPE_SEND_INLINE == type)
        {
            status = eager.receiveInline(pos, record.payloadAddress(), messageLength);
        }
        else if (FrameDescriptor.TYPE_SEND_RENDEZVOUS == type)
        {
            status = rendezvous.pull(c, pos, buffer, index + FrameDescriptor.PAYLOAD_OFFSET, count, messageLength);
        }
        else
        {
            opcode = Opcode.RECV_RDMA_WITH_IMM;
            status = WcStatus.SUCCESS;
        }
        final boolean withImm = 0 != (record.flags() & FrameDescriptor.FLAG_WITH_IMM);
        if (WcStatus.SUCCESS == status)
        {
            accepted(msn);
            completeRecv(pos, opcode, messageLength, withImm ? record.immediate() : 0,
                withImm ? CompletionHandler.WITH_IMM : 0);
            return Action.CONTINUE;
        }
        return recvFailed(c, pos, msn, status, opcode);
    }

    // ---------------------------------------------------------------- for the protocols

    /** @return the oldest posted receive, or negative if none is posted. */
    long takeRecv()
    {
        return qp.takeRecv();
    }

    /** The record numbered {@code msn} was taken: the next one is expected (and acknowledged with this one). */
    void accepted(final long msn)
    {
        expectedMsn = msn + 1;
    }

    /**
     * Completes a receive successfully and counts it. The bytes of a WRITE_WITH_IMM went to the target region, not
     * into the receive: only a SEND's count as received.
     */
    void completeRecv(final long pos, final int opcode, final int messageLength, final int immediate, final int flags)
    {
        counters.increment(ShmCounter.RECEIVES);
        if (Opcode.RECV == opcode)
        {
            counters.add(ShmCounter.BYTES_RECEIVED, messageLength);
        }
        qp.completeRecv(pos, WcStatus.SUCCESS, opcode, messageLength, immediate, flags);
    }

    /** No receive is posted for the record numbered {@code msn}: an RNR NAK (the sender retransmits from it). */
    Action refuseNoRecv(final ShmConnection c, final long msn)
    {
        c.putRnrNak(msn, ++nakCount);
        counters.increment(ShmCounter.RNR_NAKS_SENT);
        return Action.CONTINUE;
    }

    /** A receive failed locally: it completes with {@code status}, the sender is told, the queue pair errs. */
    Action recvFailed(final ShmConnection c, final long pos, final long msn, final int status, final int opcode)
    {
        publishedAck = expectedMsn;
        c.putAcked(expectedMsn);
        c.putError(msn, WcStatus.LOC_LEN_ERR == status ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_OP_ERR);
        eager.resetReceive();
        deviceCounters.increment(ShmCounter.ERROR_COMPLETIONS);
        qp.completeRecv(pos, status, opcode, 0, 0, 0);
        return Action.BREAK;
    }

    /** A served request failed the target-side checks: REM_ACCESS_ERR for the sender, memory untouched. */
    Action refuseRemote(final ShmConnection c, final long msn)
    {
        remoteErrorSent = true;
        publishedAck = expectedMsn;
        c.putAcked(expectedMsn);
        c.putError(msn, WcStatus.REM_ACCESS_ERR);
        return Action.BREAK;
    }

    /** A malformed record: logged, and the connection goes to ERROR at the end of this round. */
    Action protocolError(final ShmConnection c, final int type, final int length, final String what)
    {
        LOG.log(System.Logger.Level.WARNING, "verbs4j shm: queue pair " + qp.qpNumber() + ": malformed record from " +
            "peer queue pair " + c.peerQpn + " (type " + type + ", length " + length + ": " + what +
            "); connection to ERROR");
        broken = true;
        return Action.BREAK;
    }
}
