// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.util.Objects;

/**
 * A reusable, mutable send work request (the "stateful verb call" idea): build it once, change the fields that vary
 * and post it again. {@link QueuePair#postSend(SendRequest)} copies what it needs, so the object may be changed as
 * soon as the call returns; the memory the SGEs name must stay untouched until the completion (except for
 * {@link #INLINE} and {@link #INJECT}, whose payload is copied at post time). Several requests go out in one call
 * through a {@link PostList} ({@link QueuePair#postSend(PostList)}).
 * <p>
 * Addresses follow verbs: an SGE's address is {@link MemoryRegion#address()} plus an offset, and the remote address
 * of a one-sided operation is the peer region's address plus an offset.
 * <pre>{@code
 * SendRequest write = new SendRequest(1)
 *     .opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED)
 *     .sge(localMr, 0, 4096)
 *     .remote(peerAddress, peerRkey);
 * while (QueuePair.BACK_PRESSURED == qp.postSend(write.wrId(id++)))
 * {
 *     sendCq.poll(handler, 16);
 * }
 * }</pre>
 * A short SEND or WRITE the caller does not want to track is an {@link #INJECT}: copied at post, never completed
 * on success, its buffer free again when the post returns:
 * <pre>{@code
 * SendRequest flag = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.INJECT)
 *     .sge(localMr, 0, 8).remote(peerFlagAddress, peerRkey);
 * qp.postSend(flag);                     // OK: the 8 bytes are copied; localMr may be overwritten at once
 * }</pre>
 * Not thread-safe: one request object per posting thread.
 */
public final class SendRequest
{
    /** Generate a completion on success (failures always complete). */
    public static final int SIGNALED = 1;
    /**
     * Copy the payload at post time, so the memory may be reused as soon as the post returns. Unlike
     * {@code IBV_SEND_INLINE}, the SGEs must still name registered memory with a valid lkey: Java code cannot
     * safely read an arbitrary address, and a bad lkey is a {@link WcStatus#LOC_PROT_ERR}, not a crash.
     */
    public static final int INLINE = 1 << 1;
    /** Wait for earlier READs and atomics to finish before starting this request. */
    public static final int FENCE = 1 << 2;
    /** Ask the peer to raise a solicited event on the receive completion. */
    public static final int SOLICITED = 1 << 3;
    /**
     * Inject a short SEND, SEND_WITH_IMM, RDMA_WRITE or RDMA_WRITE_WITH_IMM (libfabric's {@code fi_inject} and
     * {@code fi_inject_write}, UCX's {@code am_short} and {@code put_short}): the payload is copied at post time, as
     * for {@link #INLINE}, so the SGEs' memory may be reused as soon as the post returns, and a successful inject
     * never produces a work completion.
     * <ul>
     * <li>{@link #SIGNALED} is ignored, as {@code fi_inject} ignores an endpoint bound to report every transmit
     * (it has no completion to report); INJECT with SIGNALED is therefore accepted, not refused, and
     * {@code flags(flags() | INJECT)} turns any short send into an inject.</li>
     * <li>Errors are never lost: an inject that fails (a bad rkey, the peer gone, a bad lkey) completes with its
     * error status, like any request, and the queue pair goes to ERROR; an inject still outstanding when the queue
     * pair enters ERROR completes with {@link WcStatus#WR_FLUSH_ERR}, as an unsignaled request does.</li>
     * <li>Refused at post with {@link QueuePair#INVALID_REQUEST}: a payload (sum of the SGE lengths) above the queue
     * pair's {@link QueuePairConfig#maxInlineLength()}, and RDMA_READ or an atomic (they have a result to wait
     * for). Refused with {@link QueuePair#NOT_SUPPORTED} where the device does not advertise
     * {@link Capabilities#INJECT}.</li>
     * <li>An inject takes a send-queue slot until the copy has gone out; like an unsignaled request, its slot is
     * released when a later completion of the same send queue is polled, so a stream of injects needs a signaled
     * request now and then (verbs' rule for unsignaled work requests).</li>
     * <li>The SGEs must name registered memory with a valid lkey, as for {@link #INLINE}.</li>
     * </ul>
     */
    public static final int INJECT = 1 << 4;

    private long wrId;
    private int opcode = Opcode.SEND;
    private int flags = SIGNALED;
    private final SgeList sges;
    private long remoteAddress;
    private int rkey;
    private int immediateData;
    private long compareAdd;
    private long swap;
    private int shapeChanges;

    /**
     * @param maxSge the most SGEs this request will hold.
     */
    public SendRequest(final int maxSge)
    {
        sges = new SgeList("SendRequest", maxSge);
    }

    /**
     * @param wrId the caller's correlation id, returned in the completion.
     * @return this.
     */
    public SendRequest wrId(final long wrId)
    {
        this.wrId = wrId;
        return this;
    }

