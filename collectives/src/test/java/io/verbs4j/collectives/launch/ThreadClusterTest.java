// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import io.verbs4j.collectives.rendezvous.StoreExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThreadClusterTest
{
    @Test
    void shouldRunEveryRankWithASharedStore()
    {
        final AtomicInteger completed = new AtomicInteger();
        new ThreadCluster(5, Duration.ofSeconds(20)).run((rank, size, store) ->
        {
            final byte[][] all = new StoreExchange(store)
                .allGather(rank, size, new byte[]{(byte)rank}, Duration.ofSeconds(10));
            for (int r = 0; r < size; r++)
            {
                assertEquals(r, all[r][0]);
            }
            completed.incrementAndGet();
        });
        assertEquals(5, completed.get());
    }

    @Test
    void shouldPropagateTheFirstFailureAndInterruptTheOthers()
    {
        final AtomicInteger interrupted = new AtomicInteger();
        final ClusterFailedException ex = assertThrows(ClusterFailedException.class,
            () -> new ThreadCluster(3, Duration.ofSeconds(20)).run((rank, size, store) ->
            {
                if (2 == rank)
                {
                    throw new IllegalStateException("rank 2 broke");
                }
                try
                {
                    store.get("never-set", Duration.ofSeconds(15));
                }
                catch (final RuntimeException waitFailed)
                {
                    if (Thread.currentThread().isInterrupted())
                    {
                        interrupted.incrementAndGet();
                    }
                    throw waitFailed;
                }
            }));
        assertEquals(2, ex.failedRank());
        assertInstanceOf(IllegalStateException.class, ex.getCause());
        assertTrue(ex.getMessage().contains("rank 2 broke"), ex.getMessage());
        assertEquals(2, interrupted.get(), "the waiting ranks were interrupted");
        assertEquals(2, ex.getSuppressed().length, "their consequential failures are attached");
    }

    @Test
    void shouldTimeOutAndInterruptEveryRank()
    {
        final long startNs = System.nanoTime();
        final ClusterFailedException ex = assertThrows(ClusterFailedException.class,
            () -> new ThreadCluster(2, Duration.ofMillis(200)).run((rank, size, store) -> Thread.sleep(20_000)));
        assertTrue(ex.timedOut());
        assertEquals(-1, ex.failedRank());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) < 5000);
    }

    @Test
    void shouldRejectBadConfiguration()
    {
        assertThrows(IllegalArgumentException.class, () -> new ThreadCluster(0, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new ThreadCluster(1, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new ThreadCluster(1, Duration.ofSeconds(1)).run(null));
    }

}
