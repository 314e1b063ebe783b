// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.ByteBuffer;

import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

/**
 * The request side of a {@link WorkQueue}'s slots: the copies of posted work requests and the payload copies to and
 * from them. Each slot holds a 64-byte request record ({@link WorkRecord}), its SGEs ({@code maxSge} per slot: the
 * region each resolved to, the offset in it, the length) and, in a send queue, an inline copy of the payload
 * ({@code maxInline} bytes per slot, in one direct buffer).
 * <p>
 * Writes: the posting thread only, {@link #fillSend fillSend} or {@link #fillRecv fillRecv} between
 * {@link WorkQueue#reserve()} and {@link WorkQueue#publish(long)}, whose release stores (the slot's state word, then
 * the producer index) make the records visible: they are written before the slot is published and not again until
 * the CQ consumer has {@link WorkQueue#release released} its position, which the poster sees in
 * {@link WorkQueue#free()} before it reserves.
 * <p>
 * Reads are plain loads, with no fence of their own: valid on a thread that has seen the slot published (an acquire
 * of the producer index or of the slot's state, as in {@link WorkQueue#take()}, {@link WorkQueue#isPending}, the
 * drain and the flush) and until it is released. The readers: the provider's thread that carries the slot out (the
 * getters, then the gathers and scatters, which copy between the slot's SGEs and the wire or the peer's memory),
 * the drain (wrId and the signaled flag, for the CQ entry) and the flush (the opcode).
 * <p>
 * {@link WorkQueue} extends this class so that a provider reads a slot from the queue it took it from, and the drain
 * reads the record words it needs without a call. Public because javac gives a public class a bridge method for
 * every public method it inherits from a package-private one, a call level more on every getter; the package-private
 * constructor keeps {@link WorkQueue}, final, the only subclass, so every call binds statically.
 */
public abstract class WorkRecords
{
    /** Slots minus one (a power of two): {@code (int)pos & mask} is a position's slot, in the queue's arrays too. */
    final int mask;
    private final int maxSge;
    private final int maxInline;

    /** The request records; the drain reads wrId and the signaled flag straight from them. */
    final long[] requests;
    private final AbstractMemoryRegion[] sgeRegions;
    private final long[] sgeOffsets;
    private final int[] sgeLengths;
    // Held only so that the memory at inlineBase stays allocated as long as the queue.
    private final ByteBuffer inlineBuffer;
    private final long inlineBase;

    /**
     * @param capacity  slots, a power of two.
     * @param maxSge    most SGEs per request.
     * @param maxInline largest inline payload (send queues), 0 for none.
     */
    WorkRecords(final int capacity, final int maxSge, final int maxInline)
    {
        this.mask = capacity - 1;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        requests = new long[capacity * WorkRecord.WORDS];
        sgeRegions = new AbstractMemoryRegion[capacity * maxSge];
        sgeOffsets = new long[capacity * maxSge];
        sgeLengths = new int[capacity * maxSge];
        if (maxInline > 0)
        {
            inlineBuffer = BufferUtil.allocateDirectAligned(
                BitUtil.align(capacity * maxInline, BitUtil.CACHE_LINE_LENGTH), BitUtil.CACHE_LINE_LENGTH);
            inlineBase = BufferUtil.address(inlineBuffer);
        }
        else
        {
            inlineBuffer = null;
            inlineBase = 0;
        }
    }

