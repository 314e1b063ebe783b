// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.SendRequest;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.spi.AbstractMemoryRegion;
import io.verbs4j.spi.RegionMemory;
import io.verbs4j.spi.WorkQueue;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The provider's loops over scatter-gather entries, in one place: the checks over a work-queue slot's SGEs (every
 * region open, every region shared), the source list of a rendezvous record, and the copy walk of the direct path
 * over a request's resolved SGEs. Every copy to or from a work-queue slot goes through the core's walk
 * ({@link WorkQueue#gatherRange}, {@link WorkQueue#scatterRange} and their siblings); {@link #copy} is the one walk
 * of this provider, for the direct path, whose request has no slot.
 * <p>
 * Stateless; called by whichever thread holds the side it serves (no allocation).
 */
final class ShmSges
{
    private ShmSges()
    {
    }

    /**
     * @return true if every region the request's SGEs name is still open (an inline send names none: its payload
     *         was copied at post time). Read under this side's lock, so a region's close waits for the copy.
     */
    static boolean allOpen(final WorkQueue queue, final long pos)
    {
        if (queue.isInline(pos))
        {
            return true;
        }
        for (int i = 0, n = queue.sgeCount(pos); i < n; i++)
        {
            final AbstractMemoryRegion region = queue.sgeRegion(pos, i);
            if (null == region || !region.isOpen())
            {
                return false;
            }
        }
        return true;
    }

    /** @return true if the request has SGEs and each lies in a shared region (one the peer can map and pull from). */
    static boolean allShared(final WorkQueue sq, final long pos, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final AbstractMemoryRegion region = sq.sgeRegion(pos, i);
            if (!(region instanceof ShmMemoryRegion) || !((ShmMemoryRegion)region).isShared())
            {
                return false;
            }
        }
        return count > 0;
    }

    /** Writes the request's SGEs as the sources of a rendezvous record (rkey, offset, length each) from {@code at}. */
    static void putSources(final WorkQueue sq, final long pos, final int count, final AtomicBuffer buffer, final int at)
    {
        int offset = at;
        for (int i = 0; i < count; i++)
        {
            buffer.putInt(offset + FrameDescriptor.SOURCE_RKEY_OFFSET, sq.sgeRegion(pos, i).rkey());
            buffer.putInt(offset + FrameDescriptor.SOURCE_RKEY_OFFSET + 4, 0);
            buffer.putLong(offset + FrameDescriptor.SOURCE_OFFSET_OFFSET, sq.sgeOffset(pos, i));
            buffer.putLong(offset + FrameDescriptor.SOURCE_LENGTH_OFFSET, sq.sgeLength(pos, i));
            offset += FrameDescriptor.SOURCE_LENGTH;
        }
    }

    /**
     * The direct path's SGE walk: copies between the request's SGEs, in order, and {@code remote} from
     * {@code remoteOffset} on.
     *
     * @param request      the request (SGE lengths).
     * @param regions      the region of each SGE.
     * @param offsets      the offset of each SGE in its region.
     * @param remote       the other side of the copy.
     * @param remoteOffset where in it the first SGE's bytes go or come from.
     * @param toRemote     true to gather the SGEs into {@code remote} (WRITE), false to scatter it into them (READ).
     */
    static void copy(
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
