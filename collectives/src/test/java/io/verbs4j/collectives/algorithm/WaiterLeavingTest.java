// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import java.util.concurrent.TimeUnit;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.link.MemoryLinks;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The final barrier's waiting: a peer that left (its links gone) fails the wait only if it is the peer waited for;
 * every other wait still fails on any link's failure.
 */
class WaiterLeavingTest
{
    private final MemoryLinks.Mesh mesh = new MemoryLinks.Mesh(3, 2, 64);
    private final Waiter waiter = new Waiter(mesh.links(0), new AdaptiveIdleStrategy(8, 8, 1_000, 1_000),
        TimeUnit.SECONDS.toNanos(30));

    @Test
    void aPeerThatLeftDoesNotFailTheFinalBarrierOfARankWaitingForAnother()
    {
        waiter.begin("barrier", 0, null, null, null);
        mesh.kill(1);
        for (int i = 0; i < 100; i++)
        {
            assertDoesNotThrow(() -> waiter.pollLeaving(2));
        }
    }

    @Test
    void thePeerWaitedForFailsTheFinalBarrierWhenItsLinkFails()
    {
        waiter.begin("barrier", 0, null, null, null);
        mesh.kill(2);
        final CollectiveException ex = assertThrows(CollectiveException.class, () -> waiter.pollLeaving(2));
        assertEquals(CollectiveException.Reason.PEER_FAILED, ex.reason());
    }

    @Test
    void anyFailedLinkStillFailsAnOrdinaryWait()
    {
        waiter.begin("allReduce", 8, null, null, null);
        mesh.kill(1);
        final CollectiveException ex = assertThrows(CollectiveException.class, () -> waiter.poll(2));
        assertEquals(CollectiveException.Reason.PEER_FAILED, ex.reason());
    }
}
