// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.agrona.UnsafeApi;

/**
 * {@link PeerLink} over one RC queue pair.
 * <p>
 * Protocol (layouts in {@link ImmediateData} and {@link Handshake}):
 * <ol>
 *   <li>Each side owns an <em>inbox</em> region of {@code slots × slotBytes} bytes (REMOTE_WRITE) whose address and
 *       rkey it gave the peer in the handshake, and keeps {@code 2 × slots + 2} zero-length receives posted.</li>
 *   <li>Message {@code seq} goes into the peer's slot {@code seq mod slots} with one RDMA_WRITE_WITH_IMM whose
 *       immediate says DATA, {@code seq mod 64} and the length. Payloads up to the device's inline limit go INLINE
 *       (copied at post, no completion needed); larger ones are written straight from the source region (signaled:
 *       the source is busy until the completion) or, if the source is not registered in this link's protection
 *       domain, copied first into a staging slot.</li>
 *   <li>The sender starts with {@code slots} credits and spends one per message. The receiver reads a message in
 *       place, then releases it; the freed slots ride on its next DATA message to that peer (kind DATA_CREDIT, when
 *       the payload is below 512 KiB), and once {@code max(1, slots/2)} are pending with no message to carry them
 *       it sends one 0-byte WRITE_WITH_IMM of kind CREDIT carrying the count. Batching never deadlocks because the
 *       batch is at most {@code slots}.</li>
 *   <li>Unsignaled posts are bounded: every 16th post is signaled so that send-queue slots are recycled.</li>
 *   <li>Any error completion, or the queue pair found in ERROR, fails the link and with it the communicator.</li>
 * </ol>
 * Steady state allocates nothing: one reusable request of each kind.
 */
public final class VerbsPeerLink implements PeerLink
{
    /** wrId of receives. */
    public static final long RECV_WR_ID = Long.MIN_VALUE;
    /** wrId of credit messages. */
    public static final long CREDIT_WR_ID = -1;
    /** Every this many posts one is signaled. */
    public static final int SIGNAL_INTERVAL = 16;
    private static final int TRACK_MASK = 1023;

    private final VerbsLinks owner;
    private final int peer;
    private final ProtectionDomain pd;
    private final QueuePair qp;
    private final MemoryRegion inboxRegion;
    private final MemoryRegion stagingRegion;
    private final MemView inbox = new MemView();
    private final int slots;
    private final int slotBytes;
    private final int maxInline;
    private final int creditBatch;
    private final SendRequest data = new SendRequest(1);
    private final SendRequest credit = new SendRequest(1);
    private boolean noticePending;
    private boolean noticeDelivered;
    private final RecvRequest recv = new RecvRequest(1);
    private final boolean[] tracked = new boolean[TRACK_MASK + 1];
    private final int[] lengths;

    private long remoteInbox;
    private int remoteRkey;

    private long sendSeq;
    private int credits;
    private long completedSeq = -1;
    private long lastTrackedSeq = -1;
    private long postCount;

    private long arrivedSeq;
    private long consumedSeq;
    private int pendingCredits;

    private boolean failed;

