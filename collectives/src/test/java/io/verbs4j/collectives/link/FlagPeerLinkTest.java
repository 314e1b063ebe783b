// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flag-link invariants, with two ranks' flag regions in this process: messages arrive whole, in order and
 * exactly once across slot reuse; a sender never has more than {@code slots} unconsumed messages; a reused slot is
 * never mistaken for a new message; a failed link sends nothing.
 */
@Timeout(60)
class FlagPeerLinkTest
{
    private static final int SLOTS = 4;
    private static final int SLOT_BYTES = 64;

    private final FlagSlotLayout layout = new FlagSlotLayout(SLOTS, SLOT_BYTES);
    private final ByteBuffer region0 = ByteBuffer.allocateDirect((int)layout.regionBytes(2));
    private final ByteBuffer region1 = ByteBuffer.allocateDirect((int)layout.regionBytes(2));
    private final ByteBuffer source = ByteBuffer.allocateDirect(SLOT_BYTES);
    private final MemView sourceView = new MemView().wrapNative(BufferUtil.address(source), SLOT_BYTES);
    private LocalRemoteMemory view01;
    private FlagPeerLink zeroToOne;
    private FlagPeerLink oneFromZero;

    @BeforeEach
    void link()
    {
        final long base0 = BufferUtil.address(region0);
        final long base1 = BufferUtil.address(region1);
        view01 = new LocalRemoteMemory(base1 + layout.areaOffset(0), (int)layout.areaBytes());
        final LocalRemoteMemory view10 = new LocalRemoteMemory(base0 + layout.areaOffset(1), (int)layout.areaBytes());
        final PeerLink healthy = new MemoryLinks.Mesh(2, 1, 8).links(0).link(1);
        zeroToOne = new FlagPeerLink(1, layout, healthy, view01,
            new MemView().wrapNative(base0, layout.regionBytes(2)), base0);
        oneFromZero = new FlagPeerLink(0, layout, healthy, view10,
            new MemView().wrapNative(base1, layout.regionBytes(2)), base1);
    }

    @Test
    void shouldDeliverInOrderAcrossSlotReuseWithLengths()
    {
        final SplittableRandom random = new SplittableRandom(7);
        for (int m = 0; m < 10 * SLOTS; m++)
        {
            final int length = 0 == m % 5 ? 0 : 1 + random.nextInt(SLOT_BYTES);
            fill(m, length);
            assertFalse(oneFromZero.hasMessage(), "message " + m + " seen before it was sent");
            assertTrue(zeroToOne.trySend(sourceView, 0, length));
            assertEquals(m, zeroToOne.lastSendSeq());
            assertTrue(zeroToOne.isSendComplete(m));
            assertTrue(oneFromZero.hasMessage());
            assertEquals(length, oneFromZero.messageLength());
            check(oneFromZero, m, length);
            oneFromZero.release();
            assertFalse(oneFromZero.hasMessage(), "a consumed slot must not look like a new message");
        }
    }

    @Test
    void shouldNeverHaveMoreThanSlotsUnconsumed()
    {
        for (int m = 0; m < SLOTS; m++)
        {
            fill(m, 8);
            assertTrue(zeroToOne.trySend(sourceView, 0, 8));
        }
        fill(SLOTS, 8);
        assertFalse(zeroToOne.trySend(sourceView, 0, 8), "no free slot: the peer consumed nothing");
        check(oneFromZero, 0, 8);
        oneFromZero.release();
        assertTrue(zeroToOne.trySend(sourceView, 0, 8), "one slot handed back");
        for (int m = 1; m <= SLOTS; m++)
        {
            assertTrue(oneFromZero.hasMessage());
            check(oneFromZero, m, 8);
            oneFromZero.release();
        }
        assertFalse(oneFromZero.hasMessage());
    }

    @Test
    void shouldSendNothingOnceFailed()
    {
        zeroToOne.fail();
        assertTrue(zeroToOne.isFailed());
        assertFalse(zeroToOne.trySend(sourceView, 0, 8));
        assertFalse(oneFromZero.hasMessage());
        assertTrue(zeroToOne.peerMemoryValid());
        view01.invalidate();
        assertFalse(zeroToOne.peerMemoryValid());
    }

    @Test
    void shouldStreamBetweenThreadsWithoutLossOrReordering() throws Exception
    {
        final int messages = 200_000;
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final Thread receiver = new Thread(() ->
        {
            try
            {
                for (int m = 0; m < messages; m++)
                {
                    while (!oneFromZero.hasMessage())
                    {
                        Thread.onSpinWait();
                    }
                    final int length = oneFromZero.messageLength();
                    if (length != lengthOf(m))
                    {
                        throw new AssertionError("message " + m + " length " + length);
                    }
                    final long at = oneFromZero.inbox().nativeAddress(oneFromZero.messageOffset());
                    for (int i = 0; i < length; i += 8)
                    {
                        final long word = UnsafeApi.getLong(at + i);
                        if (word != m * 1_000_003L + i)
                        {
                            throw new AssertionError("message " + m + " word " + i + " = " + word);
                        }
                    }
                    oneFromZero.release();
                }
            }
            catch (final Throwable t)
            {
                error.set(t);
            }
        });
        receiver.start();
        final long address = BufferUtil.address(source);
        for (int m = 0; m < messages && receiver.isAlive(); m++)
        {
            final int length = lengthOf(m);
            for (int i = 0; i < length; i += 8)
            {
                UnsafeApi.putLong(address + i, m * 1_000_003L + i);
            }
            while (!zeroToOne.trySend(sourceView, 0, length))
            {
                Thread.onSpinWait();
            }
        }
        receiver.join();
        assertNull(error.get());
    }

    private static int lengthOf(final int m)
    {
        return 8 * (m % (SLOT_BYTES / 8 + 1));
    }

    private void fill(final int m, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            source.put(i, (byte)(m * 31 + i));
        }
    }

    private static void check(final FlagPeerLink link, final int m, final int length)
    {
        final long at = link.inbox().nativeAddress(link.messageOffset());
        for (int i = 0; i < length; i++)
        {
            assertEquals((byte)(m * 31 + i), UnsafeApi.getByte(at + i), "message " + m + " byte " + i);
        }
    }
}