    /**
     * Fills a reserved send slot from a request whose SGEs were resolved by the caller.
     *
     * @param pos     the reserved position.
     * @param request the request.
     * @param regions the region of each SGE (index-aligned), resolved by the lkey checks; null for an SGE that
     *                failed them (the inline copy is then skipped: the request completes with LOC_PROT_ERR).
     * @param offsets the offset of each SGE in its region.
     */
    public void fillSend(
        final long pos, final SendRequest request, final AbstractMemoryRegion[] regions, final long[] offsets)
    {
        final int idx = (int)pos & mask;
        final long[] requests = this.requests;
        final int record = idx * WorkRecord.WORDS;
        final int postedFlags = postedFlags(request.flags());
        final int count = request.sgeCount();
        requests[record + WorkRecord.WR_ID] = request.wrId();
        requests[record + WorkRecord.OPCODE_FLAGS] = IntPair.pack(request.opcode(), postedFlags);
        requests[record + WorkRecord.REMOTE_ADDRESS] = request.remoteAddress();
        requests[record + WorkRecord.RKEY_IMMEDIATE] = IntPair.pack(request.rkey(), request.immediateData());
        requests[record + WorkRecord.COMPARE_ADD] = request.compareAdd();
        requests[record + WorkRecord.SWAP] = request.swap();
        requests[record + WorkRecord.SGE_COUNT] = count;
        long total = 0;
        boolean resolved = true;
        final int base = idx * maxSge;
        for (int i = 0; i < count; i++)
        {
            sgeRegions[base + i] = regions[i];
            sgeOffsets[base + i] = offsets[i];
            sgeLengths[base + i] = request.sgeLength(i);
            total += request.sgeLength(i);
            resolved &= null != regions[i];
        }
        requests[record + WorkRecord.TOTAL_LENGTH] = total;
        // An SGE that failed its lkey check has no region: the slot completes with LOC_PROT_ERR, nothing to copy.
        if (resolved && 0 != (postedFlags & SendRequest.INLINE))
        {
            walk(pos, 0, total, null, inlineBase + (long)idx * maxInline, false);
        }
    }

    /**
     * Fills a reserved receive slot.
     *
     * @param pos     the reserved position.
     * @param wrId    the correlation id.
     * @param count   number of SGEs.
     * @param regions region of each SGE.
     * @param offsets offset of each SGE in its region.
     * @param lengths length of each SGE.
     */
    public void fillRecv(
        final long pos,
        final long wrId,
        final int count,
        final AbstractMemoryRegion[] regions,
        final long[] offsets,
        final int[] lengths)
    {
        final int idx = (int)pos & mask;
        final long[] requests = this.requests;
        final int record = idx * WorkRecord.WORDS;
        requests[record + WorkRecord.WR_ID] = wrId;
        requests[record + WorkRecord.OPCODE_FLAGS] = IntPair.pack(Opcode.RECV, SendRequest.SIGNALED);
        requests[record + WorkRecord.SGE_COUNT] = count;
        long total = 0;
        final int base = idx * maxSge;
        for (int i = 0; i < count; i++)
        {
            sgeRegions[base + i] = regions[i];
            sgeOffsets[base + i] = offsets[i];
            sgeLengths[base + i] = lengths[i];
            total += lengths[i];
        }
        requests[record + WorkRecord.TOTAL_LENGTH] = total;
    }

    /**
     * The flags a send slot keeps for a request's flags: an {@link SendRequest#INJECT} is stored as an unsignaled
     * {@link SendRequest#INLINE} request (its payload copied at post, no completion on success), which is all a
     * provider needs to know of it.
     *
     * @param requestFlags the flags of the posted request.
     * @return the flags to store and act on.
     */
    public static int postedFlags(final int requestFlags)
    {
        return 0 == (requestFlags & SendRequest.INJECT) ? requestFlags :
            (requestFlags | SendRequest.INLINE) & ~SendRequest.SIGNALED;
    }

    private long requestWord(final long pos, final int word)
    {
        return requests[((int)pos & mask) * WorkRecord.WORDS + word];
    }

    /**
     * @param pos position.
     * @return the correlation id.
     */
    public long wrId(final long pos)
    {
        return requestWord(pos, WorkRecord.WR_ID);
    }

    /**
     * @param pos position.
     * @return the posted opcode.
     */
    public int opcode(final long pos)
    {
        return IntPair.high(requestWord(pos, WorkRecord.OPCODE_FLAGS));
    }

    /**
     * @param pos position.
     * @return the posted flags.
     */
    public int flags(final long pos)
    {
        return IntPair.low(requestWord(pos, WorkRecord.OPCODE_FLAGS));
    }

