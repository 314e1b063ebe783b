// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import io.verbs4j.RemoteMemory;
import org.agrona.UnsafeApi;

/**
 * {@link PeerLink} through direct peer memory (NCCL's LL idea, Open MPI xhc's flags): the sender stores the payload
 * into its area of the peer's flag region and then the slot's sequence-numbered flag with a release-store; the
 * receiver polls the flag in its own memory with an acquire-load. No work request, no completion, no immediate data
 * and no credit message on the critical path: the receiver hands slots back by storing its consumed count into the
 * sender's region, which the sender reads only when it runs out of slots. Layout in {@link FlagSlotLayout}.
 * <p>
 * A send is complete when {@link #trySend} returns (the bytes were copied into the peer's memory). Failure comes from
 * the verbs link to the same peer (its queue pair going to ERROR) or from the peer-memory view turning invalid,
 * both noticed by {@link FlagLinks#scan()}. Single-threaded, allocation-free.
 */
public final class FlagPeerLink implements PeerLink
{
    private static final int WORD_COPY_LIMIT = 256;

    private final int peer;
    private final FlagSlotLayout layout;
    private final PeerLink verbs;
    private final RemoteMemory remote;
    private final MemView inbox;
    private final long inboxAreaOffset;
    private final long inArea;
    private final long outArea;
    private final long creditIn;
    private final long creditOut;
    private final long heartbeatIn;
    private final long heartbeatOut;
    private final int slots;

    private long sendSeq;
    private long peerConsumed;
    private long recvSeq;
    private boolean failed;

    /**
     * @param peer       the peer's rank.
     * @param layout     the slot layout both sides use.
     * @param verbs      the verbs link to the same peer (for failure).
     * @param remote     view of this rank's area in the peer's flag region.
     * @param inbox      this rank's flag region.
     * @param localBase  native address of this rank's flag region (contiguous).
     */
    public FlagPeerLink(final int peer, final FlagSlotLayout layout, final PeerLink verbs, final RemoteMemory remote,
        final MemView inbox, final long localBase)
    {
        this.peer = peer;
        this.layout = layout;
        this.verbs = verbs;
        this.remote = remote;
        this.inbox = inbox;
        this.slots = layout.slots();
        this.inboxAreaOffset = layout.areaOffset(peer);
        this.inArea = localBase + inboxAreaOffset;
        this.outArea = remote.buffer().addressOffset();
        this.creditIn = inArea + layout.creditOffset() + FlagSlotLayout.CONSUMED_OFFSET;
        this.creditOut = outArea + layout.creditOffset() + FlagSlotLayout.CONSUMED_OFFSET;
        this.heartbeatIn = inArea + layout.creditOffset() + FlagSlotLayout.HEARTBEAT_OFFSET;
        this.heartbeatOut = outArea + layout.creditOffset() + FlagSlotLayout.HEARTBEAT_OFFSET;
    }

    /**
     * Shows the peer that this rank is alive: stores {@code beat} in this rank's area of the peer's region (this rank
     * is its only writer). The view stays mapped even if the peer is gone, so the store is always safe.
     *
     * @param beat the new heartbeat value.
     */
    void beat(final long beat)
    {
        UnsafeApi.putLongRelease(null, heartbeatOut, beat);
    }

    /** @return the peer's heartbeat, as it last stored it in its area of this rank's region. */
    long peerHeartbeat()
    {
        return UnsafeApi.getLongAcquire(null, heartbeatIn);
    }

    /** {@inheritDoc} */
    public int peer()
    {
        return peer;
    }

    /** {@inheritDoc} */
    public int slotBytes()
    {
        return layout.slotBytes();
    }

    /** {@inheritDoc} */
    public boolean trySend(final MemView source, final long offset, final int length)
    {
        if (failed)
        {
            return false;
        }
        final long seq = sendSeq;
        if (seq - peerConsumed >= slots)
        {
            peerConsumed = UnsafeApi.getLongAcquire(null, creditIn);
            if (seq - peerConsumed >= slots)
            {
                return false;
            }
        }
        final long slot = outArea + layout.slotOffset(seq);
        if (length > 0)
        {
            copy(source, offset, slot + FlagSlotLayout.PAYLOAD_OFFSET, length);
        }
        UnsafeApi.putInt(slot + FlagSlotLayout.LENGTH_OFFSET, length);
        UnsafeApi.putLongRelease(null, slot + FlagSlotLayout.FLAG_OFFSET, seq + 1);
        sendSeq = seq + 1;
        return true;
    }

    /** {@inheritDoc} */
    public long lastSendSeq()
    {
        return sendSeq - 1;
    }

    /** {@inheritDoc} */
    public boolean isSendComplete(final long seq)
    {
        return true;
    }

    /** {@inheritDoc} */
    public boolean allSendsComplete()
    {
        return true;
    }

    /** {@inheritDoc} */
    public boolean hasMessage()
    {
        return UnsafeApi.getLongAcquire(null, inArea + layout.slotOffset(recvSeq) + FlagSlotLayout.FLAG_OFFSET) ==
            recvSeq + 1;
    }

    /** {@inheritDoc} */
    public MemView inbox()
    {
        return inbox;
    }

    /** {@inheritDoc} */
    public long messageOffset()
    {
        return inboxAreaOffset + layout.slotOffset(recvSeq) + FlagSlotLayout.PAYLOAD_OFFSET;
    }

    /** {@inheritDoc} */
    public int messageLength()
    {
        return UnsafeApi.getInt(inArea + layout.slotOffset(recvSeq) + FlagSlotLayout.LENGTH_OFFSET);
    }

    /** {@inheritDoc} */
    public void release()
    {
        recvSeq++;
        // Release: the reads of the payload happen before the sender may reuse the slot.
        UnsafeApi.putLongRelease(null, creditOut, recvSeq);
    }

    /** {@inheritDoc} */
    public boolean isFailed()
    {
        return failed || verbs.isFailed();
    }

    /** @return true while the peer-memory view is usable (one volatile load; housekeeping rate). */
    boolean peerMemoryValid()
    {
        return remote.isValid();
    }

    /** Stops sending (the communicator failed or closes). */
    void fail()
    {
        failed = true;
    }

    /** Releases the view (its mapping goes once unreachable). */
    void close()
    {
        failed = true;
        remote.close();
    }

    private static void copy(final MemView source, final long offset, final long target, final int length)
    {
        if (length <= WORD_COPY_LIMIT && 0 == (length & 7) && source.contiguousBytes(offset) >= length)
        {
            // Small payloads: word stores beat a copyMemory call, and keep the first words in the flag's line.
            final long from = source.nativeAddress(offset);
            for (int i = 0; i < length; i += 8)
            {
                UnsafeApi.putLong(target + i, UnsafeApi.getLong(from + i));
            }
            return;
        }
        long done = 0;
        while (done < length)
        {
            final long run = Math.min(length - done, source.contiguousBytes(offset + done));
            UnsafeApi.copyMemory(source.nativeAddress(offset + done), target + done, run);
            done += run;
        }
    }
}
