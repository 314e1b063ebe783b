package io.verbs4j.tcp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.netty.buffer.ByteBuf;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePairConfig;
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
 * Threading: {@link #requestPump()} from the posting thread; everything else on the connection's event loop.
 */
final class TcpRequester implements Runnable
{
    private static final VarHandle PUMP_SCHEDULED;
    private static final int ACTION_NONE = 0;
    private static final int ACTION_READ = 1;
    private static final int ACTION_READ_FAILED = 2;

    static
    {
        try
        {
            PUMP_SCHEDULED = MethodHandles.lookup().findVarHandle(TcpRequester.class, "pumpScheduled", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final TcpConnection connection;
    private final TcpCounters counters;
    private final long maxInflightBytes;
    private final Runnable rnrRetryTask = this::onRnrTimer;
    private TcpQueuePair qp;
    private WorkQueue sendQueue;
    @SuppressWarnings("unused")
    private volatile int pumpScheduled;

    private long nextTransmit;
    private long oldestUnacked;
    private long inflightBytes;
    private int outstandingReadsAndAtomics;
    private boolean rnrWaiting;
    private long rnrSequence = -1;
    private int rnrRetriesUsed;
    private boolean progressed;
    private int responseAction;
    private long responseSequence;

    TcpRequester(final TcpConnection connection)
    {
        this.connection = connection;
        this.counters = connection.counters();
        this.maxInflightBytes = connection.configuration().maxInflightBytes();
    }

    void start(final TcpQueuePair queuePair, final long initialSequence)
    {
        qp = queuePair;
        sendQueue = queuePair.sendQueue();
        nextTransmit = initialSequence;
        oldestUnacked = initialSequence;
    }

    /** From the posting thread: make the I/O thread look at the send queue (at most one wake-up in flight). */
    void requestPump()
    {
        if (connection.inEventLoop())
        {
            pump();
        }
        else if (PUMP_SCHEDULED.compareAndSet(this, 0, 1))
        {
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
    public void run()
    {
        pump();
    }

    /** Sends what the send queue holds, as far as flow control allows. Event loop only. */
    void pump()
    {
        PUMP_SCHEDULED.setVolatile(this, 0);
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
            if (!writeRequest(pos))
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
            connection.flush();
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
        final int opcode = sendQueue.opcode(pos);
        return FrameFlyweight.HEADER_LENGTH + (Opcode.isAtomic(opcode) ? FrameFlyweight.ATOMIC_OPERANDS_LENGTH :
            sendQueue.totalLength(pos));
    }

    private boolean writeRequest(final long pos)
    {
        final int opcode = sendQueue.opcode(pos);
        final int length = (int)sendQueue.totalLength(pos);
        final boolean inline = sendQueue.isInline(pos);
        byte type;
        int flags = 0;
        int argument = 0;
        int payloadLength = length;
        boolean payloadFromMemory = !inline;
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
                payloadFromMemory = false;
                break;
            default:
                type = FrameType.ATOMIC_REQUEST;
                flags = Opcode.ATOMIC_CMP_AND_SWP == opcode ? FrameFlyweight.FLAG_CMP_SWAP : 0;
                payloadLength = FrameFlyweight.ATOMIC_OPERANDS_LENGTH;
                payloadFromMemory = false;
                break;
        }
        if (0 != (sendQueue.flags(pos) & SendRequest.SOLICITED))
        {
            flags |= FrameFlyweight.FLAG_SOLICITED;
        }
        int pieces = 0;
        if (payloadFromMemory)
        {
            for (int i = 0, n = sendQueue.sgeCount(pos); i < n; i++)
            {
                pieces = connection.wrap((TcpMemoryRegion)sendQueue.sgeRegion(pos, i), sendQueue.sgeOffset(pos, i),
                    sendQueue.sgeLength(pos, i), pieces);
                if (pieces < 0)
                {
                    return false;
                }
            }
        }
        final int inFrame = inline ? length : type == FrameType.ATOMIC_REQUEST ? payloadLength : 0;
        final ByteBuf buffer = connection.newFrame(inFrame);
        connection.outFrame().encode(type, flags, payloadLength, pos, sendQueue.remoteAddress(pos),
            sendQueue.rkey(pos), argument);
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
        connection.writeFrame(buffer);
        connection.writePieces(pieces);
        counters.add(TcpCounter.BYTES_SENT, payloadLength);
        if (FrameType.READ_REQUEST == type || FrameType.ATOMIC_REQUEST == type)
        {
            outstandingReadsAndAtomics++;
        }
        return true;
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

    // ---------------------------------------------------------------- responses

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
            connection.discardPayload();
            return;
        }
        if (sequence < oldestUnacked - (FrameType.ACK == type ? 1 : 0) || sequence >= nextTransmit)
        {
            connection.protocolError(FrameType.name(type) + " for sequence " + sequence + " outside the outstanding " +
                "requests [" + oldestUnacked + ", " + nextTransmit + ")");
            return;
        }
        progressed = true;
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
                    connection.protocolError("READ_RESPONSE of " + length + " bytes does not match request " +
                        sequence);
                    return;
                }
                if (connection.sink().addSges(sendQueue, sequence, length))
                {
                    responseAction = ACTION_READ;
                    connection.payloadIntoSink();
                }
                else
                {
                    responseAction = ACTION_READ_FAILED;
                    connection.discardPayload();
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
            connection.protocolError("ATOMIC_RESPONSE for request " + sequence + " which is not an atomic");
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
        inflightBytes -= cost(sequence);
        outstandingReadsAndAtomics--;
        oldestUnacked = sequence + 1;
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
        for (long pos = oldestUnacked; pos <= last; pos++)
        {
            final int opcode = sendQueue.opcode(pos);
            if (Opcode.writesLocalMemory(opcode) && sendQueue.isPending(pos))
            {
                connection.protocolError("acknowledgement of " + last + " covers unanswered " + Opcode.name(opcode) +
                    " " + pos);
                return false;
            }
            inflightBytes -= cost(pos);
            oldestUnacked = pos + 1;
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
        nextTransmit = sequence;
        inflightBytes = 0;
        outstandingReadsAndAtomics = 0;
        rnrWaiting = true;
        connection.schedule(rnrRetryTask, Math.max(1_000L, config.rnrTimerNs()));
    }

    private void onRnrTimer()
    {
        rnrWaiting = false;
        pump();
    }
}
