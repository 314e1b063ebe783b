// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreExchangeTest
{
    @Test
    void aTimeoutNamesTheRanksThatNeverJoined()
    {
        final InMemoryStore store = new InMemoryStore();
        store.set("exchange/0/0", bytes("zero")); // rank 0 joined; ranks 2 and 3 never start
        final RendezvousTimeoutException ex = assertThrows(RendezvousTimeoutException.class,
            () -> new StoreExchange(store).allGather(1, 4, bytes("one"), Duration.ofMillis(200)));
        assertTrue(ex.getMessage().startsWith("rank 1 of 4: ranks [2, 3] have not joined the rendezvous within " +
            "200 ms (2 of 4 ranks joined;"), ex.getMessage());
        assertTrue(ex.getMessage().contains("Check that every rank was started"), ex.getMessage());
        assertEquals(2, ex.missingKeys().size());
    }

    @Test
    void everyRankGetsEveryContribution() throws Exception
    {
        final InMemoryStore store = new InMemoryStore();
        final CompletableFuture<byte[][]> other = CompletableFuture.supplyAsync(
            () -> new StoreExchange(store).allGather(1, 2, bytes("b"), Duration.ofSeconds(10)));
        final byte[][] mine = new StoreExchange(store).allGather(0, 2, bytes("a"), Duration.ofSeconds(10));
        assertArrayEquals(bytes("a"), mine[0]);
        assertArrayEquals(bytes("b"), mine[1]);
        assertArrayEquals(bytes("a"), other.get(10, TimeUnit.SECONDS)[0]);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
