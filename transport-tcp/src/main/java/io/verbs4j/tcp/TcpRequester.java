// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.spi.WorkQueue;

/**
 * The initiator side of a connection, its sending half (siw's {@code qp_tx}, Aeron's sender): walks the send queue
 * in order and writes each request as a frame ({@link TcpRequestEncoder}: header from a pooled buffer, payload
 * straight from registered memory), either straight to the socket from the posting or polling thread (its
 * {@link TcpDirectPump}) or through the event loop (here). It keeps the send window, which its direct pump moves as
 * requests go out and its {@link TcpResponseHandler} as the target's responses arrive
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
 * once ({@link TcpDirectPump#finishPartialFrame()}), ahead of anything written later.
 */
final class TcpRequester implements Runnable, TcpResponseHandler.Window, TcpDriverLock.PendingWork
{
    private static final VarHandle PUMP_SCHEDULED;
    private static final VarHandle PUMP_WANTED;

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
    private final TcpRequestEncoder encoder;
    private final TcpDirectPump direct;
    private final Runnable rnrRetryTask = this::onRnrTimer;
    private TcpQueuePair qp;
    private WorkQueue sendQueue;
    @SuppressWarnings("unused")
    private volatile int pumpScheduled;
    @SuppressWarnings("unused")
    private volatile int pumpWanted;

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
        this.encoder = new TcpRequestEncoder(frames, counters, maxInflightBytes);
        this.direct = new TcpDirectPump(this, life, counters, frames, encoder, maxInflightBytes,
            connection.configuration().directWriteMaxBytes());
    }

    void start(final TcpQueuePair queuePair, final long initialSequence)
    {
        qp = queuePair;
        sendQueue = queuePair.sendQueue();
        nextTransmit = initialSequence;
        oldestUnacked = initialSequence;
        encoder.start(sendQueue);
        responder = connection.responder();
        direct.start(sendQueue, responder);
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
     * Posting or polling thread, driver lock held: clears the pump request (this call sees every request published
     * before it), then writes straight to the socket ({@link TcpDirectPump#pump()}).
     *
     * @return true if nothing is left for the I/O thread.
     */
    private boolean pumpDirect()
    {
        PUMP_WANTED.setVolatile(this, 0);
        return direct.pump();
    }

    /**
     * Driver lock held: hands the rest of a frame that a direct write got only partly onto the socket to the ordered
     * queue ({@link TcpDirectPump#finishPartialFrame()}); nothing if there is none.
     */
    void finishPartialFrame()
    {
        direct.finishPartialFrame();
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
     * Application thread, driver lock held: writes the deferred ACK alone, straight to the socket
     * ({@link TcpDirectPump#writeAckDirect()}).
     *
     * @return false if it could not (Netty holds queued bytes, the socket is full, or direct writes are off): the
     * I/O thread must write it.
     */
    boolean writeAckDirect()
    {
        return direct.writeAckDirect();
    }

    /** Sends what the send queue holds, as far as flow control allows. Event loop, driver lock held. */
    public void pump()
    {
        PUMP_WANTED.setVolatile(this, 0);
        if (direct.hasPartial())
        {
            direct.finishPartialFrame();
        }
        if (!mayTransmit())
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

    // ---------------------------------------------------------------- the send window, as sends and responses move it

    /**
     * Driver lock held: whether requests may go out now (established, the queue pair in RTS, no RNR wait); if not,
     * the handshake, the flush or the RNR timer takes it from here.
     *
     * @return true if the pumps may send.
     */
    boolean mayTransmit()
    {
        return life.isEstablished() && QpState.RTS == qp.state() && !rnrWaiting;
    }

    /** @return the request bytes in flight (sent, not yet acknowledged or answered). Driver lock held. */
    long inflightBytes()
    {
        return inflightBytes;
    }

    /** @return the READs and atomics in flight (a fenced request waits for them). Driver lock held. */
    int outstandingReadsAndAtomics()
    {
        return outstandingReadsAndAtomics;
    }

    /**
     * Driver lock held: the next request to transmit is at this send-queue position (the direct path sent up to it,
     * or stops before it).
     *
     * @param pos the send-queue position.
     */
    void setNextTransmit(final long pos)
    {
        nextTransmit = pos;
    }

    /**
     * Driver lock held: the request at pos went out (whole, or its first part with the rest queued): it counts in
     * flight until acknowledged or answered.
     *
     * @param pos    the request's send-queue position.
     * @param opcode its opcode.
     * @return true if it is a READ or an atomic (it waits for its response).
     */
    boolean addInFlight(final long pos, final int opcode)
    {
        inflightBytes += cost(pos);
        if (Opcode.RDMA_READ == opcode || Opcode.isAtomic(opcode))
        {
            outstandingReadsAndAtomics++;
            return true;
        }
        return false;
    }

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
