// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three ranks' flag regions in this process, with a hand-driven clock: ranks that tick while they wait keep each
 * other fresh, and the one that stopped ticking (SIGSTOP, a hang) is the one every other rank names, however long
 * they have all been waiting.
 */
class FlagHeartbeatsTest
{
    private static final int RANKS = 3;
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final FlagSlotLayout layout = new FlagSlotLayout(4, 64);
    private final ByteBuffer[] regions = new ByteBuffer[RANKS];
    private final FlagHeartbeats[] heartbeats = new FlagHeartbeats[RANKS];

    @BeforeEach
    void linkThreeRanks()
    {
        for (int r = 0; r < RANKS; r++)
        {
            regions[r] = ByteBuffer.allocateDirect((int)layout.regionBytes(RANKS));
        }
        final PeerLink verbs = new MemoryLinks.Mesh(2, 1, 8).links(0).link(1);
        for (int r = 0; r < RANKS; r++)
        {
            final long base = BufferUtil.address(regions[r]);
            final FlagPeerLink[] links = new FlagPeerLink[RANKS];
            for (int p = 0; p < RANKS; p++)
            {
                if (p != r)
                {
                    // rank r writes its area of rank p's region; it reads rank p's area of its own
                    final LocalRemoteMemory view = new LocalRemoteMemory(
                        BufferUtil.address(regions[p]) + layout.areaOffset(r), (int)layout.areaBytes());
                    links[p] = new FlagPeerLink(p, layout, verbs, view,
                        new MemView().wrapNative(base, layout.regionBytes(RANKS)), base);
                }
            }
            heartbeats[r] = new FlagHeartbeats(links, 0);
        }
    }

    @Test
    void shouldNameTheRankThatStoppedTickingOnEveryOtherRank()
    {
        // All three wait and tick for 100 ms, then rank 1 stops; ranks 0 and 2 wait on for 3 s.
        long now = 0;
        for (; now < 100 * MS; now += MS)
        {
            tick(now, 0, 1, 2);
        }
        for (; now < 3_100 * MS; now += MS)
        {
            tick(now, 0, 2);
        }
        for (final int survivor : new int[]{0, 2})
        {
            assertEquals(1, heartbeats[survivor].silentPeer(now, 1_000 * MS), "rank " + survivor + " blames rank 1");
            assertTrue(heartbeats[survivor].silenceNs(1, now) >= 3_000 * MS);
            final int other = 2 - survivor;
            assertTrue(heartbeats[survivor].silenceNs(other, now) <= 2 * MS, "a waiting rank stays fresh");
        }
        assertEquals(-1, heartbeats[0].silenceNs(0, now), "a rank does not watch itself");
    }

    @Test
    void shouldBlameNobodyWhileEveryRankTicks()
    {
        long now = 0;
        for (; now < 5_000 * MS; now += MS)
        {
            tick(now, 0, 1, 2);
        }
        for (int r = 0; r < RANKS; r++)
        {
            assertEquals(-1, heartbeats[r].silentPeer(now, 1_000 * MS));
        }
    }

    @Test
    void shouldBlameTheLongestSilentWhenTwoStopped()
    {
        long now = 0;
        for (; now < 100 * MS; now += MS)
        {
            tick(now, 0, 1, 2);
        }
        for (; now < 600 * MS; now += MS)
        {
            tick(now, 0, 1);
        }
        for (; now < 3_000 * MS; now += MS)
        {
            tick(now, 0);
        }
        assertEquals(2, heartbeats[0].silentPeer(now, 1_000 * MS), "rank 2 stopped first");
    }

    private void tick(final long now, final int... ranks)
    {
        for (final int r : ranks)
        {
            heartbeats[r].tick(now);
        }
    }
}
