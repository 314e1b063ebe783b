// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.spi.SilenceDetector;

/**
 * Liveness of one connection: every heartbeat interval a tick checks that the peer was heard from (declaring it dead
 * after {@link TcpConfiguration#peerTimeoutNs()} of silence, not counting gaps in which this side itself was not
 * running), writes the deferred ACK, and writes a HEARTBEAT if nothing else went out since the previous tick.
 * (When input looks likely is {@link TcpInputSigns}'.)
 * <p>
 * Threading: {@link #tick} runs on the event loop (a fixed-rate task) holding the connection's driver lock; the
 * signs of activity ({@link #heard()}, {@link #wrote()}) are given by whoever holds the driver lock (the event loop,
 * a poster, a polling thread).
 * The clock is the caller's, so a test steps it.
 */
final class TcpLiveness
{
    /** What a tick does to the connection. Event loop, driver lock held. */
    interface Actions
    {
        /**
         * The peer has been silent for the peer timeout: fail the queue pair and close.
         *
         * @param silentNs the silence counted.
         */
        void onPeerTimeout(long silentNs);

        /** Writes the deferred ACK, if any, and flushes. */
        void flushDeferredAck();

        /** Writes a HEARTBEAT frame and flushes. */
        void writeHeartbeat();
    }

    private final Actions actions;
    private final long heartbeatIntervalNs;
    private final long peerTimeoutNs;
    private final SilenceDetector silence = new SilenceDetector();
    private boolean readSinceTick;
    private boolean wroteSinceTick;

    /**
     * @param actions             what a tick does to the connection.
     * @param heartbeatIntervalNs the tick interval.
     * @param peerTimeoutNs       silence after which the peer is declared dead.
     */
    TcpLiveness(final Actions actions, final long heartbeatIntervalNs, final long peerTimeoutNs)
    {
        this.actions = actions;
        this.heartbeatIntervalNs = heartbeatIntervalNs;
        this.peerTimeoutNs = peerTimeoutNs;
    }

    /**
     * The connection is established: silence counts from now.
     *
     * @param nowNs now.
     */
    void start(final long nowNs)
    {
        silence.start(nowNs);
    }

    /** Data was read from the peer (a sign of life). Driver lock held. */
    void heard()
    {
        readSinceTick = true;
    }

    /** A frame went out (no heartbeat needed this tick). Driver lock held. */
    void wrote()
    {
        wroteSinceTick = true;
    }

    /**
     * Event loop, driver lock held, connection open: one heartbeat interval passed.
     *
     * @param nowNs now ({@link System#nanoTime()}, or a test's clock).
     * @return false if the peer was declared dead ({@link Actions#onPeerTimeout} was called).
     */
    boolean tick(final long nowNs)
    {
        // A tick later than two intervals means the event loop itself was starved (a loaded machine, a GC pause)
        // and the peer's bytes may be waiting unread: that gap is not counted (nor are the missed ticks that a
        // fixed-rate schedule then runs back to back).
        if (silence.isSilent(nowNs, readSinceTick, 2 * heartbeatIntervalNs, peerTimeoutNs))
        {
            actions.onPeerTimeout(silence.silentNs());
            return false;
        }
        readSinceTick = false;
        actions.flushDeferredAck();
        if (!wroteSinceTick)
        {
            actions.writeHeartbeat();
        }
        wroteSinceTick = false;
        return true;
    }
}