    /**
     * @param pos position.
     * @return true for an inline send (payload at {@link #inlineAddress(long)}).
     */
    public boolean isInline(final long pos)
    {
        return 0 != (flags(pos) & SendRequest.INLINE);
    }

    /**
     * @param pos position.
     * @return the native address of the inline copy of the payload.
     */
    public long inlineAddress(final long pos)
    {
        return inlineBase + (long)((int)pos & mask) * maxInline;
    }

    /**
     * @param pos position.
     * @return the total length of the SGEs.
     */
    public long totalLength(final long pos)
    {
        return requestWord(pos, WorkRecord.TOTAL_LENGTH);
    }

    /**
     * @param pos position.
     * @return number of SGEs.
     */
    public int sgeCount(final long pos)
    {
        return (int)requestWord(pos, WorkRecord.SGE_COUNT);
    }

    /**
     * @param pos position.
     * @param i   SGE index.
     * @return its region.
     */
    public AbstractMemoryRegion sgeRegion(final long pos, final int i)
    {
        return sgeRegions[((int)pos & mask) * maxSge + i];
    }

    /**
     * @param pos position.
     * @param i   SGE index.
     * @return its offset in its region.
     */
    public long sgeOffset(final long pos, final int i)
    {
        return sgeOffsets[((int)pos & mask) * maxSge + i];
    }

    /**
     * @param pos position.
     * @param i   SGE index.
     * @return its length.
     */
    public int sgeLength(final long pos, final int i)
    {
        return sgeLengths[((int)pos & mask) * maxSge + i];
    }

    /**
     * @param pos position.
     * @return remote address of a one-sided request.
     */
    public long remoteAddress(final long pos)
    {
        return requestWord(pos, WorkRecord.REMOTE_ADDRESS);
    }

    /**
     * @param pos position.
     * @return rkey of a one-sided request.
     */
    public int rkey(final long pos)
    {
        return IntPair.high(requestWord(pos, WorkRecord.RKEY_IMMEDIATE));
    }

    /**
     * @param pos position.
     * @return immediate data.
     */
    public int immediateData(final long pos)
    {
        return IntPair.low(requestWord(pos, WorkRecord.RKEY_IMMEDIATE));
    }

    /**
     * @param pos position.
     * @return atomic add/compare operand.
     */
    public long compareAdd(final long pos)
    {
        return requestWord(pos, WorkRecord.COMPARE_ADD);
    }

    /**
     * @param pos position.
     * @return atomic swap operand.
     */
    public long swap(final long pos)
    {
        return requestWord(pos, WorkRecord.SWAP);
    }

    /**
     * Copies the payload of a send slot (inline copy or SGEs, in order) to contiguous native memory.
     *
     * @param pos        position.
     * @param dstAddress destination.
     */
    public void gatherToAddress(final long pos, final long dstAddress)
    {
        gatherRange(pos, 0, totalLength(pos), dstAddress);
    }

    /**
     * Copies part of the payload of a send slot (inline copy or SGEs) to contiguous native memory.
     *
     * @param pos        position.
     * @param from       bytes into the payload to start at.
     * @param length     bytes.
     * @param dstAddress destination.
     */
    public void gatherRange(final long pos, final long from, final long length, final long dstAddress)
    {
        if (isInline(pos))
        {
            UnsafeApi.copyMemory(inlineAddress(pos) + from, dstAddress, length);
            return;
        }
        walk(pos, from, length, null, dstAddress, false);
    }

    /**
     * Copies the payload of a send slot into memory at an offset (may cross chunks).
     *
     * @param pos       position.
     * @param dst       destination memory.
     * @param dstOffset offset in it.
     */
    public void gatherTo(final long pos, final RegionMemory dst, final long dstOffset)
    {
        if (isInline(pos))
        {
            dst.copyFrom(inlineAddress(pos), dstOffset, totalLength(pos));
            return;
        }
        walk(pos, 0, totalLength(pos), dst, dstOffset, false);
    }

