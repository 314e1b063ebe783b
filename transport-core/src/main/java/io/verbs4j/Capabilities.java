// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * What a device can do and its limits, as {@code ibv_query_device} and libfabric's capability bits report them.
 * An operation whose capability is not advertised is refused at post time with {@link QueuePair#NOT_SUPPORTED};
 * an advertised one must work (the conformance kit checks both directions).
 */
public final class Capabilities
{
    /** SEND / SEND_WITH_IMM / RECV. */
    public static final int MSG = 1;
    /** RDMA_WRITE. */
    public static final int RMA_WRITE = 1 << 1;
    /** RDMA_READ. */
    public static final int RMA_READ = 1 << 2;
    /** RDMA_WRITE_WITH_IMM. */
    public static final int WRITE_IMM = 1 << 3;
    /** ATOMIC_FETCH_AND_ADD and ATOMIC_CMP_AND_SWP, atomic with respect to local CPU atomics on the same memory. */
    public static final int ATOMIC = 1 << 4;
    /** Inline sends ({@link SendRequest#INLINE}): the payload is copied at post time. */
    public static final int INLINE = 1 << 5;
    /** One-sided operations across processes with no work by the target's threads. */
    public static final int ONE_SIDED_OFFLOAD = 1 << 6;
    /**
     * {@link QueuePair#mapRemote}: a connected peer's registered region can be mapped into this process, so that
     * a put is a plain store and a get a plain load (CUDA IPC, {@code nvshmem_ptr}, XPMEM). Only where the peer's
     * memory is reachable by load/store (shm); never emulated over a network.
     */
    public static final int DIRECT_PEER_ACCESS = 1 << 7;
    /**
     * Injects ({@link SendRequest#INJECT}): short SENDs and WRITEs up to the queue pair's max inline length, copied
     * at post and never completed on success. The copy is the shared code's, so a provider with {@link #INLINE}
     * can advertise it with nothing more to wire.
     */
    public static final int INJECT = 1 << 8;

    private final int flags;
    private final int maxMessageLength;
    private final int maxSge;
    private final int maxInlineLength;
    private final int maxQueueDepth;
    private final int maxCqCapacity;
    private final long maxRegionLength;
    private final int maxPrivateDataLength;

    /**
     * @param flags                capability bits.
     * @param maxMessageLength     largest message a work request may carry, in bytes.
     * @param maxSge               most SGEs in one work request.
     * @param maxInlineLength      largest inline payload.
     * @param maxQueueDepth        deepest send or receive queue.
     * @param maxCqCapacity        largest completion queue.
     * @param maxRegionLength      largest memory region.
     * @param maxPrivateDataLength largest connection private data.
     */
    public Capabilities(
        final int flags,
        final int maxMessageLength,
        final int maxSge,
        final int maxInlineLength,
        final int maxQueueDepth,
        final int maxCqCapacity,
        final long maxRegionLength,
        final int maxPrivateDataLength)
    {
        this.flags = flags;
        this.maxMessageLength = maxMessageLength;
        this.maxSge = maxSge;
        this.maxInlineLength = maxInlineLength;
        this.maxQueueDepth = maxQueueDepth;
        this.maxCqCapacity = maxCqCapacity;
        this.maxRegionLength = maxRegionLength;
        this.maxPrivateDataLength = maxPrivateDataLength;
    }

    /**
     * @param capability one or more capability bits.
     * @return true when every bit given is supported.
     */
    public boolean has(final int capability)
    {
        return capability == (flags & capability);
    }

    /**
     * @param opcode a send-queue opcode.
     * @return true when the device supports it.
     */
    public boolean supportsOpcode(final int opcode)
    {
        switch (opcode)
        {
            case Opcode.SEND:
            case Opcode.SEND_WITH_IMM:
                return has(MSG);
            case Opcode.RDMA_WRITE:
                return has(RMA_WRITE);
            case Opcode.RDMA_WRITE_WITH_IMM:
                return has(WRITE_IMM);
            case Opcode.RDMA_READ:
                return has(RMA_READ);
            case Opcode.ATOMIC_FETCH_AND_ADD:
            case Opcode.ATOMIC_CMP_AND_SWP:
                return has(ATOMIC);
            default:
                return false;
        }
    }

    /** @return the capability bits. */
    public int flags()
    {
        return flags;
    }

    /** @return largest message length in bytes. */
    public int maxMessageLength()
    {
        return maxMessageLength;
    }

    /** @return most SGEs per work request. */
    public int maxSge()
    {
        return maxSge;
    }

    /** @return largest inline payload in bytes. */
    public int maxInlineLength()
    {
        return maxInlineLength;
    }

    /** @return deepest send or receive queue. */
    public int maxQueueDepth()
    {
        return maxQueueDepth;
    }

    /** @return largest completion-queue capacity. */
    public int maxCqCapacity()
    {
        return maxCqCapacity;
    }

    /** @return largest memory region in bytes. */
    public long maxRegionLength()
    {
        return maxRegionLength;
    }

    /** @return largest connection private data in bytes. */
    public int maxPrivateDataLength()
    {
        return maxPrivateDataLength;
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "Capabilities{flags=0x" + Integer.toHexString(flags) +
            ", maxMessageLength=" + maxMessageLength +
            ", maxSge=" + maxSge +
            ", maxInlineLength=" + maxInlineLength +
            ", maxQueueDepth=" + maxQueueDepth +
            ", maxCqCapacity=" + maxCqCapacity +
            ", maxRegionLength=" + maxRegionLength +
            ", maxPrivateDataLength=" + maxPrivateDataLength + '}';
    }
}
