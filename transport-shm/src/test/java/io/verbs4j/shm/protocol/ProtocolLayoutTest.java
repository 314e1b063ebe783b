// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

import io.verbs4j.shm.ShmConfiguration;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins every shm byte layout: a change here is a wire change and must bump {@link SegmentHeader#VERSION}.
 */
class ProtocolLayoutTest
{
    @Test
    void shouldPinSegmentHeader()
    {
        assertEquals(3, SegmentHeader.VERSION);
        assertEquals(0, SegmentHeader.MAGIC_OFFSET);
        assertEquals(4, SegmentHeader.VERSION_OFFSET);
        assertEquals(8, SegmentHeader.PID_OFFSET);
        assertEquals(16, SegmentHeader.DEVICE_ID_OFFSET);
        assertEquals(24, SegmentHeader.READY_OFFSET);
        assertEquals(32, SegmentHeader.START_TIME_OFFSET);
        assertEquals(40, SegmentHeader.LENGTH);
    }

    @Test
    void shouldCheckHeaders()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        assertNotNull(SegmentHeader.check(buffer, SegmentHeader.MAGIC_DEVICE));
        SegmentHeader.write(buffer, SegmentHeader.MAGIC_DEVICE, 123, 456, 789);
        assertEquals(789, buffer.getLong(SegmentHeader.START_TIME_OFFSET));
        assertNull(SegmentHeader.check(buffer, SegmentHeader.MAGIC_DEVICE));
        assertNotNull(SegmentHeader.check(buffer, SegmentHeader.MAGIC_LISTENER));
        buffer.putInt(SegmentHeader.VERSION_OFFSET, 99);
        assertTrue(SegmentHeader.check(buffer, SegmentHeader.MAGIC_DEVICE).contains("version"));
    }

    @Test
    void shouldPinDeviceSegmentAndRegionEntries()
    {
        assertEquals(40, DeviceSegmentDescriptor.FLAGS_OFFSET);
        assertEquals(44, DeviceSegmentDescriptor.TABLE_CAPACITY_OFFSET);
        assertEquals(48, DeviceSegmentDescriptor.CLOSED_OFFSET);
        assertEquals(128, DeviceSegmentDescriptor.HEARTBEAT_OFFSET);
        assertEquals(256, DeviceSegmentDescriptor.TABLE_OFFSET);
        assertEquals(256 + 64 * 3, DeviceSegmentDescriptor.entryOffset(3));
        assertEquals(256 + 64 * 10, DeviceSegmentDescriptor.length(10));
        assertEquals(0, RegionEntryDescriptor.CONTROL_OFFSET);
        assertEquals(8, RegionEntryDescriptor.PD_ID_OFFSET);
        assertEquals(16, RegionEntryDescriptor.ADDRESS_OFFSET);
        assertEquals(24, RegionEntryDescriptor.LENGTH_OFFSET);
        assertEquals(32, RegionEntryDescriptor.FILE_ID_OFFSET);
        assertEquals(40, RegionEntryDescriptor.ACCESS_OFFSET);
        assertEquals(64, RegionEntryDescriptor.LENGTH);
        assertEquals(0, DeviceSegmentDescriptor.HEARTBEAT_OFFSET % BitUtil.CACHE_LINE_LENGTH);
        assertEquals(0, DeviceSegmentDescriptor.TABLE_OFFSET % BitUtil.CACHE_LINE_LENGTH);
    }

    @Test
    void shouldPackRegionControlWord()
    {
        final long control = RegionEntryDescriptor.control(0xDEADBEEF, 0x1234567, RegionEntryDescriptor.STATE_SHARED);
        assertEquals(0xDEADBEEF, RegionEntryDescriptor.rkey(control));
        assertEquals(RegionEntryDescriptor.STATE_SHARED, RegionEntryDescriptor.state(control));
        assertEquals(0x234567, (int)((control >>> 8) & 0xFFFFFF));
        assertEquals(RegionEntryDescriptor.STATE_FREE,
            RegionEntryDescriptor.state(RegionEntryDescriptor.control(-1, 5, RegionEntryDescriptor.STATE_FREE)));
    }

    @Test
    void shouldPinConnectionSegment()
    {
        assertEquals(40, ConnectionSegmentDescriptor.RING_CAPACITY_OFFSET);
        assertEquals(44, ConnectionSegmentDescriptor.STATE_OFFSET);
        assertEquals(48, ConnectionSegmentDescriptor.CONNECTOR_QPN_OFFSET);
        assertEquals(52, ConnectionSegmentDescriptor.ACCEPTOR_QPN_OFFSET);
        assertEquals(56, ConnectionSegmentDescriptor.ACCEPTOR_PID_OFFSET);
        assertEquals(64, ConnectionSegmentDescriptor.ACCEPTOR_DEVICE_ID_OFFSET);
        assertEquals(72, ConnectionSegmentDescriptor.ACCEPTOR_PD_ID_OFFSET);
        assertEquals(80, ConnectionSegmentDescriptor.CONNECTOR_PD_ID_OFFSET);
        assertEquals(88, ConnectionSegmentDescriptor.RESPONSE_LENGTH_OFFSET);
        assertEquals(128, ConnectionSegmentDescriptor.CONTROL_0_OFFSET);
        assertEquals(256, ConnectionSegmentDescriptor.CONTROL_1_OFFSET);
        assertEquals(384, ConnectionSegmentDescriptor.RESPONSE_OFFSET);
        assertEquals(4608, ConnectionSegmentDescriptor.RINGS_OFFSET);
        assertTrue(ConnectionSegmentDescriptor.RESPONSE_OFFSET + ShmConfiguration.MAX_PRIVATE_DATA_LENGTH <=
            ConnectionSegmentDescriptor.RINGS_OFFSET);
        assertEquals(64, ConnectionSegmentDescriptor.ACKED_MSN_OFFSET);
        assertEquals(8, ConnectionSegmentDescriptor.RNR_COUNT_OFFSET);
        assertEquals(16, ConnectionSegmentDescriptor.RNR_MSN_OFFSET);
        assertEquals(24, ConnectionSegmentDescriptor.ERROR_MSN_OFFSET);
        assertEquals(32, ConnectionSegmentDescriptor.ERROR_STATUS_OFFSET);
        assertEquals(36, ConnectionSegmentDescriptor.CLOSED_OFFSET);
        final int capacity = 65536;
        final int ringLength = capacity + RingBufferDescriptor.TRAILER_LENGTH;
        assertEquals(4608, ConnectionSegmentDescriptor.ringOffset(capacity, 0));
        assertEquals(4608 + ringLength, ConnectionSegmentDescriptor.ringOffset(capacity, 1));
        assertEquals(capacity, ConnectionSegmentDescriptor.stagingLength(capacity));
        assertEquals(4608 + 2 * ringLength, ConnectionSegmentDescriptor.stagingOffset(capacity, 0));
        assertEquals(4608 + 2 * ringLength + capacity, ConnectionSegmentDescriptor.stagingOffset(capacity, 1));
        assertEquals(4608 + 2 * ringLength + 2 * capacity, ConnectionSegmentDescriptor.length(capacity));
        assertEquals(0, ConnectionSegmentDescriptor.stagingOffset(capacity, 0) % BitUtil.CACHE_LINE_LENGTH);
        assertEquals(0, ConnectionSegmentDescriptor.ringOffset(capacity, 1) % BitUtil.CACHE_LINE_LENGTH);
    }

    @Test
    void shouldPinFramesAndRequests()
    {
        assertEquals(0, FrameDescriptor.VERSION_OFFSET);
        assertEquals(2, FrameDescriptor.FLAGS_OFFSET);
        assertEquals(4, FrameDescriptor.IMMEDIATE_OFFSET);
        assertEquals(8, FrameDescriptor.MSN_OFFSET);
        assertEquals(16, FrameDescriptor.MESSAGE_LENGTH_OFFSET);
        assertEquals(20, FrameDescriptor.SOURCE_COUNT_OFFSET);
        assertEquals(24, FrameDescriptor.PAYLOAD_OFFSET);
        assertEquals(0, FrameDescriptor.SOURCE_RKEY_OFFSET);
        assertEquals(8, FrameDescriptor.SOURCE_OFFSET_OFFSET);
        assertEquals(16, FrameDescriptor.SOURCE_LENGTH_OFFSET);
        assertEquals(24, FrameDescriptor.SOURCE_LENGTH);
        assertEquals(24, FrameDescriptor.REQUEST_RKEY_OFFSET);
        assertEquals(28, FrameDescriptor.REQUEST_OPCODE_OFFSET);
        assertEquals(32, FrameDescriptor.REQUEST_ADDRESS_OFFSET);
        assertEquals(40, FrameDescriptor.REQUEST_COMPARE_ADD_OFFSET);
        assertEquals(48, FrameDescriptor.REQUEST_SWAP_OFFSET);
        assertEquals(56, FrameDescriptor.REQUEST_PAYLOAD_OFFSET);
        assertEquals(FrameDescriptor.REQUEST_PAYLOAD_OFFSET, FrameDescriptor.REQUEST_HEADER_LENGTH);
        assertEquals(0, FrameDescriptor.REQUEST_PAYLOAD_OFFSET % 8, "payloads stay 8-byte aligned");
        assertEquals(0, ConnectRequestDescriptor.VERSION_OFFSET);
        assertEquals(4, ConnectRequestDescriptor.QPN_OFFSET);
        assertEquals(8, ConnectRequestDescriptor.PID_OFFSET);
        assertEquals(16, ConnectRequestDescriptor.DEVICE_ID_OFFSET);
        assertEquals(24, ConnectRequestDescriptor.CONNECTION_ID_OFFSET);
        assertEquals(32, ConnectRequestDescriptor.PRIVATE_DATA_LENGTH_OFFSET);
        assertEquals(40, ConnectRequestDescriptor.PRIVATE_DATA_OFFSET);
        assertEquals(40, ListenerSegmentDescriptor.RING_CAPACITY_OFFSET);
        assertEquals(44, ListenerSegmentDescriptor.CLOSED_OFFSET);
        assertEquals(128, ListenerSegmentDescriptor.RING_OFFSET);
    }
}
