// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.util.Objects;

/**
 * A reusable, mutable receive work request: the buffers an incoming SEND (or the immediate of a WRITE_WITH_IMM)
 * will land in. {@link QueuePair#postRecv(RecvRequest)} copies it, so it may be changed once the call returns; the
 * memory must stay untouched until the receive completes. The regions need {@link Access#LOCAL_WRITE}.
 * Not thread-safe.
 */
public final class RecvRequest
{
    private long wrId;
    private final SgeList sges;

    /**
     * @param maxSge the most SGEs this request will hold.
     */
    public RecvRequest(final int maxSge)
    {
        sges = new SgeList("RecvRequest", maxSge);
    }

    /**
     * @param wrId the caller's correlation id, returned in the completion.
     * @return this.
     */
    public RecvRequest wrId(final long wrId)
    {
        this.wrId = wrId;
        return this;
    }

    /**
     * Removes every SGE.
     *
     * @return this.
     */
    public RecvRequest clearSges()
    {
        sges.clear();
        return this;
    }

    /**
     * Appends an SGE naming a slice of a local region.
     *
     * @param region the region.
     * @param offset offset in the region.
     * @param length length in bytes.
     * @return this.
     */
    public RecvRequest sge(final MemoryRegion region, final long offset, final int length)
    {
        Objects.requireNonNull(region, "region");
        return sge(region.address() + offset, length, region.lkey());
    }

    /**
     * Appends an SGE in raw verbs form.
     *
     * @param address region address plus offset.
     * @param length  length in bytes.
     * @param lkey    the region's lkey.
     * @return this.
     */
    public RecvRequest sge(final long address, final int length, final int lkey)
    {
        sges.add(address, length, lkey);
        return this;
    }

    /**
     * Replaces the address of an SGE already added.
     *
     * @param index   the SGE.
     * @param address its new address.
     * @return this.
     */
    public RecvRequest sgeAddress(final int index, final long address)
    {
        sges.address(index, address);
        return this;
    }

    /**
     * A value that changes whenever the SGEs change (not the work-request id). A queue pair may skip re-resolving the
     * SGEs of the receive it resolved last when it is posted again with the same value (a receive re-posted in a
     * loop, as perftest and the collectives do).
     *
     * @return the shape version.
     */
    public long shapeVersion()
    {
        return sges.version() & 0xFFFF_FFFFL;
    }

    /** @return the correlation id. */
    public long wrId()
    {
        return wrId;
    }

    /** @return the number of SGEs. */
    public int sgeCount()
    {
        return sges.count();
    }

    /**
     * @param index the SGE.
     * @return its address.
     */
    public long sgeAddress(final int index)
    {
        return sges.address(index);
    }

    /**
     * @param index the SGE.
     * @return its length.
     */
    public int sgeLength(final int index)
    {
        return sges.length(index);
    }

    /**
     * @param index the SGE.
     * @return its lkey.
     */
    public int sgeLkey(final int index)
    {
        return sges.lkey(index);
    }
}
