// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.ByteBuffer;
import java.util.Random;

import io.verbs4j.shm.protocol.ConnectionSegmentDescriptor;
import io.verbs4j.spi.RegionMemory;
import org.agrona.BufferUtil;
import org.agrona.concurrent.ControlledMessageHandler.Action;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The idle round's looks at a connection segment, from both sides' views of one segment: {@link
 * ShmConnection#hasIncoming()} (the length word at the head of the incoming ring) says yes exactly when the ring
 * holds a committed record, as {@code in.size() > 0} did between claims, through reads and the padding records of
 * many wrap-arounds, and no while the record at the head is only claimed (yes for the committed padding record of a
 * claim that wrapped); the control-block reads see what the peer wrote.
 */
class ShmConnectionTest
{
    private static final int RING_CAPACITY = 1024;
    private static final int TYPE = 1;

    @Test
    void shouldSeeARecordOnlyOnceCommittedAndUntilRead()
    {
        final ShmConnection[] sides = sides();
        final ShmConnection writer = sides[0];
        final ShmConnection reader = sides[1];
        assertFalse(reader.hasIncoming());
        assertFalse(writer.hasIncoming());

        final int index = writer.out.tryClaim(TYPE, 40);
        assertTrue(index >= 0);
        assertFalse(reader.hasIncoming(), "claimed, not committed");
        writer.out.commit(index);
        assertTrue(reader.hasIncoming());
        assertFalse(writer.hasIncoming(), "the writer's own incoming ring is the other one");

        assertEquals(1, reader.in.controlledRead((type, buffer, at, length) -> Action.CONTINUE, 64));
        assertFalse(reader.hasIncoming());
    }

    @Test
    void shouldAgreeWithTheRingSizeThroughWrapArounds()
    {
        final ShmConnection[] sides = sides();
        final OneToOneRingBuffer out = sides[0].out;
        final ShmConnection reader = sides[1];
        final Random random = new Random(13);
        int written = 0;
        for (int step = 0; step < 20_000; step++)
        {
            if (random.nextInt(3) > 0)
            {
                final boolean committedBefore = reader.in.size() > 0;
                final int index = out.tryClaim(TYPE, 1 + random.nextInt(out.maxMsgLength()));
                if (index >= 0)
                {
                    // size() counts the claimed record too. The head look never misses a committed record; with
                    // only a claim waiting it says no, unless the claim wrapped: then Agrona's padding record, which
                    // is committed, sits at the head (a read consumes it, harmlessly).
                    final boolean wrapped = index < (int)(reader.in.consumerPosition() & (RING_CAPACITY - 1));
                    assertEquals(committedBefore || wrapped, reader.hasIncoming(), "step " + step + ", claimed");
                    out.commit(index);
                    written++;
                }
            }
            else
            {
                reader.in.controlledRead((type, buffer, at, length) -> Action.CONTINUE, 1 + random.nextInt(3));
            }
            assertEquals(reader.in.size() > 0, reader.hasIncoming(), "step " + step);
        }
        assertTrue(written > RING_CAPACITY / 8, "the ring wrapped many times: " + written + " records");
    }

    @Test
    void shouldReadThePeersControlBlock()
    {
        final ShmConnection[] sides = sides();
        sides[0].putAcked(41);
        sides[0].putRnrNak(17, 3);
        sides[0].putError(99, 7);
        assertEquals(41, sides[1].peerAckedMsn());
        assertEquals(3, sides[1].peerRnrCount());
        assertEquals(17, sides[1].peerRnrMsn());
        assertEquals(100, sides[1].peerErrorMsnPlusOne());
        assertEquals(7, sides[1].peerErrorStatus());
        assertFalse(sides[1].peerClosed());
        sides[0].putClosed();
        assertTrue(sides[1].peerClosed());
        assertEquals(0, sides[0].peerAckedMsn(), "side 0 reads side 1's block, untouched");
        assertFalse(sides[0].peerClosed());
    }

    private static ShmConnection[] sides()
    {
        final int length = ConnectionSegmentDescriptor.length(RING_CAPACITY);
        final ByteBuffer bytes = BufferUtil.allocateDirectAligned(length, 4096);
        final RegionMemory memory = RegionMemory.contiguous(BufferUtil.address(bytes), length, bytes);
        return new ShmConnection[]{
            new ShmConnection(memory, 0, RING_CAPACITY, null, 1, 2),
            new ShmConnection(memory, 1, RING_CAPACITY, null, 2, 1)};
    }
}
