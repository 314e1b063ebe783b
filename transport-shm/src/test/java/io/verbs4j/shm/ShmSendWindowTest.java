// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.ByteBuffer;

import io.verbs4j.Opcode;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.WorkQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The send window alone, without a connection: MSN numbering, what each acknowledgement does, the fragment window,
 * the rewind after an RNR NAK, and the header fields every record shares.
 */
class ShmSendWindowTest
{
    private static final int CAPACITY = 64;

    private final WorkQueue sq = new WorkQueue(true, 8, 1, 0);
    private final ShmSendWindow window = new ShmSendWindow(sq, CAPACITY);

    /** The send side's part of a record: number it, track it. */
    private long send(final long pos, final byte kind, final long arg)
    {
        final long msn = window.nextMsn();
        window.track(msn, pos, kind, arg);
        return msn;
    }

    /** The acknowledgement side's part: take one acknowledgement, as ShmSender.processAcks does. */
    private int takeAck()
    {
        final int slot = window.slot(window.ackedSeen());
        window.ackedOne();
        return slot;
    }

    @Test
    void shouldNumberRecordsInOrderAndPublishHowFarAPeerMayAcknowledge()
    {
        assertEquals(0, window.nextMsn());
        assertEquals(0, window.trackedMsnLimit());
        assertEquals(0, send(10, ShmSendWindow.KIND_COMPLETE, 0));
        assertEquals(1, send(11, ShmSendWindow.KIND_COMPLETE, 0));
        assertEquals(2, window.nextMsn());
        assertEquals(2, window.trackedMsnLimit());
        assertEquals(10, window.posOf(0));
        assertEquals(11, window.posOf(1));
    }

    @Test
    void shouldHandBackPositionKindAndArgumentInMsnOrderAcrossTheWrap()
    {
        for (int round = 0; round < 3; round++)
        {
            for (int i = 0; i < CAPACITY / 2; i++)
            {
                send(round * 1000 + i, 0 == (i & 1) ? ShmSendWindow.KIND_READ_CHUNK : ShmSendWindow.KIND_NONE,
                    i * 4096L);
            }
            for (int i = 0; i < CAPACITY / 2; i++)
            {
                final int slot = takeAck();
                assertEquals(round * 1000 + i, window.posAt(slot));
                assertEquals(0 == (i & 1) ? ShmSendWindow.KIND_READ_CHUNK : ShmSendWindow.KIND_NONE,
                    window.kindAt(slot));
                assertEquals(i * 4096L, window.argAt(slot));
            }
        }
        assertEquals(3L * CAPACITY / 2, window.ackedSeen());
        assertEquals(window.ackedSeen(), window.ackedSeenAcquire());
    }

    @Test
    void shouldCloseTheWindowAtFragmentWindowUnacknowledgedRecordsAndReopenOnAnAcknowledgement()
    {
        for (int i = 0; i < ShmSendWindow.FRAGMENT_WINDOW; i++)
        {
            assertTrue(window.windowOpen(), "record " + i);
            send(0, ShmSendWindow.KIND_NONE, 0);
        }
        assertFalse(window.windowOpen());
        takeAck();
        assertTrue(window.windowOpen());
    }

    @Test
    void shouldRewindToTheRefusedMsnWithoutLoweringWhatAPeerMayAcknowledge()
    {
        send(5, ShmSendWindow.KIND_COMPLETE, 0);
        send(6, ShmSendWindow.KIND_COMPLETE, 0);
        send(7, ShmSendWindow.KIND_COMPLETE, 0);
        takeAck();

        assertEquals(6, window.rewind(1), "the pump restarts at the refused record's request");
        assertEquals(1, window.nextMsn());
        assertEquals(3, window.trackedMsnLimit(), "a peer may still acknowledge what it saw before the NAK");

        assertEquals(1, send(6, ShmSendWindow.KIND_COMPLETE, 0));
        assertEquals(2, window.nextMsn());
        assertEquals(3, window.trackedMsnLimit());
        assertEquals(2, send(7, ShmSendWindow.KIND_COMPLETE, 0));
        assertEquals(3, window.trackedMsnLimit());
        assertEquals(3, send(8, ShmSendWindow.KIND_COMPLETE, 0));
        assertEquals(4, window.trackedMsnLimit());
    }

    @Test
    void shouldStartAfreshOnReset()
    {
        send(1, ShmSendWindow.KIND_COMPLETE, 0);
        send(2, ShmSendWindow.KIND_COMPLETE, 0);
        takeAck();
        window.reset();
        assertEquals(0, window.nextMsn());
        assertEquals(0, window.trackedMsnLimit());
        assertEquals(0, window.ackedSeen());
        assertEquals(0, window.ackedSeenAcquire());
    }

