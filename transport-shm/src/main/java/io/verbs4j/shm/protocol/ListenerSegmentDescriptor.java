// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

import org.agrona.BitUtil;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * A listener's segment ({@code <prefix><name>.listen}): a well-known file whose ring takes connection requests
 * from any number of processes (an Agrona {@code ManyToOneRingBuffer}, whose CAS works across processes).
 * <pre>
 *  +---------------------------------------------------------------+
 *  |         SegmentHeader (magic V4JL, listener's pid/device)     |   0
 *  +---------------------------------------------------------------+
 *  |                       Ring capacity                           |  40
 *  +---------------------------------------------------------------+
 *  |                   Closed (1 once closed)                      |  44
 *  +---------------------------------------------------------------+
 *  |                           ...                                 |
 *  +---------------------------------------------------------------+
 *  |   Request ring: ManyToOneRingBuffer (capacity + trailer)      | 128
 *  +---------------------------------------------------------------+
 * </pre>
 * Each record is a {@link ConnectRequestDescriptor} of type {@link ConnectRequestDescriptor#TYPE_CONNECT}.
 */
public final class ListenerSegmentDescriptor
{
    /** Offset of the ring capacity. */
    public static final int RING_CAPACITY_OFFSET = SegmentHeader.LENGTH;
    /** Offset of the closed flag. */
    public static final int CLOSED_OFFSET = RING_CAPACITY_OFFSET + 4;
    /** Offset of the request ring. */
    public static final int RING_OFFSET = 2 * BitUtil.CACHE_LINE_LENGTH;

    private ListenerSegmentDescriptor()
    {
    }

    /**
     * @param ringCapacity request ring capacity.
     * @return segment length.
     */
    public static int length(final int ringCapacity)
    {
        return RING_OFFSET + ringCapacity + RingBufferDescriptor.TRAILER_LENGTH;
    }
}
