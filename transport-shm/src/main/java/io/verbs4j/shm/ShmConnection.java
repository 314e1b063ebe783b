// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.shm.protocol.ConnectionSegmentDescriptor;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * One side's view of a connection segment ({@link ConnectionSegmentDescriptor}): the ring it writes, the ring it
 * reads, its own control block (acks for what it received, its closed flag) and the peer's.
 */
final class ShmConnection
{
    final RegionMemory memory;
    final UnsafeBuffer segment;
    final OneToOneRingBuffer out;
    final OneToOneRingBuffer in;
    final int side;
    final int localControl;
    final int peerControl;
    final ShmPeer peer;
    final long peerPdId;
    final int peerQpn;
    /** Where the peer answers this side's served READ and atomic requests. */
    final long localStagingAddress;
    /** Where this side answers the peer's served READ and atomic requests. */
    final long peerStagingAddress;
    final int stagingLength;
    /** Address of the incoming ring's records, for {@link #hasIncoming()}. */
    private final long inRecordsAddress;
    /** Address of the incoming ring's head position (written by this side, its consumer). */
    private final long inHeadAddress;
    private final int inMask;
    /** Address of the peer's control block: polled every idle progress round, so read without bounds checks. */
    private final long peerControlAddress;

    ShmConnection(
        final RegionMemory memory,
        final int side,
        final int ringCapacity,
        final ShmPeer peer,
        final long peerPdId,
        final int peerQpn)
    {
        this.memory = memory;
        final int length = ConnectionSegmentDescriptor.length(ringCapacity);
        this.segment = new UnsafeBuffer(memory.addressOf(0), length);
        final int ringLength = ConnectionSegmentDescriptor.ringLength(ringCapacity);
        this.out = new OneToOneRingBuffer(new UnsafeBuffer(
            memory.addressOf(ConnectionSegmentDescriptor.ringOffset(ringCapacity, side)), ringLength));
        this.in = new OneToOneRingBuffer(new UnsafeBuffer(
            memory.addressOf(ConnectionSegmentDescriptor.ringOffset(ringCapacity, 1 - side)), ringLength));
        this.side = side;
        this.localControl = ConnectionSegmentDescriptor.controlOffset(side);
        this.peerControl = ConnectionSegmentDescriptor.controlOffset(1 - side);
        this.peer = peer;
        this.peerPdId = peerPdId;
        this.peerQpn = peerQpn;
        this.stagingLength = ConnectionSegmentDescriptor.stagingLength(ringCapacity);
        this.localStagingAddress = memory.addressOf(ConnectionSegmentDescriptor.stagingOffset(ringCapacity, side));
        this.peerStagingAddress = memory.addressOf(ConnectionSegmentDescriptor.stagingOffset(ringCapacity, 1 - side));
        this.inRecordsAddress = in.buffer().addressOffset();
        this.inHeadAddress = inRecordsAddress + in.capacity() + RingBufferDescriptor.HEAD_POSITION_OFFSET;
        this.inMask = in.capacity() - 1;
        this.peerControlAddress = segment.addressOffset() + peerControl;
    }

    /**
     * Whether a committed record waits at the head of the incoming ring: one volatile load of the record's length
     * word, the cache line the read that follows needs anyway. {@code in.size()} would also load the producer's
     * tail counter, a second line the peer writes on every record, so a poll that finds a record would wait for
     * two lines to cross instead of one. Agrona's producer zeroes the header after each record it claims, and its
     * consumer relies on the same rule: a positive length at the head is a committed record (or padding), zero or
     * negative is nothing yet.
     * <p>
     * Threading: the ring's consumer (the holder of the device's progress, which keeps the mapping alive).
     */
    boolean hasIncoming()
    {
        final long head = UnsafeApi.getLongVolatile(null, inHeadAddress);
        return UnsafeApi.getIntVolatile(null, inRecordsAddress + ((int)head & inMask)) > 0;
    }

    long peerAckedMsn()
    {
        return UnsafeApi.getLongVolatile(null, peerControlAddress + ConnectionSegmentDescriptor.ACKED_MSN_OFFSET);
    }

    long peerRnrCount()
    {
        return UnsafeApi.getLongVolatile(null, peerControlAddress + ConnectionSegmentDescriptor.RNR_COUNT_OFFSET);
    }

    long peerRnrMsn()
    {
        return segment.getLong(peerControl + ConnectionSegmentDescriptor.RNR_MSN_OFFSET);
    }

    long peerErrorMsnPlusOne()
    {
        return UnsafeApi.getLongVolatile(null, peerControlAddress + ConnectionSegmentDescriptor.ERROR_MSN_OFFSET);
    }

    int peerErrorStatus()
    {
        return segment.getInt(peerControl + ConnectionSegmentDescriptor.ERROR_STATUS_OFFSET);
    }

    boolean peerClosed()
    {
        return 0 != UnsafeApi.getIntVolatile(null, peerControlAddress + ConnectionSegmentDescriptor.CLOSED_OFFSET);
    }

    void putAcked(final long msn)
    {
        segment.putLongRelease(localControl + ConnectionSegmentDescriptor.ACKED_MSN_OFFSET, msn);
    }

    void putRnrNak(final long msn, final long count)
    {
        segment.putLong(localControl + ConnectionSegmentDescriptor.RNR_MSN_OFFSET, msn);
        segment.putLongRelease(localControl + ConnectionSegmentDescriptor.RNR_COUNT_OFFSET, count);
    }

    void putError(final long msn, final int status)
    {
        segment.putInt(localControl + ConnectionSegmentDescriptor.ERROR_STATUS_OFFSET, status);
        segment.putLongRelease(localControl + ConnectionSegmentDescriptor.ERROR_MSN_OFFSET, msn + 1);
    }

    void putClosed()
    {
        segment.putIntVolatile(localControl + ConnectionSegmentDescriptor.CLOSED_OFFSET, 1);
    }

    void unmap()
    {
        MappedMemory.unmap(memory);
    }
}
