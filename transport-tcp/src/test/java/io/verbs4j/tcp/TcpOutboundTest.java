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

    private static ByteBuf frame(final int id)
    {
        return Unpooled.buffer(4).writeInt(id);
    }

    private static final class FakeWire implements TcpOutbound.Wire
    {
        final List<Integer> written = new ArrayList<>();
        boolean eventLoop;
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

        public void requestDrain()
        {
            drainRequests++;
        }
    }
}
