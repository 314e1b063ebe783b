// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

import org.agrona.BitUtil;

/**
 * A device's segment ({@code <prefix>p<pid>-d<deviceId>.dev}): a {@link SegmentHeader}, the liveness line and the
 * shared region table that peers read to check their one-sided operations themselves.
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                SegmentHeader (magic V4JD)                     |  0
 *  +---------------------------------------------------------------+
 *  |       Flags (bit 0: heartbeat kept by a progress agent)       | 40
 *  +---------------------------------------------------------------+
 *  |                 Region table capacity (entries)               | 44
 *  +---------------------------------------------------------------+
 *  |                   Closed (1 once the device closed)           | 48
 *  +---------------------------------------------------------------+
 *  |                         ... padding ...                       |
 *  +---------------------------------------------------------------+
 *  |        Heartbeat counter (64 bits, own cache line pair)       | 128
 *  +---------------------------------------------------------------+
 *  |                         ... padding ...                       |
 *  +---------------------------------------------------------------+
 *  |     Region table: capacity x RegionEntryDescriptor (64 B)     | 256
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class DeviceSegmentDescriptor
{
    /** Flag: the owner runs a progress agent that advances the heartbeat; peers time it out. */
    public static final int FLAG_HEARTBEAT = 1;

    /** Offset of the flags. */
    public static final int FLAGS_OFFSET = SegmentHeader.LENGTH;
    /** Offset of the region table capacity. */
    public static final int TABLE_CAPACITY_OFFSET = FLAGS_OFFSET + 4;
    /** Offset of the closed flag. */
    public static final int CLOSED_OFFSET = TABLE_CAPACITY_OFFSET + 4;
    /** Offset of the heartbeat counter, two cache lines away from the fields peers read often. */
    public static final int HEARTBEAT_OFFSET = 2 * BitUtil.CACHE_LINE_LENGTH;
    /** Offset of the first region table entry. */
    public static final int TABLE_OFFSET = 4 * BitUtil.CACHE_LINE_LENGTH;

    private DeviceSegmentDescriptor()
    {
    }

    /**
     * @param tableCapacity region table entries.
     * @return the segment length.
     */
    public static int length(final int tableCapacity)
    {
        return TABLE_OFFSET + tableCapacity * RegionEntryDescriptor.LENGTH;
    }

    /**
     * @param index an entry index.
     * @return the offset of that entry in the segment.
     */
    public static int entryOffset(final int index)
    {
        return TABLE_OFFSET + index * RegionEntryDescriptor.LENGTH;
    }
}
