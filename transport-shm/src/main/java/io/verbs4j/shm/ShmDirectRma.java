// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.DirectExecutor;
import io.verbs4j.spi.RegionMemory;
import org.agrona.UnsafeApi;

/**
 * Direct RMA: RDMA WRITE, RDMA READ and the two atomics on a peer region this process has mapped, carried out by
 * the posting thread inside {@code postSend} (see {@link io.verbs4j.spi.DirectSend}): the target-side checks from
 * the peer's published region table (key still valid, protection domain, access bits, bounds), then one copy or one
 * CPU atomic. No ring record, no work-queue record, no staged copy of an inline payload (it is copied from the
 * caller's memory before {@code postSend} returns, which is what INLINE promises).
 * <p>
 * It runs under the queue pair's send-side try-lock, which region close and the retirement of a peer's mapping wait
 * for, and only while the send side is idle (nothing ahead of it to transmit or replay); it refuses, touching
 * nothing, whatever it cannot finish successfully: WRITE_WITH_IMM (needs a ring record), a peer's registered
 * (unmappable) buffer (served by the peer), a region closed meanwhile, any failed check. Those take the ordinary
 * path, which reports the errors in order.
 * <p>
 * Threading: the queue pair's posting thread only (one poster per send queue, as every post).
 */
final class ShmDirectRma implements DirectExecutor
{
    private final ShmQueuePair qp;

    ShmDirectRma(final ShmQueuePair qp)
    {
        this.qp = qp;
    }

    /** {@inheritDoc} */
    public long execute(
        final long pos, final SendRequest request, final AbstractMemoryRegion[] regions, final long[] offsets)
    {
        final int opcode = request.opcode();
        if (Opcode.RDMA_WRITE != opcode && Opcode.RDMA_READ != opcode && !Opcode.isAtomic(opcode))
        {
            return NOT_DIRECT;
        }
        final ShmConnection c = qp.tryLockIdleSendSide(pos);
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
                qp.countRequest(opcode, bytes);
            }
        }
        finally
        {
            qp.unlockSendSide(pos, NOT_DIRECT != bytes);
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
        final ShmPeer.Region region = qp.peerRegion(c, request.rkey());
        if (null == region || !region.isShared())
        {
            return NOT_DIRECT;
        }
        final long offset = ShmQueuePair.targetOffset(c, region, ShmQueuePair.requiredAccess(opcode),
            request.remoteAddress(), length);
        if (offset < 0)
        {
            return NOT_DIRECT;
        }
        final RegionMemory memory = region.memory;
        switch (opcode)
        {
            case Opcode.RDMA_WRITE:
                walk(request, regions, offsets, memory, offset, true);
                return length;

            case Opcode.RDMA_READ:
                walk(request, regions, offsets, memory, offset, false);
                return length;

            default:
            {
                final long old = ShmQueuePair.atomic(opcode, memory, offset, request.compareAdd(), request.swap());
                UnsafeApi.putLong(regions[0].memory().addressOf(offsets[0]), old);
                return Long.BYTES;
            }
        }
    }

    /**
     * The SGE walk: copies between the request's SGEs, in order, and {@code remote} from {@code remoteOffset} on.
     *
     * @param toRemote true to gather the SGEs into {@code remote} (WRITE), false to scatter it into them (READ).
     */
    static void walk(
        final SendRequest request,
        final AbstractMemoryRegion[] regions,
        final long[] offsets,
        final RegionMemory remote,
        final long remoteOffset,
        final boolean toRemote)
    {
        long done = 0;
        for (int i = 0, n = request.sgeCount(); i < n; i++)
        {
            final int length = request.sgeLength(i);
            if (toRemote)
            {
                RegionMemory.copy(regions[i].memory(), offsets[i], remote, remoteOffset + done, length);
            }
            else
            {
                RegionMemory.copy(remote, remoteOffset + done, regions[i].memory(), offsets[i], length);
            }
            done += length;
        }
    }
}
