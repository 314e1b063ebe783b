// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.verbs4j.Access;
import io.verbs4j.Opcode;
import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.KeyTable;
import io.verbs4j.spi.WorkQueue;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler.Action;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * Served requests, all three ends: a WRITE, READ or atomic on a peer's registered (unshareable) buffer, which this
 * process cannot map, goes as request records ({@code TYPE_WRITE_REQUEST} with the payload cut into fragments,
 * {@code TYPE_READ_REQUEST} per staging-area chunk, {@code TYPE_ATOMIC_REQUEST}); the peer's receive side checks each
 * against its key table (key, protection domain, access, bounds) and carries it out, answering READs and atomics in
 * this side's staging area. The pump waits for the last record's acknowledgement before the next request (an implicit
 * fence, as for direct one-sided work); the acknowledgement completes the request.
 * <p>
 * Threading: the request half ({@link #start}, {@link #send}) runs in the pump under the send-side lock of
 * {@link ShmSender}, which owns the cursor ({@code servedPos}, {@code servedDone}); the acknowledgement half
 * ({@code *Acked}) runs in the device's progress and clears {@code servedWaitMsn}, the one field both sides touch
 * (volatile); the target half ({@link #onRequest}) runs in the peer's progress (a region being closed waits for it,
 * and so for the copy).
 */
final class ShmServedRequests
{
    private static final VarHandle SERVED_WAIT_MSN;
    private static final long NO_WAIT = -1;

    static
    {
        try
        {
            SERVED_WAIT_MSN = MethodHandles.lookup().findVarHandle(
                ShmServedRequests.class, "servedWaitMsn", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final ShmSender sender;
    private final ShmSendWindow window;
    private final WorkQueue sq;
    private final KeyTable keys;

    /** MSN of the served request whose acknowledgement the pump waits for, or NO_WAIT (set by send, cleared by
     *  receive side). */
    private volatile long servedWaitMsn = NO_WAIT;

    // Send side, owned by the holder of the send lock.
    private long servedPos = -1;
    private long servedDone;

    /**
     * @param sender stops the pump on a full ring, completes the requests.
     * @param window numbers and tracks the records.
     * @param sq     the send queue.
     * @param keys   this queue pair's protection domain's keys (the target side's checks).
     */
    ShmServedRequests(final ShmSender sender, final ShmSendWindow window, final WorkQueue sq, final KeyTable keys)
    {
        this.sender = sender;
        this.window = window;
        this.sq = sq;
        this.keys = keys;
    }

    // ---------------------------------------------------------------- request side (pump)

    /** No served request under way nor awaited (a new connection, or a replay from an earlier MSN). */
    void reset()
    {
        servedPos = -1;
        SERVED_WAIT_MSN.setVolatile(this, NO_WAIT);
    }

    /** @return true while a served request is being sent. */
    boolean isUnderWay()
    {
        return servedPos >= 0;
    }

    /** @return true while the pump waits for a served request's acknowledgement. */
    boolean isAwaitingAck()
    {
        return NO_WAIT != (long)SERVED_WAIT_MSN.getVolatile(this);
    }

    /** @return true if the request at {@code pos} is the served one under way. */
    boolean isServing(final long pos)
    {
        return servedPos == pos;
    }

    /** Starts serving the request at {@code pos}; see {@link #send}. */
    int start(final ShmConnection c, final long pos, final int opcode, final long length)
    {
        servedPos = pos;
        servedDone = 0;
        return send(c, pos, opcode, length);
    }

    /**
     * Sends the next request records of a served operation. Returns {@link ShmSender#SERVED} while records remain to
     * be sent or acknowledged (the pump stops; the acknowledgement or progress resumes it), SUCCESS once the data of
     * a WRITE_WITH_IMM is acknowledged (its notification follows); plain WRITE, READ and atomics are completed by
     * the acknowledgement ({@link ShmSender#processAcks}) instead.
     */
    int send(final ShmConnection c, final long pos, final int opcode, final long length)
    {
        if (NO_WAIT != (long)SERVED_WAIT_MSN.getVolatile(this))
        {
            sender.stopUntilAcked();
            return ShmSender.SERVED;
        }
        if (servedDone >= length)
        {
            servedPos = -1;
            return WcStatus.SUCCESS;
        }
        final WorkQueue sq = this.sq;
        final OneToOneRingBuffer ring = c.out;
        final AtomicBuffer buffer = ring.buffer();
        final long remote = sq.remoteAddress(pos);
        if (Opcode.RDMA_READ == opcode)
        {
            final int chunk = (int)Math.min(c.stagingLength, length - servedDone);
            final int index = ring.tryClaim(FrameDescriptor.TYPE_READ_REQUEST, FrameDescriptor.REQUEST_HEADER_LENGTH);
            if (index < 0)
            {
                sender.ringIsFull();
                return ShmSender.SERVED;
            }
            final long msn = window.putRequest(buffer, index, pos, 0, chunk, remote + servedDone, 0, 0, 0);
            window.track(msn, pos, ShmSendWindow.KIND_READ_CHUNK, servedDone);
            servedDone += chunk;
            SERVED_WAIT_MSN.setVolatile(this, msn);
            ring.commit(index);
        }
        else if (Opcode.isAtomic(opcode))
        {
            final int index = ring.tryClaim(FrameDescriptor.TYPE_ATOMIC_REQUEST, FrameDescriptor.REQUEST_HEADER_LENGTH);
            if (index < 0)
            {
                sender.ringIsFull();
                return ShmSender.SERVED;
            }
            final long msn = window.putRequest(
                buffer, index, pos, 0, 8, remote, opcode, sq.compareAdd(pos), sq.swap(pos));
            window.track(msn, pos, ShmSendWindow.KIND_ATOMIC, 0);
            servedDone = 8;
            SERVED_WAIT_MSN.setVolatile(this, msn);
            ring.commit(index);
        }
        else
        {
            final int maxPayload = ring.maxMsgLength() - FrameDescriptor.REQUEST_HEADER_LENGTH;
            while (servedDone < length)
            {
                final int fragment = (int)Math.min(maxPayload, length - servedDone);
                final int index = window.windowOpen() ? ring.tryClaim(
                    FrameDescriptor.TYPE_WRITE_REQUEST, FrameDescriptor.REQUEST_HEADER_LENGTH + fragment) : -1;
                if (index < 0)
                {
                    sender.ringIsFull();
                    return ShmSender.SERVED;
                }
                final boolean last = servedDone + fragment == length;
                final int flags = (0 == servedDone ? FrameDescriptor.FLAG_FIRST : 0) |
                    (last ? FrameDescriptor.FLAG_LAST : 0);
                final long msn = window.putRequest(
                    buffer, index, pos, flags, (int)length, remote + servedDone, 0, remote, 0);
                sq.gatherRange(pos, servedDone, fragment,
                    buffer.addressOffset() + index + FrameDescriptor.REQUEST_PAYLOAD_OFFSET);
                window.track(msn, pos, last ? ShmSendWindow.KIND_SERVED_WRITE : ShmSendWindow.KIND_NONE, 0);
                servedDone += fragment;
                if (last)
                {
                    SERVED_WAIT_MSN.setVolatile(this, msn);
                }
                ring.commit(index);
            }
        }
        sender.stopUntilAcked();
        return ShmSender.SERVED;
    }

    // ---------------------------------------------------------------- acknowledgement side (progress)

    /** The last fragment of a served WRITE is acknowledged: a plain WRITE completes (WRITE_WITH_IMM notifies). */
    void writeAcked(final long pos)
    {
        if (Opcode.RDMA_WRITE == sq.opcode(pos))
        {
            sender.completeSend(pos, WcStatus.SUCCESS, (int)sq.totalLength(pos));
        }
        SERVED_WAIT_MSN.setVolatile(this, NO_WAIT);
    }

    /** A chunk of a served READ is acknowledged, so it is in this side's staging area. */
    void readChunkAcked(final ShmConnection c, final long pos, final long offset)
    {
        readChunkArrived(c, pos, offset);
        SERVED_WAIT_MSN.setVolatile(this, NO_WAIT);
    }

    /** A served atomic is acknowledged: the target word's old value is in this side's staging area. */
    void atomicAcked(final ShmConnection c, final long pos)
    {
        final WorkQueue sq = this.sq;
        if (sq.isPending(pos))
        {
            if (ShmSges.allOpen(sq, pos))
            {
                UnsafeApi.putLong(sq.sgeRegion(pos, 0).memory().addressOf(sq.sgeOffset(pos, 0)),
                    UnsafeApi.getLong(c.localStagingAddress));
                sender.completeSend(pos, WcStatus.SUCCESS, 8);
            }
            else
            {
                sender.failSend(pos, WcStatus.LOC_PROT_ERR);
            }
        }
        SERVED_WAIT_MSN.setVolatile(this, NO_WAIT);
    }

    /** A chunk of a served READ is in this side's staging area: copy it into the READ's SGEs. */
    private void readChunkArrived(final ShmConnection c, final long pos, final long offset)
    {
        final WorkQueue sq = this.sq;
        if (!sq.isPending(pos))
        {
            return;
        }
        if (!ShmSges.allOpen(sq, pos))
        {
            sender.failSend(pos, WcStatus.LOC_PROT_ERR);
            return;
        }
        final long total = sq.totalLength(pos);
        final long chunk = Math.min(c.stagingLength, total - offset);
        sq.scatterRange(pos, offset, c.localStagingAddress, chunk);
        if (offset + chunk == total)
        {
            sender.completeSend(pos, WcStatus.SUCCESS, (int)total);
        }
    }

    // ---------------------------------------------------------------- target side (the peer's progress)

    /**
     * The target side of a served request on one of this side's regions: key (in this queue pair's protection
     * domain), access, then bounds; a failure answers REM_ACCESS_ERR with the memory untouched. Runs inside the
     * device's progress, so a region being closed waits for the copy.
     */
    Action onRequest(
        final ShmReceiver receiver,
        final ShmConnection c,
        final int type,
        final MutableDirectBuffer buffer,
        final int index,
        final int length,
        final long msn,
        final int messageLength)
    {
        if (length < FrameDescriptor.REQUEST_HEADER_LENGTH || messageLength < 0 ||
            (FrameDescriptor.TYPE_WRITE_REQUEST != type && FrameDescriptor.REQUEST_HEADER_LENGTH != length) ||
            (FrameDescriptor.TYPE_READ_REQUEST == type && (0 == messageLength || messageLength > c.stagingLength)))
        {
            return receiver.protocolError(c, type, length, "request of length " + messageLength);
        }
        final KeyTable keys = this.keys;
        final int rkey = buffer.getInt(index + FrameDescriptor.REQUEST_RKEY_OFFSET);
        final long address = buffer.getLong(index + FrameDescriptor.REQUEST_ADDRESS_OFFSET);
        if (FrameDescriptor.TYPE_WRITE_REQUEST == type)
        {
            final int fragment = length - FrameDescriptor.REQUEST_HEADER_LENGTH;
            final boolean first = 0 != (buffer.getShort(index + FrameDescriptor.FLAGS_OFFSET) &
                FrameDescriptor.FLAG_FIRST);
            final AbstractMemoryRegion region = keys.verifyRemote(rkey, address, fragment, Access.REMOTE_WRITE);
            if (null == region || (first && null == keys.verifyRemote(rkey,
                buffer.getLong(index + FrameDescriptor.REQUEST_COMPARE_ADD_OFFSET), messageLength,
                    Access.REMOTE_WRITE)))
            {
                return receiver.refuseRemote(c, msn);
            }
            region.memory().copyFrom(buffer.addressOffset() + index + FrameDescriptor.REQUEST_PAYLOAD_OFFSET,
                address - region.address(), fragment);
        }
        else if (FrameDescriptor.TYPE_READ_REQUEST == type)
        {
            final AbstractMemoryRegion region = keys.verifyRemote(rkey, address, messageLength, Access.REMOTE_READ);
            if (null == region)
            {
                return receiver.refuseRemote(c, msn);
            }
            region.memory().copyTo(address - region.address(), c.peerStagingAddress, messageLength);
        }
        else
        {
            final int opcode = buffer.getInt(index + FrameDescriptor.REQUEST_OPCODE_OFFSET);
            if (!Opcode.isAtomic(opcode))
            {
                return receiver.protocolError(c, type, length, "atomic opcode " + opcode);
            }
            final AbstractMemoryRegion region = keys.verifyRemote(rkey, address, 8, Access.REMOTE_ATOMIC);
            final long target = null == region ? 0 : region.memory().addressOf(address - region.address());
            if (null == region || 0 != (target & 7))
            {
                return receiver.refuseRemote(c, msn);
            }
            final long operand = buffer.getLong(index + FrameDescriptor.REQUEST_COMPARE_ADD_OFFSET);
            final long old = Opcode.ATOMIC_FETCH_AND_ADD == opcode ?
                UnsafeApi.getAndAddLong(null, target, operand) :
                UnsafeApi.compareAndExchangeLong(null, target, operand,
                    buffer.getLong(index + FrameDescriptor.REQUEST_SWAP_OFFSET));
            UnsafeApi.putLong(c.peerStagingAddress, old);
        }
        receiver.accepted(msn);
        return Action.CONTINUE;
    }
}
