// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.Access;
import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.DirectExecutor;
import io.verbs4j.spi.RegionMemory;
import io.verbs4j.spi.WorkQueue;
import org.agrona.UnsafeApi;

/**
 * Direct RMA: RDMA WRITE, RDMA READ and the two atomics on a peer region this process has mapped, carried out by
 * the posting thread inside {@code postSend} (see {@link io.verbs4j.spi.DirectSend}): the target-side checks from
 * the peer's published region table (key still valid, protection domain, access bits, bounds), then one copy or one
 * CPU atomic. No ring record, no work-queue record, no staged copy of an inline payload (it is copied from the
 * caller's memory before {@code postSend} returns, which is what INLINE promises).
 * <p>
 * It runs under the queue pair's send-side try-lock ({@link ShmSender#tryLockIdleSendSide}), which region close
 * and the retirement of a peer's mapping wait for, and only while the send side is idle (nothing ahead of it to
 * transmit or replay); it refuses, touching nothing, whatever it cannot finish successfully: WRITE_WITH_IMM (needs
 * a ring record), a peer's registered (unmappable) buffer (served by the peer), a region closed meanwhile, any
 * failed check. Those take the ordinary path, which reports the errors in order.
 * <p>
 * The target-side checks ({@link #targetOffset}) and the atomic ({@link #atomic}) are shared with the pump, which
 * carries out the same operations in posting order when the send side is not idle.
 * <p>
 * Threading: the queue pair's posting thread only (one poster per send queue, as every post).
 */
final class ShmDirectRma implements DirectExecutor
{
    private final ShmSender sender;

    /**
     * @param sender the send side whose lock, cursor, counters and peer-region cache the direct path shares.
     */
    ShmDirectRma(final ShmSender sender)
    {
        this.sender = sender;
    }

    /** {@inheritDoc} WRITE, READ and the atomics; never a SEND or a WRITE with immediate (they need the ring). */
    public boolean mayExecute(final int opcode)
    {
        return Opcode.RDMA_WRITE == opcode || Opcode.RDMA_READ == opcode || Opcode.isAtomic(opcode);
    }

    /** {@inheritDoc} */
    public long execute(
        final long pos, final SendRequest request, final AbstractMemoryRegion[] regions, final long[] offsets)
    {
        final int opcode = request.opcode();
        if (!mayExecute(opcode))
        {
            return NOT_DIRECT;
        }
        final ShmConnection c = sender.tryLockIdleSendSide(pos);
        if (null == c)
        {
            return NOT_DIRECT;
        }
        long bytes = NOT_DIRECT;
        try
        {
            bytes = carryOut(c, opcode, request, regions, offsets);
            if (NOT_DIRECT != bytes)
            {
                sender.countRequest(opcode, bytes);
            }
        }
        finally
        {
            sender.unlockSendSide(pos, NOT_DIRECT != bytes);
        }
        return bytes;
    }

    private long carryOut(
        final ShmConnection c,
        final int opcode,
        final SendRequest request,
        final AbstractMemoryRegion[] regions,
        final long[] offsets)
    {
        final int count = request.sgeCount();
        long length = 0;
        for (int i = 0; i < count; i++)
        {
            if (!regions[i].isOpen())
            {
                return NOT_DIRECT;
            }
            length += request.sgeLength(i);
        }
        if (0 == length)
        {
            return 0;
        }
        final ShmPeer.Region region = sender.peerRegion(c, request.rkey());
        if (null == region || !region.isShared())
        {
            return NOT_DIRECT;
        }
        final long offset = targetOffset(c, region, requiredAccess(opcode),
            request.remoteAddress(), length);
        if (offset < 0)
        {
            return NOT_DIRECT;
        }
        final RegionMemory memory = region.memory;
        switch (opcode)
        {
            case Opcode.RDMA_WRITE:
                ShmSges.copy(request, regions, offsets, memory, offset, true);
                return length;

            case Opcode.RDMA_READ:
                ShmSges.copy(request, regions, offsets, memory, offset, false);
                return length;

            default:
            {
                final long old = atomic(opcode, memory, offset, request.compareAdd(), request.swap());
                UnsafeApi.putLong(regions[0].memory().addressOf(offsets[0]), old);
                return Long.BYTES;
            }
        }
    }