    @Test
    void shouldWriteTheSharedHeaderOfARequestRecordNumberedByTheNextMsn()
    {
        send(0, ShmSendWindow.KIND_COMPLETE, 0);
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        buffer.setMemory(0, 256, (byte)0x5A);
        final int index = 64;

        final long msn = window.putRequest(buffer, index, 3, FrameDescriptor.FLAG_FIRST, 4096, 0x1000L,
            Opcode.ATOMIC_CMP_AND_SWP, 11, 12);

        assertEquals(1, msn);
        assertEquals(1, window.nextMsn(), "numbered, not tracked: the caller tracks it before the commit");
        assertEquals(SegmentHeader.VERSION, buffer.getShort(index + FrameDescriptor.VERSION_OFFSET));
        assertEquals(FrameDescriptor.FLAG_FIRST, buffer.getShort(index + FrameDescriptor.FLAGS_OFFSET));
        assertEquals(0, buffer.getInt(index + FrameDescriptor.IMMEDIATE_OFFSET));
        assertEquals(1, buffer.getLong(index + FrameDescriptor.MSN_OFFSET));
        assertEquals(4096, buffer.getInt(index + FrameDescriptor.MESSAGE_LENGTH_OFFSET));
        assertEquals(0, buffer.getInt(index + FrameDescriptor.SOURCE_COUNT_OFFSET));
        assertEquals(sq.rkey(3), buffer.getInt(index + FrameDescriptor.REQUEST_RKEY_OFFSET));
        assertEquals(Opcode.ATOMIC_CMP_AND_SWP, buffer.getInt(index + FrameDescriptor.REQUEST_OPCODE_OFFSET));
        assertEquals(0x1000L, buffer.getLong(index + FrameDescriptor.REQUEST_ADDRESS_OFFSET));
        assertEquals(11, buffer.getLong(index + FrameDescriptor.REQUEST_COMPARE_ADD_OFFSET));
        assertEquals(12, buffer.getLong(index + FrameDescriptor.REQUEST_SWAP_OFFSET));
        assertEquals((byte)0x5A, buffer.getByte(index - 1), "nothing written before the record");
    }

    @Test
    void shouldWriteTheSharedHeaderOfAMessageRecordWithTheImmediateFlagOfItsOpcode()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        assertEquals(0, window.putMessageHeader(buffer, 0, 2, Opcode.SEND_WITH_IMM, 100));
        assertEquals(SegmentHeader.VERSION, buffer.getShort(FrameDescriptor.VERSION_OFFSET));
        assertEquals(FrameDescriptor.FLAG_WITH_IMM, buffer.getShort(FrameDescriptor.FLAGS_OFFSET));
        assertEquals(sq.immediateData(2), buffer.getInt(FrameDescriptor.IMMEDIATE_OFFSET));
        assertEquals(0, buffer.getLong(FrameDescriptor.MSN_OFFSET));
        assertEquals(100, buffer.getInt(FrameDescriptor.MESSAGE_LENGTH_OFFSET));

        assertEquals(0, window.putMessageHeader(buffer, 128, 2, Opcode.SEND, 7));
        assertEquals(0, buffer.getShort(128 + FrameDescriptor.FLAGS_OFFSET));
    }

    @Test
    void shouldWidenACarriedAcknowledgementToTheNearestMsnAboveWhatWasTaken()
    {
        for (int i = 0; i < 5; i++)
        {
            send(i, ShmSendWindow.KIND_COMPLETE, 0);
        }
        assertEquals(0, window.widenAck(0), "nothing new");
        assertEquals(3, window.widenAck(3));
        takeAck();
        takeAck();
        assertEquals(2, window.widenAck(1), "older than what was taken: nothing new");
        assertEquals(5, window.widenAck(5));
    }

    @Test
    void shouldWidenAcrossThe32BitWrapOfTheCarriedValue()
    {
        // 2^32 - 2 acknowledgements taken (as if): the carried low bits wrap to small numbers.
        final long base = (1L << 32) - 2;
        final ShmSendWindow far = new ShmSendWindow(sq, CAPACITY);
        for (long i = 0; i < 4; i++)
        {
            far.track(far.nextMsn(), i, ShmSendWindow.KIND_COMPLETE, 0);
        }
        setAckedSeen(far, base);
        assertEquals(base + 3, far.widenAck((int)(base + 3)), "low bits 1, past the wrap");
        assertEquals(base, far.widenAck((int)(base - 1)), "one below: nothing new");
    }

    private static void setAckedSeen(final ShmSendWindow window, final long value)
    {
        try
        {
            final java.lang.reflect.Field field = ShmSendWindow.class.getDeclaredField("ackedSeen");
            field.setAccessible(true);
            field.setLong(window, value);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new AssertionError(ex);
        }
    }
}
