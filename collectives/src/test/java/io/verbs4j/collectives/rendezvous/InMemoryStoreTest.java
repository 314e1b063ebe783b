// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InMemoryStoreTest extends AbstractRendezvousStoreTest
{
    private final InMemoryStore shared = new InMemoryStore();

    @Override
    RendezvousStore newHandle()
    {
        // Threads share the one instance; a view keeps "close the handle" separate from closing the backend.
        return new PrefixStore("ns", shared);
    }

    @Override
    void closeBackend()
    {
        shared.close();
    }

    @Test
    void shouldWakeWaitersOnClose() throws Exception
    {
        final InMemoryStore store = new InMemoryStore();
        final CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                store.get("never", LONG);
                return null;
            }
            catch (final RuntimeException ex)
            {
                return ex;
            }
        });
        Thread.sleep(50);
        store.close();
        assertTrue(waiter.get(5, TimeUnit.SECONDS) instanceof IllegalStateException);
        assertThrows(IllegalStateException.class, () -> store.add("k", 1));
    }
}
