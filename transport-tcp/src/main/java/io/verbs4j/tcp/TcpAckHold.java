// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

/**
 * Whether an ACK that frames read by a polling thread asked for goes out at once or waits a little for a frame to
 * ride on. A poller's read hands the application its completion in the same poll; an application that answers (a
 * ping-pong, every collective step) posts within microseconds, and its direct batch carries the ACK
 * ({@link TcpResponder#deferredAck()}) — one write instead of two, and one read less on the peer. So the first
 * request for an ACK is held; it is written, alone if it must be, by whichever comes first:
 * <ul>
 *   <li>the next poll of that connection that reads nothing (the application had its chance and did not answer);</li>
 *   <li>the next poll that reads more frames asking for an ACK (one hold per ACK, never two in a row);</li>
 *   <li>the event loop's next tick ({@link TcpConfiguration#pollBackstopNs()}: the ownership tick, or the
 *       polling mode's backstop; either backs off up to {@code TcpReadPolicy.TICK_MAX_BACKOFF} times while the
 *       pollers keep polling), which exists whenever a hold may be taken, for an application that stopped
 *       polling.</li>
 * </ul>
 * A sender's completion thus waits at most one more poll of the receiver, or one tick. Holding is off where no tick
 * is guaranteed (event mode without {@link TcpConfiguration#pollerOwnsReads()}). An ACK asked for by a request of more
 * than {@code TcpResponder.SMALL_FRAME_BYTES} is held only while bulk flows both ways: when this side has sent
 * requests of its own since the previous bulk ACK was asked for (a ring's pieces, an exchange), its next frame is
 * close and carries the ACK, where a lone ACK cost a system call per piece on each side. In a one-way bulk stream
 * the next frame of this side may never come, and a held ACK narrowed the sender's window (1 MiB streams 5-10 %
 * slower), so there the ACK goes at once.
 * <p>
 * Threading: {@link #holdOrRelease(boolean, long, long, long)} and {@link #takeHeld()} under the connection's
 * driver lock; {@link #isHeld()} from the event loop without it, to decide whether to take the lock (a stale answer
 * costs one tick).
 */
final class TcpAckHold
{
    /** No bulk ACK asked for yet. */
    private static final long NONE = Long.MIN_VALUE;

    private final boolean enabled;
    private volatile boolean held;
    private long requestsAtBulkAck = NONE;
    private long heldAck;

    /** @param enabled whether ACKs may be held (a tick is guaranteed while they are). */
    TcpAckHold(final boolean enabled)
    {
        this.enabled = enabled;
    }

    /**
     * A poller's read completed frames that asked for an ACK.
     *
     * @param bulk         whether the request that asked carried more than {@code TcpResponder.SMALL_FRAME_BYTES}.
     * @param requestsSent a count that grows with each request this side sends ({@code TcpRequester.requestsSent};
     *                     only compared: a bulk ACK may be held when it grew since the previous bulk ACK was asked
     *                     for).
     * @param pendingAck   the sequence the ACK would acknowledge now.
     * @param lastAcked    the highest sequence an ACK frame has carried so far: a held ACK that a frame of this side
     *                     carried since is no longer held, so the ACK asked for now has not waited yet.
     * @return true if the ACK is held now (write nothing); false if it must be written now (holding is off, the
     * request was bulk in one-way traffic, or an ACK was held already and is still unsent: it has waited one poll).
     */
    boolean holdOrRelease(final boolean bulk, final long requestsSent, final long pendingAck, final long lastAcked)
    {
        if (held && lastAcked >= heldAck)
        {
            held = false;
        }
        boolean mayHold = enabled;
        if (bulk)
        {
            mayHold &= NONE != requestsAtBulkAck && requestsSent != requestsAtBulkAck;
            requestsAtBulkAck = requestsSent;
        }
        if (mayHold && !held)
        {
            heldAck = pendingAck;
            held = true;
            return true;
        }
        if (held)
        {
            held = false;
        }
        return false;
    }

    /**
     * A poll that read nothing, or a tick: the held ACK (if any) is to be written now.
     *
     * @return true if one was held (and is no longer).
     */
    boolean takeHeld()
    {
        if (held)
        {
            held = false;
            return true;
        }
        return false;
    }

    /** @return whether an ACK is held (any thread; may be stale). */
    boolean isHeld()
    {
        return held;
    }
}
