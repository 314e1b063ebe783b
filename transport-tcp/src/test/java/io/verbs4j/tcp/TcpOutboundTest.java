// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TcpOutboundTest
{
    private final FakeWire wire = new FakeWire();
    private final TcpOutbound outbound = new TcpOutbound(wire);

    @Test
    void shouldHandFramesWrittenOnTheEventLoopStraightToNetty()
    {
        wire.eventLoop = true;
        outbound.write(frame(1));
        outbound.write(frame(2));
        assertEquals(List.of(1, 2), wire.written);
        assertEquals(0, wire.flushes);
        outbound.flush();
        assertEquals(1, wire.flushes);
        assertEquals(0, wire.drainRequests);
        assertTrue(outbound.isEmpty());
    }

    @Test
    void shouldKeepFramesOfOtherThreadsUntilTheEventLoopDrainsThem()
    {
        outbound.write(frame(1));
        outbound.write(frame(2));
        assertEquals(List.of(), wire.written, "a write off the event loop must not reach Netty (it would be a task)");
        assertFalse(outbound.isEmpty());
        assertEquals(2, outbound.size());
        outbound.flush();
        assertEquals(1, wire.drainRequests);
        assertEquals(0, wire.flushes);
        wire.eventLoop = true;
        assertEquals(2, outbound.drain());
        assertEquals(List.of(1, 2), wire.written);
        assertTrue(outbound.isEmpty());
    }

    @Test
    void shouldPutWhatOtherThreadsProducedBeforeTheEventLoopsOwnFrames()
    {
        // Polling mode: the application's poll answers READ 196 (its response waits here); then the event loop's
        // backstop reads more requests and acknowledges them up to 255. The ACK must not overtake the response.
        outbound.write(frame(196));
        outbound.write(frame(197));
        wire.eventLoop = true;
        outbound.write(frame(255));
        outbound.flush();
        assertEquals(List.of(196, 197, 255), wire.written);
        assertEquals(1, wire.flushes);
    }

    @Test
    void shouldAskForADrainOnlyWhenSomethingWaits()
    {
        outbound.flush();
        assertEquals(0, wire.drainRequests);
        outbound.write(frame(1));
        outbound.flush();
        assertEquals(1, wire.drainRequests);
    }

    @Test
    void shouldKeepTheOrderWhenTheQueueGrows()
    {
        final int count = TcpOutbound.INITIAL_CAPACITY * 5 + 3;
        final List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            outbound.write(frame(i));
            expected.add(i);
            if (i == TcpOutbound.INITIAL_CAPACITY / 2)
            {
                // Move head off zero so that growth has to unwrap the ring.
                wire.eventLoop = true;
                outbound.drain();
                wire.eventLoop = false;
            }
        }
        wire.eventLoop = true;
        outbound.flush();
        assertEquals(expected, wire.written);
    }

    @Test
    void shouldReleaseWaitingAndLaterFramesOnceClosed()
    {
        final ByteBuf waiting = frame(1);
        final ByteBuf late = frame(2);
        outbound.write(waiting);
        outbound.close();
        assertEquals(0, waiting.refCnt(), "a waiting frame pins registered memory until released");
        outbound.write(late);
        assertEquals(0, late.refCnt());
        wire.eventLoop = true;
        outbound.flush();
        assertEquals(List.of(), wire.written);
    }

    @Test
    void shouldLetADirectWriteGoOnlyWhenTheNextBytesOnTheSocketStartAFrame()
    {
        assertTrue(outbound.mayWriteDirect());
        wire.nettyIdle = false;
        assertFalse(outbound.mayWriteDirect(), "Netty still holds bytes: they would be overtaken");
        wire.nettyIdle = true;
        outbound.write(frame(1));
        assertFalse(outbound.mayWriteDirect(), "a queued frame would be overtaken");
        wire.eventLoop = true;
        outbound.flush();
        wire.eventLoop = false;
        assertTrue(outbound.mayWriteDirect());
        outbound.close();
        assertFalse(outbound.mayWriteDirect());
    }

    @Test
    void shouldPutTheRestOfAHalfWrittenFrameBeforeEveryLaterFrame()
    {
        // A poster's writev took the first half of frame 7; until the rest is queued, no direct write may go and the
        // event loop may not drain; then the rest goes before frames of every other writer.
        outbound.directWriteTookPart();
        assertFalse(outbound.mayWriteDirect(), "another writer's frame would land inside frame 7");
        outbound.write(frame(7));
        outbound.remainderQueued();
        assertFalse(outbound.mayWriteDirect(), "the rest of frame 7 waits");
        wire.eventLoop = true;
        outbound.write(frame(8));
        outbound.flush();
        assertEquals(List.of(7, 8), wire.written);
        wire.eventLoop = false;
        assertTrue(outbound.mayWriteDirect());
    }

    @Test
    void shouldRefuseToDrainWhileTheRestOfAHalfWrittenFrameIsMissing()
    {
        outbound.write(frame(1));
        outbound.directWriteTookPart();
        wire.eventLoop = true;
        assertThrows(IllegalStateException.class, outbound::drain);
        assertEquals(List.of(), wire.written);
    }

    @Test
    void shouldForgetAHalfWrittenFrameOnceClosed()
    {
        outbound.directWriteTookPart();
        outbound.close();
        wire.eventLoop = true;
        assertEquals(0, outbound.drain());
    }

    private static ByteBuf frame(final int id)
    {
        return Unpooled.buffer(4).writeInt(id);
    }

    private static final class FakeWire implements TcpOutbound.Wire
    {
        final List<Integer> written = new ArrayList<>();
        boolean eventLoop;
        boolean nettyIdle = true;
        int flushes;
        int drainRequests;

        public boolean inEventLoop()
        {
            return eventLoop;
        }

        public void write(final ByteBuf frame)
        {
            assertTrue(eventLoop, "Netty is written on the event loop only");
            written.add(frame.getInt(0));
            frame.release();
        }

        public void flush()
        {
            flushes++;
        }

        public boolean nettyIdle()
        {
            return nettyIdle;
        }

        public void requestDrain()
        {
            drainRequests++;
        }
    }
}
