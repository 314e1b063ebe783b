// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.WcStatus;
import io.verbs4j.spi.WorkQueue;
import io.verbs4j.tcp.protocol.FrameType;
import org.agrona.UnsafeApi;

/**
 * The initiator's receive half (Aeron's receiver beside the {@link TcpRequester}'s sender): completes requests from
 * the target's responses. An ACK completes every SEND/WRITE up to its sequence, a NAK fails the request it names, a
 * READ_RESPONSE's payload goes straight into the READ's local memory (through the decoder's sink), an
 * ATOMIC_RESPONSE's original value into the atomic's 8 bytes; an RNR NAK rewinds the send window to the NAKed
 * request (go-back-N after {@code rnrTimerNs}, up to {@code rnrRetry} times, then RNR_RETRY_EXC_ERR). A response
 * outside the outstanding requests, or one that contradicts its request, is a protocol error.
 * <p>
 * It moves the requester's send window through a narrow {@link Window}, and tells the decoder where a payload goes.
 * <p>
 * Threading: whoever holds the connection's driver lock and decodes (the event loop, or a polling thread).
 */
final class TcpResponseHandler
{
    private static final int ACTION_NONE = 0;
    private static final int ACTION_READ = 1;
    private static final int ACTION_READ_FAILED = 2;

    /** The requester's send window, as responses move it. Driver lock held. */
    interface Window
    {
        /** @return the oldest request not yet completed. */
        long oldestUnacked();

        /** @return the next request to send (every earlier one is on the wire). */
        long nextTransmit();

        /** A response arrived: the sender may have room for more (looked at after the read batch). */
        void progressed();

        /**
         * Request {@code pos} (the oldest) was acknowledged.
         *
         * @param pos the request.
         */
        void acknowledged(long pos);

        /**
         * READ or atomic {@code sequence} (the oldest) was answered.
         *
         * @param sequence the request.
         */
        void answered(long sequence);

        /**
         * RNR NAK: send everything from {@code sequence} on again after {@code delayNs}.
         *
         * @param sequence the first request to send again.
         * @param delayNs  the RNR timer.
         */
        void rewind(long sequence, long delayNs);

        /**
         * The peer broke the protocol: close the connection.
         *
         * @param reason what was wrong.
         */
        void protocolError(String reason);
    }

    private final Window window;
    private final TcpFrameDecoder decoder;
    private final TcpCounters counters;
    private TcpQueuePair qp;
    private WorkQueue sendQueue;
    private long rnrSequence = -1;
    private int rnrRetriesUsed;
    private int responseAction;
    private long responseSequence;

    /**
     * @param window   the requester's send window.
     * @param decoder  the connection's decoder (where a response's payload goes).
     * @param counters the device's counters.
     */
    TcpResponseHandler(final Window window, final TcpFrameDecoder decoder, final TcpCounters counters)
    {
        this.window = window;
        this.decoder = decoder;
        this.counters = counters;
    }

    /**
     * The connection is established.
     *
     * @param queuePair the local queue pair.
     */
    void start(final TcpQueuePair queuePair)
    {
        qp = queuePair;
        sendQueue = queuePair.sendQueue();
    }

