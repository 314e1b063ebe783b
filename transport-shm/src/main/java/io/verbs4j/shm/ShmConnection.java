// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import io.verbs4j.shm.protocol.ConnectionSegmentDescriptor;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

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
    }

    long peerAckedMsn()
    {
        return segment.getLongVolatile(peerControl + ConnectionSegmentDescriptor.ACKED_MSN_OFFSET);
    }

    long peerRnrCount()
    {
        return segment.getLongVolatile(peerControl + ConnectionSegmentDescriptor.RNR_COUNT_OFFSET);
    }

    long peerRnrMsn()
    {
        return segment.getLong(peerControl + ConnectionSegmentDescriptor.RNR_MSN_OFFSET);
    }

    long peerErrorMsnPlusOne()
    {
        return segment.getLongVolatile(peerControl + ConnectionSegmentDescriptor.ERROR_MSN_OFFSET);
    }

    int peerErrorStatus()
    {
        return segment.getInt(peerControl + ConnectionSegmentDescriptor.ERROR_STATUS_OFFSET);
    }

    boolean peerClosed()
    {
        return 0 != segment.getIntVolatile(peerControl + ConnectionSegmentDescriptor.CLOSED_OFFSET);
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