    /**
     * The pump's twin of {@link #execute}: WRITE, READ or an atomic from a work-queue slot on a mapped peer region,
     * for a request that could not go direct (something was ahead of it). The target memory is untouched unless every
     * check of {@link #targetOffset} passes.
     *
     * @param region the peer's region the rkey names (null if none).
     * @param length the request's length (8 for an atomic), not 0.
     * @return {@link WcStatus#SUCCESS}, {@link WcStatus#REM_ACCESS_ERR} if a check fails, or a READ's
     *         {@link WcStatus#LOC_LEN_ERR}.
     */
    static int carryOutQueued(
        final ShmConnection c,
        final ShmPeer.Region region,
        final WorkQueue sq,
        final long pos,
        final int opcode,
        final long length)
    {
        final long offset = targetOffset(c, region, requiredAccess(opcode), sq.remoteAddress(pos), length);
        if (offset < 0)
        {
            return WcStatus.REM_ACCESS_ERR;
        }
        final RegionMemory memory = region.memory;
        switch (opcode)
        {
            case Opcode.RDMA_WRITE:
            case Opcode.RDMA_WRITE_WITH_IMM:
                sq.gatherTo(pos, memory, offset);
                return WcStatus.SUCCESS;

            case Opcode.RDMA_READ:
                return sq.scatterFrom(pos, memory, offset, length);

            case Opcode.ATOMIC_FETCH_AND_ADD:
            case Opcode.ATOMIC_CMP_AND_SWP:
                putAtomicResult(sq, pos, atomic(opcode, memory, offset, sq.compareAdd(pos), sq.swap(pos)));
                return WcStatus.SUCCESS;

            default:
                return WcStatus.GENERAL_ERR;
        }
    }

    private static void putAtomicResult(final WorkQueue sq, final long pos, final long old)
    {
        UnsafeApi.putLong(sq.sgeRegion(pos, 0).memory().addressOf(sq.sgeOffset(pos, 0)), old);
    }

    /**
     * @param opcode WRITE (with or without immediate), READ or an atomic.
     * @return the access bit the target region must grant it.
     */
    static int requiredAccess(final int opcode)
    {
        return Opcode.isAtomic(opcode) ? Access.REMOTE_ATOMIC :
            Opcode.RDMA_READ == opcode ? Access.REMOTE_READ : Access.REMOTE_WRITE;
    }

    /**
     * The target-side checks of a one-sided request, from the peer's published region table, shared by the pump
     * ({@link ShmSender}) and the direct path: the key names a region of the peer's protection domain paired with this
     * connection, the region grants {@code required}, and {@code [remoteAddress, remoteAddress + length)} lies in it.
     *
     * @return the offset of {@code remoteAddress} in the region, or -1 if a check fails.
     */
    static long targetOffset(
        final ShmConnection c, final ShmPeer.Region region, final int required, final long remoteAddress,
        final long length)
    {
        if (null == region || region.pdId != c.peerPdId || required != (region.access & required))
        {
            return -1;
        }
        final long offset = remoteAddress - region.address;
        return offset < 0 || offset > region.length - length ? -1 : offset;
    }

    /**
     * Carries out an atomic on the target word.
     *
     * @return the word's value before.
     */
    static long atomic(
        final int opcode, final RegionMemory memory, final long offset, final long compareAdd, final long swap)
    {
        return Opcode.ATOMIC_FETCH_AND_ADD == opcode ?
            UnsafeApi.getAndAddLong(null, memory.addressOf(offset), compareAdd) :
            UnsafeApi.compareAndExchangeLong(null, memory.addressOf(offset), compareAdd, swap);
    }
}