    /**
     * A response header arrived.
     *
     * @param type     frame type.
     * @param length   payload length.
     * @param sequence the request it answers.
     * @param value    address field (atomic original value).
     * @param argument argument field (NAK status).
     */
    void onResponse(final int type, final int length, final long sequence, final long value, final int argument)
    {
        responseAction = ACTION_NONE;
        responseSequence = sequence;
        if (QpState.ERROR == qp.state())
        {
            decoder.discardPayload();
            return;
        }
        final long oldestUnacked = window.oldestUnacked();
        final long nextTransmit = window.nextTransmit();
        if (sequence < oldestUnacked - (FrameType.ACK == type ? 1 : 0) || sequence >= nextTransmit)
        {
            window.protocolError(FrameType.name(type) + " for sequence " + sequence + " outside the outstanding " +
                "requests [" + oldestUnacked + ", " + nextTransmit + ")");
            return;
        }
        window.progressed();
        switch (type)
        {
            case FrameType.ACK:
                ackThrough(sequence);
                break;
            case FrameType.NAK:
                if (ackThrough(sequence - 1))
                {
                    final int status = WcStatus.SUCCESS != argument && WcStatus.WR_FLUSH_ERR != argument &&
                        argument > 0 && argument <= WcStatus.GENERAL_ERR ? argument : WcStatus.BAD_RESP_ERR;
                    qp.completeSend(sequence, status, 0);
                }
                break;
            case FrameType.RNR_NAK:
                if (ackThrough(sequence - 1))
                {
                    onRnrNak(sequence);
                }
                break;
            case FrameType.READ_RESPONSE:
                if (!ackThrough(sequence - 1))
                {
                    return;
                }
                if (Opcode.RDMA_READ != sendQueue.opcode(sequence) || length != sendQueue.totalLength(sequence))
                {
                    window.protocolError("READ_RESPONSE of " + length + " bytes does not match request " +
                        sequence);
                    return;
                }
                if (decoder.sink().addSges(sendQueue, sequence, length))
                {
                    responseAction = ACTION_READ;
                    decoder.payloadIntoSink();
                }
                else
                {
                    responseAction = ACTION_READ_FAILED;
                    decoder.discardPayload();
                }
                break;
            case FrameType.ATOMIC_RESPONSE:
                if (ackThrough(sequence - 1))
                {
                    onAtomicResponse(sequence, value);
                }
                break;
            default:
                break;
        }
    }

    /** The payload of a response has arrived in full. */
    void onResponseEnd()
    {
        final long sequence = responseSequence;
        if (ACTION_READ == responseAction)
        {
            finish(sequence, WcStatus.SUCCESS, (int)sendQueue.totalLength(sequence));
        }
        else if (ACTION_READ_FAILED == responseAction)
        {
            finish(sequence, WcStatus.LOC_PROT_ERR, 0);
        }
        responseAction = ACTION_NONE;
    }

    private void onAtomicResponse(final long sequence, final long original)
    {
        if (!Opcode.isAtomic(sendQueue.opcode(sequence)))
        {
            window.protocolError("ATOMIC_RESPONSE for request " + sequence + " which is not an atomic");
            return;
        }
        final TcpMemoryRegion region = (TcpMemoryRegion)sendQueue.sgeRegion(sequence, 0);
        if (!region.tryPin())
        {
            finish(sequence, WcStatus.LOC_PROT_ERR, 0);
            return;
        }
        try
        {
            UnsafeApi.putLongVolatile(null, region.memory().addressOf(sendQueue.sgeOffset(sequence, 0)), original);
        }
        finally
        {
            region.unpin();
        }
        finish(sequence, WcStatus.SUCCESS, 8);
    }

    private void finish(final long sequence, final int status, final int byteLength)
    {
        window.answered(sequence);
        qp.completeSend(sequence, status, byteLength);
    }

    /**
     * Completes every request up to {@code last} that only waited for an acknowledgement.
     *
     * @param last last sequence acknowledged.
     * @return false if the acknowledgement covered an unanswered READ or atomic (a protocol error, reported).
     */
    private boolean ackThrough(final long last)
    {
        for (long pos = window.oldestUnacked(); pos <= last; pos++)
        {
            final int opcode = sendQueue.opcode(pos);
            if (Opcode.writesLocalMemory(opcode) && sendQueue.isPending(pos))
            {
                window.protocolError("acknowledgement of " + last + " covers unanswered " + Opcode.name(opcode) +
                    " " + pos);
                return false;
            }
            window.acknowledged(pos);
            qp.completeSend(pos, WcStatus.SUCCESS, (int)sendQueue.totalLength(pos));
        }
        if (last >= rnrSequence)
        {
            rnrSequence = -1;
            rnrRetriesUsed = 0;
        }
        return true;
    }

    private void onRnrNak(final long sequence)
    {
        final QueuePairConfig config = qp.config();
        if (sequence != rnrSequence)
        {
            rnrSequence = sequence;
            rnrRetriesUsed = 0;
        }
        if (QueuePairConfig.RNR_RETRY_INFINITE != config.rnrRetry() && rnrRetriesUsed >= config.rnrRetry())
        {
            qp.completeSend(sequence, WcStatus.RNR_RETRY_EXC_ERR, 0);
            return;
        }
        rnrRetriesUsed++;
        counters.increment(TcpCounter.RNR_RETRIES);
        // The target dropped this request and everything after it: send them all again after the RNR timer.
        window.rewind(sequence, Math.max(1_000L, config.rnrTimerNs()));
    }
}
