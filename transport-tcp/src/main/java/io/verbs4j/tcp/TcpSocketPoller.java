// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.unix.FileDescriptor;

/**
 * Reads of one connection's socket by threads that poll a completion queue (UCX's {@code worker.progress()} model:
 * a completion reaches a polling thread with no wake-up), on epoll without TLS, and what follows such a read. Whether
 * a poll reads at all, and whether epoll reads beside the pollers, is the {@link TcpReadPolicy}'s decision (polling
 * mode, event mode's patience and read ownership, the ticks); this class does the reading: one reader at a time,
 * under the driver lock from the read system call to the end of decoding ({@link TcpReadOwnership}), then the
 * frames-received counter and signs of life, and the ACKs and further requests the read made possible, which go out
 * from the same thread where nothing waits to be written (an ACK may wait a poll for a frame to ride on,
 * {@link TcpAckHold}). The policy's ticks call back here for what they do besides deciding: polling mode's backstop
 * reads the socket, the ownership tick sends an ACK held for an application that stopped polling.
 * <p>
 * Threading: {@link #progress()} from any polling thread (a try-lock, never blocks); set-up, the ticks' work and
 * {@link #stop()} on the connection's event loop.
 */
final class TcpSocketPoller
{
    private static final int POLL_READS_PER_CALL = 4;

    /** What the poller needs from its connection. */
    interface Link
    {
        /** @return the socket for direct reads (epoll, established, not closing), or null. */
        FileDescriptor socketFd();

        /** @return true once the queue pair is connected. */
        boolean isEstablished();

        /** @return true once the connection is closed or closing. */
        boolean isClosed();

        /** A poller found the end of the stream: close the connection (any thread). */
        void scheduleClose();

        /** Event loop, driver lock held: what ends a read batch (counters, ACKs, further sends, flush). */
        void onReadComplete();
    }

    private final Link link;
    private final TcpDevice device;
    private final TcpCounters counters;
    private final TcpDriverLock lock;
    private final TcpFrameDecoder decoder;
    private final TcpFrameWriter writer;
    private final TcpLiveness liveness;
    private final TcpRequester requester;
    private final TcpResponder responder;
    private final TcpReadOwnership reads;
    private final TcpReadPolicy policy;
    private final TcpAckHold ackHold;

    /**
     * @param link      the connection.
     * @param device    the device (whose {@code Progress} calls {@link #progress()}).
     * @param lock      the connection's driver lock.
     * @param decoder   the connection's decoder.
     * @param writer    the connection's frame writer.
     * @param liveness  the connection's liveness (signs of life).
     * @param signs     the connection's signs of input to come.
     * @param requester the connection's requester.
     * @param responder the connection's responder.
     */
    TcpSocketPoller(
        final Link link,
        final TcpDevice device,
        final TcpDriverLock lock,
        final TcpFrameDecoder decoder,
        final TcpFrameWriter writer,
        final TcpLiveness liveness,
        final TcpInputSigns signs,
        final TcpRequester requester,
        final TcpResponder responder)
    {
        this.link = link;
        this.device = device;
        this.counters = device.counters();
        this.lock = lock;
        this.decoder = decoder;
        this.writer = writer;
        this.liveness = liveness;
        this.requester = requester;
        this.responder = responder;
        this.reads = new TcpReadOwnership(lock, decoder);
        this.policy = new TcpReadPolicy(link, device, decoder, signs, requester, this::readOnBackstop,
            this::releaseHeldAckFromLoop);
        final TcpConfiguration configuration = device.configuration();
        // A held ACK needs a tick to bound its wait: the backstop (polling mode) or the ownership tick.
        this.ackHold = new TcpAckHold(configuration.ackHold() &&
            (configuration.pollingMode() || configuration.pollerOwnsReads()));
    }

    /** @return the socket's read ownership (tests, diagnostics). */
    TcpReadOwnership reads()
    {
        return reads;
    }

    /** @return who reads the socket and when (the connection's I/O-thread reads ask it too; tests, diagnostics). */
    TcpReadPolicy policy()
    {
        return policy;
    }

    /**
     * Channel set-up, before the first read: where pollers may read this socket ({@link TcpReadPolicy#shareReads}),
     * the I/O thread's read loops take the driver lock.
     *
     * @param ctx the connection's context.
     */
    void shareReads(final ChannelHandlerContext ctx)
    {
        if (policy.shareReads(ctx))
        {
            final io.netty.channel.ChannelConfig config = ctx.channel().config();
            config.setRecvByteBufAllocator(reads.lockingAllocator(config.getRecvByteBufAllocator()));
        }
    }

    /** Event loop, established, the socket's descriptor known: polling threads start reading, where they may. */
    void start()
    {
        if (policy.start())
        {
            device.addPolled(this);
        }
    }