    /**
     * Creates the link's memory and queue pair (in RESET); connect with {@link #prepare()} and {@link #connected}.
     *
     * @param owner     the link set (told about failures).
     * @param peer      the peer's rank.
     * @param pd        protection domain of the link's device.
     * @param qp        the queue pair.
     * @param slots     inbox slots.
     * @param slotBytes bytes per slot.
     * @param maxInline inline limit of the queue pair.
     */
    public VerbsPeerLink(final VerbsLinks owner, final int peer, final ProtectionDomain pd, final QueuePair qp,
        final int slots, final int slotBytes, final int maxInline)
    {
        this.owner = owner;
        this.peer = peer;
        this.pd = pd;
        this.qp = qp;
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.maxInline = maxInline;
        this.creditBatch = Math.max(1, slots / 2);
        this.credits = slots;
        this.lengths = new int[slots];
        final long bytes = (long)slots * slotBytes;
        this.inboxRegion = pd.allocate(bytes, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        this.stagingRegion = pd.allocate(bytes, Access.LOCAL_WRITE);
        inbox.wrapRegion(inboxRegion, 0, bytes);
        recv.wrId(RECV_WR_ID);
        credit.opcode(Opcode.RDMA_WRITE_WITH_IMM).wrId(CREDIT_WR_ID);
        data.opcode(Opcode.RDMA_WRITE_WITH_IMM);
    }

    /**
     * @param slots inbox slots of the link.
     * @return receives kept posted.
     */
    public static int recvDepth(final int slots)
    {
        return 2 * slots + 2;
    }

    /** Moves the queue pair to INIT and posts the receives (before connecting, so no write finds none). */
    public void prepare()
    {
        qp.modify(QpState.INIT);
        for (int i = 0, n = recvDepth(slots); i < n; i++)
        {
            final int rc = qp.postRecv(recv);
            if (QueuePair.OK != rc)
            {
                throw new IllegalStateException("posting receive to rank " + peer + ": " + QueuePair.describe(rc));
            }
        }
    }

    /**
     * @param peerHandshake what the peer sent.
     */
    public void connected(final Handshake peerHandshake)
    {
        this.remoteInbox = peerHandshake.address;
        this.remoteRkey = peerHandshake.rkey;
        credit.remote(remoteInbox, remoteRkey);
    }

    /**
     * @param rank   this rank.
     * @param size   the communicator size.
     * @param commId communicator id.
     * @return the handshake to send the peer.
     */
    public Handshake handshake(final int rank, final int size, final long commId)
    {
        return new Handshake(rank, size, slots, slotBytes, inboxRegion.rkey(), inboxRegion.address(), commId);
    }

    /** @return the protection domain of the link's queue pair and memory. */
    public ProtectionDomain pd()
    {
        return pd;
    }

    /** @return the queue pair. */
    public QueuePair queuePair()
    {
        return qp;
    }

    /** {@inheritDoc} */
    public int peer()
    {
        return peer;
    }

    /** {@inheritDoc} */
    public int slotBytes()
    {
        return slotBytes;
    }

    /** {@inheritDoc} */
    public boolean trySend(final MemView source, final long offset, final int length)
    {
        if (failed || 0 == credits || qp.sendQueueFree() <= 0)
        {
            return false;
        }
        final long seq = sendSeq;
        final long slotOffset = (seq % slots) * (long)slotBytes;
        final boolean inline = length > 0 && length <= maxInline;
        data.clearSges();
        if (length > 0)
        {
            if (source.registeredIn(pd))
            {
                data.sge(source.iova(offset), length, source.lkey());
            }
            else
            {
                // The previous user of this staging slot was message seq - slots, consumed by the peer already
                // (we hold a credit), so its bytes were read.
                copyToStaging(source, offset, slotOffset, length);
                data.sge(stagingRegion.address() + slotOffset, length, stagingRegion.lkey());
            }
        }
        final boolean track = length > maxInline;
        final boolean signaled = track || 0 == (postCount % SIGNAL_INTERVAL);
        // Freed slots ride on the message where they fit, saving the peer a CREDIT message (and tcp a frame).
        final int returned = ImmediateData.creditsToCarry(length, pendingCredits);
        data.wrId(seq)
            .flags((signaled ? SendRequest.SIGNALED : 0) | (inline ? SendRequest.INLINE : 0))
            .remote(remoteInbox + slotOffset, remoteRkey)
            .immediateData(returned > 0 ? ImmediateData.dataWithCredits(seq, length, returned) :
                ImmediateData.data(seq, length < 0 ? ImmediateData.LEAVE_LENGTH : length));
        final int rc = qp.postSend(data);
        if (QueuePair.OK == rc)
        {
            pendingCredits -= returned;
            credits--;
            postCount++;
            tracked[(int)(seq & TRACK_MASK)] = track;
            if (track)
            {
                lastTrackedSeq = seq;
            }
            sendSeq = seq + 1;
            return true;
        }
        if (QueuePair.BACK_PRESSURED != rc)
        {
            fail("postSend refused: " + QueuePair.describe(rc));
        }
        return false;
    }

    private void copyToStaging(final MemView source, final long offset, final long slotOffset, final int length)
    {
        final long staging = stagingRegion.address() + slotOffset;
        long done = 0;
        while (done < length)
        {
            final long n = Math.min(length - done, source.contiguousBytes(offset + done));
            UnsafeApi.copyMemory(source.nativeAddress(offset + done), staging + done, n);
            done += n;
        }
    }

    /** {@inheritDoc} */
    public long lastSendSeq()
    {
        return sendSeq - 1;
    }

    /** {@inheritDoc} */
    public boolean isSendComplete(final long seq)
    {
        return seq <= completedSeq || (sendSeq - seq <= TRACK_MASK && !tracked[(int)(seq & TRACK_MASK)]);
    }

    /** {@inheritDoc} */
    public boolean allSendsComplete()
    {
        return completedSeq >= lastTrackedSeq;
    }

    /** {@inheritDoc} */
    public boolean hasMessage()
    {
        return consumedSeq < arrivedSeq;
    }

    /** {@inheritDoc} */
    public MemView inbox()
    {
        return inbox;
    }

    /** {@inheritDoc} */
    public long messageOffset()
    {
        return (consumedSeq % slots) * (long)slotBytes;
    }

    /** {@inheritDoc} */
    public int messageLength()
    {
        return lengths[(int)(consumedSeq % slots)];
    }

    /** {@inheritDoc} */
    public void release()
    {
        consumedSeq++;
        pendingCredits++;
        if (pendingCredits >= creditBatch)
        {
            flushCredits();
        }
    }

    /** {@inheritDoc} */
    public boolean isFailed()
    {
        return failed;
    }

    /** @return 1 if it returned credits that an earlier attempt could not. */
    int doWork()
    {
        return pendingCredits >= creditBatch ? flushCredits() : 0;
    }

    private int flushCredits()
    {
        if (failed || qp.sendQueueFree() <= 0)
        {
            return 0;
        }
        final boolean signaled = 0 == (postCount % SIGNAL_INTERVAL);
        credit.flags(signaled ? SendRequest.SIGNALED : 0).immediateData(ImmediateData.credit(pendingCredits));
        final int rc = qp.postSend(credit);
        if (QueuePair.OK == rc)
        {
            pendingCredits = 0;
            postCount++;
            return 1;
        }
        if (QueuePair.BACK_PRESSURED != rc)
        {
            fail("postSend of credits refused: " + QueuePair.describe(rc));
        }
        return 0;
    }

    /** Handles a send-queue completion. */
    void onSendCompletion(final long wrId, final int status)
    {
        if (CREDIT_WR_ID == wrId)
        {
            // only the abort notice is signaled among the credit messages
            noticePending = false;
            noticeDelivered = WcStatus.SUCCESS == status;
        }
        if (WcStatus.SUCCESS != status)
        {
            fail("send completed with " + WcStatus.name(status));
            return;
        }
        if (wrId > completedSeq)
        {
            completedSeq = wrId;
        }
    }

    /** Handles a receive completion. */
    void onRecvCompletion(final int status, final int imm)
    {
        if (WcStatus.SUCCESS != status)
        {
            fail("receive completed with " + WcStatus.name(status));
            return;
        }
        final int rc = qp.postRecv(recv);
        if (QueuePair.OK != rc)
        {
            fail("re-posting a receive refused: " + QueuePair.describe(rc));
            return;
        }
        final int kind = ImmediateData.kind(imm);
        if (ImmediateData.KIND_ABORT == kind)
        {
            final int culprit = ImmediateData.value(imm) - 1;
            failed = true;
            if (culprit < 0 || culprit == peer)
            {
                owner.onLinkFailure(peer, "rank " + peer + " aborted the communicator");
            }
            else if (culprit == owner.rank())
            {
                owner.onLinkFailure(peer, "rank " + peer + " gave up waiting for this rank and aborted");
            }
            else
            {
                owner.onLinkFailure(culprit, "rank " + peer + " reported that rank " + culprit + " failed");
            }
            return;
        }
        if (ImmediateData.isData(kind))
        {
            if (ImmediateData.slot(imm) != (int)(arrivedSeq & ImmediateData.SLOT_MASK))
            {
                fail("protocol error: message " + arrivedSeq + " arrived with slot tag " + ImmediateData.slot(imm));
                return;
            }
            final int value = ImmediateData.dataLength(imm);
            lengths[(int)(arrivedSeq % slots)] = ImmediateData.LEAVE_LENGTH == value ? PeerLink.LEAVE : value;
            arrivedSeq++;
        }
        credits += ImmediateData.credits(imm);
    }

    /** Fails the link if its queue pair is in ERROR. */
    void scan()
    {
        if (!failed && QpState.ERROR == qp.state())
        {
            fail("queue pair went to ERROR (peer died, hung past the peer timeout, or disconnected)");
        }
    }

    /**
     * Fails the link.
     *
     * @param reason why.
     */
    void fail(final String reason)
    {
        if (!failed)
        {
            failed = true;
            owner.onLinkFailure(peer, reason);
        }
    }

    /**
     * Posts a failure notice (best effort).
     *
     * @param culprit the rank blamed, or -1.
     * @return true if posted.
     */
    boolean postAbortNotice(final int culprit)
    {
        if (failed || qp.sendQueueFree() <= 0)
        {
            return false;
        }
        credit.flags(SendRequest.SIGNALED).immediateData(ImmediateData.abort(culprit));
        noticePending = QueuePair.OK == qp.postSend(credit);
        return noticePending;
    }

    /** @return whether the peer acknowledged the abort notice (it fails at once; the connection need not close). */
    boolean noticeDelivered()
    {
        return noticeDelivered;
    }

    /** @return whether an abort notice was posted and has neither completed nor failed yet. */
    boolean noticePending()
    {
        return noticePending && !failed;
    }

    /** Closes the queue pair (the peer's goes to ERROR). */
    void closeQueuePair()
    {
        failed = true;
        try
        {
            qp.close();
        }
        catch (final RuntimeException ignore)
        {
            // already closed or its device is gone
        }
    }

    /** Releases the queue pair and the regions. */
    void close()
    {
        closeQueuePair();
        inboxRegion.close();
        stagingRegion.close();
    }
}