    /**
     * @param opcode one of the send-queue {@link Opcode}s.
     * @return this.
     */
    public SendRequest opcode(final int opcode)
    {
        if (opcode != this.opcode)
        {
            this.opcode = opcode;
            shapeChanges++;
        }
        return this;
    }

    /**
     * @param flags a combination of {@link #SIGNALED}, {@link #INLINE}, {@link #FENCE}, {@link #SOLICITED},
     *              {@link #INJECT}.
     * @return this.
     */
    public SendRequest flags(final int flags)
    {
        if (0 != ((flags ^ this.flags) & (INLINE | INJECT)))
        {
            shapeChanges++;
        }
        this.flags = flags;
        return this;
    }

    /**
     * Removes every SGE.
     *
     * @return this.
     */
    public SendRequest clearSges()
    {
        sges.clear();
        return this;
    }

    /**
     * Appends an SGE naming a slice of a local region.
     *
     * @param region the local region (its lkey is used).
     * @param offset offset of the slice in the region.
     * @param length length of the slice in bytes.
     * @return this.
     * @throws IndexOutOfBoundsException if the request already holds its maximum number of SGEs.
     */
    public SendRequest sge(final MemoryRegion region, final long offset, final int length)
    {
        Objects.requireNonNull(region, "region");
        return sge(region.address() + offset, length, region.lkey());
    }

    /**
     * Appends an SGE in raw verbs form.
     *
     * @param address the region's address plus an offset.
     * @param length  length in bytes.
     * @param lkey    the region's lkey.
     * @return this.
     * @throws IndexOutOfBoundsException if the request already holds its maximum number of SGEs.
     */
    public SendRequest sge(final long address, final int length, final int lkey)
    {
        sges.add(address, length, lkey);
        return this;
    }

    /**
     * Replaces the length of an SGE already added, e.g. to reuse a request for another size.
     *
     * @param index  the SGE.
     * @param length its new length.
     * @return this.
     */
    public SendRequest sgeLength(final int index, final int length)
    {
        sges.length(index, length);
        return this;
    }

    /**
     * Replaces the address of an SGE already added.
     *
     * @param index   the SGE.
     * @param address its new address.
     * @return this.
     */
    public SendRequest sgeAddress(final int index, final long address)
    {
        sges.address(index, address);
        return this;
    }

    /**
     * Sets the target of a one-sided operation.
     *
     * @param remoteAddress the peer region's address plus an offset.
     * @param rkey          the peer region's rkey.
     * @return this.
     */
    public SendRequest remote(final long remoteAddress, final int rkey)
    {
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        return this;
    }

    /**
     * @param immediateData 32 bits delivered in the peer's receive completion (WITH_IMM opcodes).
     * @return this.
     */
    public SendRequest immediateData(final int immediateData)
    {
        this.immediateData = immediateData;
        return this;
    }

    /**
     * Sets the operands of an atomic.
     *
     * @param compareAdd the value to add (fetch-and-add) or to compare with (compare-and-swap).
     * @param swap       the value stored when the comparison holds (compare-and-swap only).
     * @return this.
     */
    public SendRequest atomic(final long compareAdd, final long swap)
    {
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    /**
     * A value that changes whenever something the post-time checks of a queue pair read changes: the opcode, the
     * {@link #INLINE} and {@link #INJECT} flags and the SGEs (not the work-request id, the other flags, the remote
     * address and key, the immediate or the atomic operands).
     * A queue pair may skip re-checking and re-resolving the SGEs of the request it checked last when it is posted
     * again with the same value (a request reused in a loop, as perftest and the collectives post them).
     *
     * @return the shape version.
     */
    public long shapeVersion()
    {
        return (long)shapeChanges << 32 | (sges.version() & 0xFFFF_FFFFL);
    }

    /** @return the correlation id. */
    public long wrId()
    {
        return wrId;
    }

    /** @return the opcode. */
    public int opcode()
    {
        return opcode;
    }

    /** @return the flags. */
    public int flags()
    {
        return flags;
    }

    /** @return the number of SGEs. */
    public int sgeCount()
    {
        return sges.count();
    }

    /** @return the capacity for SGEs. */
    public int maxSge()
    {
        return sges.capacity();
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

    /** @return sum of the SGE lengths (as a long, to detect overflow). */
    public long totalLength()
    {
        return sges.totalLength();
    }

    /** @return the remote address. */
    public long remoteAddress()
    {
        return remoteAddress;
    }

    /** @return the remote key. */
    public int rkey()
    {
        return rkey;
    }

    /** @return the immediate data. */
    public int immediateData()
    {
        return immediateData;
    }

    /** @return the add or compare operand. */
    public long compareAdd()
    {
        return compareAdd;
    }

    /** @return the swap operand. */
    public long swap()
    {
        return swap;
    }

}