    /**
     * Any thread (the device's {@code Progress}, driven by CQ polling): reads what the socket holds and handles it,
     * if the policy lets this poll read and the driver lock is free. Never blocks.
     *
     * @return units of work done (socket reads with data), 0 when idle or busy elsewhere.
     */
    int progress()
    {
        if (null == link.socketFd() || lock.isIoWaiting() || !policy.readsThisPoll())
        {
            return 0;
        }
        policy.markLooked();
        if (!lock.tryLock())
        {
            return 0;
        }
        int work = 0;
        boolean readsOften = false;
        try
        {
            policy.countPoll();
            writer.clearWrittenFromApplication();
            final long framesBefore = decoder.framesDecoded();
            work = pollSocket();
            if (work > 0)
            {
                readsOften = policy.onPollerRead();
                counters.add(TcpCounter.FRAMES_RECEIVED_BY_POLLERS, decoder.framesDecoded() - framesBefore);
                afterPollFromApplication();
            }
            else if (ackHold.takeHeld())
            {
                // Nothing came and the application did not answer: the ACK goes alone.
                writeHeldAck();
            }
        }
        finally
        {
            lock.unlock();
        }
        if (readsOften)
        {
            policy.onReadsOften();
        }
        if (requester.isPumpWanted())
        {
            requester.requestPump();
        }
        return work;
    }

    private int pollSocket()
    {
        final FileDescriptor fd = link.socketFd();
        if (null == fd || link.isClosed())
        {
            return 0;
        }
        final int work = reads.read(fd, POLL_READS_PER_CALL);
        if (TcpReadOwnership.END_OF_STREAM == work)
        {
            link.scheduleClose();
            return 0;
        }
        if (work > 0)
        {
            liveness.heard();
        }
        return work;
    }

    /**
     * After a read on an application thread: counters, then ACKs and further sends, straight to the socket where
     * nothing waits, else in order behind what waits (the responses this read produced, among others).
     */
    private void afterPollFromApplication()
    {
        decoder.publishReceiveCounters();
        if (link.isEstablished() && !link.isClosed())
        {
            if (requester.hasUnsent())
            {
                // A direct batch carries the deferred ACK too.
                requester.pumpFromPoller();
            }
            if (responder.isAckRequested() && !ackHold.holdOrRelease(responder.isAckRequestedByLarge(),
                requester.requestsSent(), responder.pendingAck(), responder.lastAcked()))
            {
                writeAck();
            }
        }
        flushWrittenFromApplication();
    }

    /** Application thread, driver lock held: the ACK alone, straight to the socket where nothing waits. */
    private void writeAck()
    {
        if (!requester.writeAckDirect())
        {
            // Frames wait (responses of this read, or Netty's): the ACK goes behind them.
            responder.flushDeferredAck();
        }
    }

    /** Application thread, driver lock held: a held ACK that no frame carried goes out alone. */
    private void writeHeldAck()
    {
        if (link.isEstablished() && !link.isClosed() && responder.isAckRequested())
        {
            writeAck();
        }
        flushWrittenFromApplication();
    }

    /** Application thread, driver lock held: what this poll wrote goes to the socket (or to the I/O thread). */
    private void flushWrittenFromApplication()
    {
        if (writer.takeWrittenFromApplication())
        {
            writer.flush();
        }
    }

    /** Event loop, on the ownership tick: an ACK held for an application that stopped polling goes out now. */
    private void releaseHeldAckFromLoop()
    {
        if (!ackHold.isHeld())
        {
            return;
        }
        final boolean locked = lock.lockIo();
        try
        {
            if (ackHold.takeHeld() && !link.isClosed())
            {
                link.onReadComplete();
            }
        }
        finally
        {
            lock.unlockIo(locked);
        }
    }

    /**
     * Event loop, polling mode's backstop tick, no poller having taken the driver lock since the last one: reads the
     * socket, and sends a held ACK. The backstop exists only in polling mode (Netty's auto-read off), so it always
     * reads.
     */
    private void readOnBackstop()
    {
        final boolean locked = lock.lockIo();
        try
        {
            // A held ACK goes out with what this tick reads, or alone (onReadComplete writes the pending ACK).
            final boolean ackDue = ackHold.takeHeld();
            if (!link.isClosed() && (pollSocket() > 0 || ackDue))
            {
                link.onReadComplete();
            }
        }
        finally
        {
            lock.unlockIo(locked);
        }
    }

    /** Event loop, driver lock held: the connection closed; no more polling. */
    void stop()
    {
        if (policy.stop())
        {
            device.removePolled(this);
        }
    }

    /** Event loop, driver lock held, after {@link #stop()}: frees the read buffer. */
    void release()
    {
        reads.release();
    }
}
