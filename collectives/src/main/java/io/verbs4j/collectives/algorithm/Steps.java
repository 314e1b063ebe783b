// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * The primitives every algorithm is written in (NCCL's {@code send}, {@code recv}, {@code recvReduceSend}, ...):
 * blocking for the thread that runs the operation, which meanwhile drives the links through the {@link Waiter}.
 * A message is at most one link slot; callers cut their data into {@link #pieceBytes(DataType)} pieces, and both
 * sides of a link cut the same ranges the same way, so message boundaries agree without headers.
 */
public final class Steps
{
    /** Received bytes are copied to the destination. */
    public static final int COPY = 0;
    /** Received bytes are reduced: {@code dst = incoming op other}. */
    public static final int REDUCE_INCOMING_FIRST = 1;
    /** Received bytes are reduced: {@code dst = other op incoming}. */
    public static final int REDUCE_INCOMING_SECOND = 2;

    private final Links links;
    private final Waiter waiter;
    private final int slotBytes;

    /**
     * @param waiter    the waiter (and through it the links).
     * @param slotBytes the links' slot size.
     */
    public Steps(final Waiter waiter, final int slotBytes)
    {
        this.waiter = waiter;
        this.links = waiter.links();
        this.slotBytes = slotBytes;
    }

    /** @return the links. */
    public Links links()
    {
        return links;
    }

    /** @return the waiter. */
    public Waiter waiter()
    {
        return waiter;
    }

    /**
     * @param type element type.
     * @return bytes of a full piece: the slot size rounded down to whole elements.
     */
    public int pieceBytes(final DataType type)
    {
        return slotBytes - slotBytes % type.sizeBytes();
    }

    /**
     * @param type element type.
     * @return elements of a full piece.
     */
    public int pieceElements(final DataType type)
    {
        return slotBytes / type.sizeBytes();
    }

    /**
     * Sends one message, waiting for a credit.
     *
     * @param link   to whom.
     * @param source memory.
     * @param offset byte offset.
     * @param bytes  length, at most a slot.
     */
    public void send(final PeerLink link, final MemView source, final long offset, final int bytes)
    {
        if (link.trySend(source, offset, bytes))
        {
            return;
        }
        do
        {
            waiter.poll(link.peer());
        }
        while (!link.trySend(source, offset, bytes));
        waiter.progressed();
    }

    /**
     * Waits for the next message and checks its length.
     *
     * @param link  from whom.
     * @param bytes expected length.
     */
    public void awaitMessage(final PeerLink link, final int bytes)
    {
        if (!link.hasMessage())
        {
            do
            {
                waiter.poll(link.peer());
            }
            while (!link.hasMessage());
            waiter.progressed();
        }
        if (link.messageLength() != bytes)
        {
            throw mismatch(link, bytes);
        }
    }

    /**
     * Waits for the next message of a closing barrier: an empty or a {@link PeerLink#LEAVE} message.
     *
     * @param link from whom.
     */
    public void awaitBarrierMessage(final PeerLink link)
    {
        if (!link.hasMessage())
        {
            do
            {
                waiter.pollLeaving(link.peer());
            }
            while (!link.hasMessage());
            waiter.progressed();
        }
        if (0 != link.messageLength() && PeerLink.LEAVE != link.messageLength())
        {
            throw mismatch(link, 0);
        }
    }

    /**
     * recv: next message copied to {@code dst}.
     *
     * @param link   from whom.
     * @param dst    destination.
     * @param dstOff byte offset.
     * @param bytes  length.
     */
    public void recvCopy(final PeerLink link, final MemView dst, final long dstOff, final int bytes)
    {
        awaitMessage(link, bytes);
        DataMover.copy(dst, dstOff, link.inbox(), link.messageOffset(), bytes);
        link.release();
    }

    /**
     * recvReduce: next message reduced with {@code other} into {@code dst}.
     *
     * @param link          from whom.
     * @param type          element type.
     * @param op            operator.
     * @param dst           destination.
     * @param dstOff        byte offset.
     * @param other         the local operand.
     * @param otherOff      byte offset.
     * @param count         elements.
     * @param incomingFirst true: {@code dst = incoming op other}; false: {@code dst = other op incoming}.
     */
    public void recvReduce(final PeerLink link, final DataType type, final ReduceOp op, final MemView dst,
        final long dstOff, final MemView other, final long otherOff, final int count, final boolean incomingFirst)
    {
        awaitMessage(link, count * type.sizeBytes());
        final MemView inbox = link.inbox();
        final long inOff = link.messageOffset();
        if (incomingFirst)
        {
            DataMover.reduce(type, op, dst, dstOff, inbox, inOff, other, otherOff, count);
        }
        else
        {
            DataMover.reduce(type, op, dst, dstOff, other, otherOff, inbox, inOff, count);
        }
        link.release();
    }

    /**
     * Streams {@code sendBytes} to one link while receiving {@code recvBytes} from another (or the same), piece by
     * piece, never blocking one direction on the other — the building block of pairwise exchanges whose size exceeds
     * the credit window.
     *
     * @param sendLink  to whom (null if nothing to send).
     * @param src       source.
     * @param srcOff    byte offset.
     * @param sendBytes bytes to send.
     * @param recvLink  from whom (null if nothing to receive).
     * @param dst       destination.
     * @param dstOff    byte offset.
     * @param recvBytes bytes to receive.
     * @param mode      {@link #COPY}, {@link #REDUCE_INCOMING_FIRST} or {@link #REDUCE_INCOMING_SECOND}.
     * @param type      element type (piece size; reductions).
     * @param op        operator (reductions).
     * @param other     local operand of a reduction, at the same offsets as {@code dst}.
     * @param otherOff  byte offset.
     * @param overlap   true when {@code dst} is {@code src} over the same range: a received piece is only written
     *                  after this side's send of that piece completed.
     */
    public void exchange(final PeerLink sendLink, final MemView src, final long srcOff, final long sendBytes,
        final PeerLink recvLink, final MemView dst, final long dstOff, final long recvBytes,
        final int mode, final DataType type, final ReduceOp op, final MemView other, final long otherOff,
        final boolean overlap)
    {
        final int piece = pieceBytes(type);
        final long firstSeq = null == sendLink ? 0 : sendLink.lastSendSeq() + 1;
        long sent = 0;
        long received = 0;
        long sentPieces = 0;
        long receivedPieces = 0;
        boolean waited = false;
        while (sent < sendBytes || received < recvBytes)
        {
            int work = 0;
            if (sent < sendBytes)
            {
                final int length = (int)Math.min(piece, sendBytes - sent);
                if (sendLink.trySend(src, srcOff + sent, length))
                {
                    sent += length;
                    sentPieces++;
                    work++;
                }
            }
            if (received < recvBytes && recvLink.hasMessage() &&
                (!overlap || (sentPieces > receivedPieces && sendLink.isSendComplete(firstSeq + receivedPieces))))
            {
                final int length = (int)Math.min(piece, recvBytes - received);
                if (recvLink.messageLength() != length)
                {
                    throw mismatch(recvLink, length);
                }
                final MemView inbox = recvLink.inbox();
                final long inOff = recvLink.messageOffset();
                if (COPY == mode)
                {
                    DataMover.copy(dst, dstOff + received, inbox, inOff, length);
                }
                else if (REDUCE_INCOMING_FIRST == mode)
                {
                    DataMover.reduce(type, op, dst, dstOff + received, inbox, inOff, other, otherOff + received,
                        length / type.sizeBytes());
                }
                else
                {
                    DataMover.reduce(type, op, dst, dstOff + received, other, otherOff + received, inbox, inOff,
                        length / type.sizeBytes());
                }
                recvLink.release();
                received += length;
                receivedPieces++;
                work++;
            }
            if (0 == work)
            {
                waiter.poll(received < recvBytes ? recvLink.peer() : sendLink.peer());
                waited = true;
            }
            else if (waited)
            {
                waited = false;
                waiter.progressed();
            }
        }
    }

    /**
     * Sends {@code bytes} in pieces.
     *
     * @param link   to whom.
     * @param src    source.
     * @param srcOff byte offset.
     * @param bytes  length.
     * @param type   element type (piece size).
     */
    public void sendAll(final PeerLink link, final MemView src, final long srcOff, final long bytes,
        final DataType type)
    {
        exchange(link, src, srcOff, bytes, null, null, 0, 0, COPY, type, null, null, 0, false);
    }

    /**
     * Receives {@code bytes} in pieces into {@code dst}.
     *
     * @param link   from whom.
     * @param dst    destination.
     * @param dstOff byte offset.
     * @param bytes  length.
     * @param type   element type (piece size).
     */
    public void recvAll(final PeerLink link, final MemView dst, final long dstOff, final long bytes,
        final DataType type)
    {
        exchange(null, null, 0, 0, link, dst, dstOff, bytes, COPY, type, null, null, 0, false);
    }

    /** Waits until no link has a send whose source is still in use (end of every operation). */
    public void awaitSendsComplete()
    {
        for (int peer = 0, n = links.size(); peer < n; peer++)
        {
            if (peer == links.rank())
            {
                continue;
            }
            final PeerLink link = links.link(peer);
            while (!link.allSendsComplete())
            {
                waiter.poll(peer);
            }
        }
    }

    private CollectiveException mismatch(final PeerLink link, final int expected)
    {
        if (PeerLink.LEAVE == link.messageLength())
        {
            return waiter.failure(CollectiveException.Reason.PEER_LEFT, link.peer(), "rank " + link.peer() +
                " left during " + waiter.opName() + " #" + waiter.opSeq() + ": it closed its communicator while " +
                "this rank was in that call (if its code threw, that rank's log says why)");
        }
        if (0 == link.messageLength() && expected > 0)
        {
            // The common case in real jobs: code on that rank threw, and try-with-resources ran close(), whose final
            // barrier sends empty messages.
            return waiter.failure(CollectiveException.Reason.MISMATCH, link.peer(), "rank " + link.peer() +
                " sent an empty message where " + expected + " bytes were expected: it is in a barrier, or it is " +
                "closing its communicator (close() runs a final barrier; a rank that closes because its code threw " +
                "should call abort() instead, and the others then fail with 'rank " + link.peer() + " aborted')");
        }
        return waiter.failure(CollectiveException.Reason.MISMATCH, link.peer(), "rank " + link.peer() +
            " sent a message of " + link.messageLength() + " bytes where " + expected + " were expected: the ranks " +
            "called different operations, counts, types or roots");
    }
}
