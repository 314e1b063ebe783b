// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.spi.WorkQueue;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * Large-message pull (rendezvous), both ends: a SEND above the eager limit whose SGEs all lie in shared regions goes
 * as one {@code TYPE_SEND_RENDEZVOUS} record listing its sources (rkey, offset, length per SGE); the receiver checks
 * each source against the sender's published region table and copies the payload once, straight from the sender's
 * mapped regions into the receive. The request completes when the peer acknowledges the record, so the sources stay
 * valid while they are read.
 * <p>
 * Threading: {@link #sendSources} runs in the pump under the send-side lock of {@link ShmSender}; {@link #pull} runs
 * in the device's progress ({@link ShmReceiver}). It keeps no state of its own.
 */
final class ShmRendezvousPull
{
    private final ShmSender sender;
    private final ShmSendWindow window;
    private final WorkQueue sq;
    private final WorkQueue rq;

    /**
     * @param sender stops the pump on a full ring.
     * @param window numbers and tracks the records.
     * @param sq     the send queue (sources).
     * @param rq     the receive queue (destinations).
     */
    ShmRendezvousPull(final ShmSender sender, final ShmSendWindow window, final WorkQueue sq, final WorkQueue rq)
    {
        this.sender = sender;
        this.window = window;
        this.sq = sq;
        this.rq = rq;
    }

    /**
     * Writes the record listing the sources of the SEND at {@code pos}.
     *
     * @return false if the ring is full.
     */
    boolean sendSources(final ShmConnection c, final long pos, final int opcode, final long total, final int count)
    {
        final int index = sender.claim(c, FrameDescriptor.TYPE_SEND_RENDEZVOUS,
            FrameDescriptor.HEADER_LENGTH + count * FrameDescriptor.SOURCE_LENGTH);
        if (index < 0)
        {
            return false;
        }
        final OneToOneRingBuffer ring = c.out;
        final AtomicBuffer buffer = ring.buffer();
        final long msn = window.putMessageHeader(buffer, index, pos, opcode, total);
        buffer.putInt(index + FrameDescriptor.SOURCE_COUNT_OFFSET, count);
        ShmSges.putSources(sq, pos, count, buffer, index + FrameDescriptor.PAYLOAD_OFFSET);
        window.track(msn, pos, ShmSendWindow.KIND_COMPLETE, 0);
        ring.commit(index);
        return true;
    }

    /**
     * Copies the sources listed in a rendezvous record into the receive at {@code pos}, after checking each against
     * the peer's region table (shared, in bounds) and their sum against the message length.
     *
     * @return {@link WcStatus#SUCCESS}, {@link WcStatus#LOC_LEN_ERR} if the receive is shorter, or
     *         {@link WcStatus#LOC_ACCESS_ERR} if a source fails a check (nothing copied from it).
     */
    int pull(
        final ShmConnection c,
        final long pos,
        final MutableDirectBuffer buffer,
        final int sourcesIndex,
        final int count,
        final int messageLength)
    {
        final WorkQueue rq = this.rq;
        if (messageLength > rq.totalLength(pos))
        {
            return WcStatus.LOC_LEN_ERR;
        }
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            total += buffer.getLong(sourcesIndex + i * FrameDescriptor.SOURCE_LENGTH +
                FrameDescriptor.SOURCE_LENGTH_OFFSET);
        }
        if (total != messageLength)
        {
            return WcStatus.LOC_ACCESS_ERR;
        }
        long done = 0;
        for (int i = 0; i < count; i++)
        {
            final int at = sourcesIndex + i * FrameDescriptor.SOURCE_LENGTH;
            final int rkey = buffer.getInt(at + FrameDescriptor.SOURCE_RKEY_OFFSET);
            final long offset = buffer.getLong(at + FrameDescriptor.SOURCE_OFFSET_OFFSET);
            final long length = buffer.getLong(at + FrameDescriptor.SOURCE_LENGTH_OFFSET);
            final ShmPeer.Region region = c.peer.region(rkey);
            if (null == region || !region.isShared() || length < 0 || offset < 0 || offset > region.length - length)
            {
                return WcStatus.LOC_ACCESS_ERR;
            }
            rq.scatterRange(pos, done, region.memory, offset, length);
            done += length;
        }
        return WcStatus.SUCCESS;
    }
}