    /**
     * Scatters {@code length} bytes into the SGEs of a slot (a receive, or a READ/atomic's local destination).
     *
     * @param pos       position.
     * @param src       source memory.
     * @param srcOffset offset in it.
     * @param length    bytes.
     * @return {@link WcStatus#SUCCESS}, or {@link WcStatus#LOC_LEN_ERR} (nothing copied) if the SGEs are shorter.
     */
    public int scatterFrom(final long pos, final RegionMemory src, final long srcOffset, final long length)
    {
        if (length > totalLength(pos))
        {
            return WcStatus.LOC_LEN_ERR;
        }
        walk(pos, 0, length, src, srcOffset, true);
        return WcStatus.SUCCESS;
    }

    /**
     * Scatters {@code length} bytes from contiguous native memory into the SGEs of a slot.
     *
     * @param pos        position.
     * @param srcAddress source.
     * @param length     bytes.
     * @return {@link WcStatus#SUCCESS}, or {@link WcStatus#LOC_LEN_ERR} (nothing copied) if the SGEs are shorter.
     */
    public int scatterFromAddress(final long pos, final long srcAddress, final long length)
    {
        if (length > totalLength(pos))
        {
            return WcStatus.LOC_LEN_ERR;
        }
        walk(pos, 0, length, null, srcAddress, true);
        return WcStatus.SUCCESS;
    }

    /**
     * Scatters bytes from contiguous native memory into the SGEs of a slot, starting {@code dstStart} bytes in
     * (the next fragment or chunk of a message). The caller checked that they fit.
     *
     * @param pos        position.
     * @param dstStart   bytes into the SGEs to start at.
     * @param srcAddress source.
     * @param length     bytes.
     */
    public void scatterRange(final long pos, final long dstStart, final long srcAddress, final long length)
    {
        walk(pos, dstStart, length, null, srcAddress, true);
    }

    /**
     * Scatters bytes from memory into the SGEs of a slot, starting {@code dstStart} bytes in. The caller checked
     * that they fit.
     *
     * @param pos       position.
     * @param dstStart  bytes into the SGEs to start at.
     * @param src       source memory.
     * @param srcOffset offset in it.
     * @param length    bytes.
     */
    public void scatterRange(
        final long pos, final long dstStart, final RegionMemory src, final long srcOffset, final long length)
    {
        walk(pos, dstStart, length, src, srcOffset, true);
    }

    /**
     * The SGE walk, the one every copy to or from a slot goes through: {@code length} bytes between the slot's
     * SGEs, from {@code start} bytes into them, and the other side: {@code other} from offset {@code otherAt}, or,
     * when {@code other} is null, native memory at address {@code otherAt}.
     */
    private void walk(
        final long pos,
        final long start,
        final long length,
        final RegionMemory other,
        final long otherAt,
        final boolean intoSges)
    {
        final int idx = (int)pos & mask;
        final int base = idx * maxSge;
        long skip = start;
        long done = 0;
        for (int i = 0, n = sgeCount(pos); i < n && done < length; i++)
        {
            final long sgeLength = sgeLengths[base + i];
            if (skip >= sgeLength)
            {
                skip -= sgeLength;
                continue;
            }
            final long chunk = Math.min(sgeLength - skip, length - done);
            final RegionMemory sge = sgeRegions[base + i].memory();
            final long sgeAt = sgeOffsets[base + i] + skip;
            if (null == other)
            {
                if (intoSges)
                {
                    sge.copyFrom(otherAt + done, sgeAt, chunk);
                }
                else
                {
                    sge.copyTo(sgeAt, otherAt + done, chunk);
                }
            }
            else if (intoSges)
            {
                RegionMemory.copy(other, otherAt + done, sge, sgeAt, chunk);
            }
            else
            {
                RegionMemory.copy(sge, sgeAt, other, otherAt + done, chunk);
            }
            done += chunk;
            skip = 0;
        }
    }
}
