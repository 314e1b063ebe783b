// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link RendezvousStore} contract, run against every implementation. Subclasses supply handles that share one
 * backend (as different ranks would) and release everything in {@link #closeBackend()}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
abstract class AbstractRendezvousStoreTest
{
    static final Duration SHORT = Duration.ofMillis(150);
    static final Duration LONG = Duration.ofSeconds(10);

    private final List<RendezvousStore> handles = new ArrayList<>();
    private ExecutorService executor;

    /** A new handle on the shared backend, as another rank would open it. */
    abstract RendezvousStore newHandle();

    /** Releases the backend (server, directory) after the handles are closed. */
    abstract void closeBackend() throws Exception;

    RendezvousStore handle()
    {
        final RendezvousStore store = newHandle();
        handles.add(store);
        return store;
    }

    ExecutorService executor()
    {
        if (null == executor)
        {
            executor = Executors.newFixedThreadPool(4);
        }
        return executor;
    }

    @AfterEach
    void releaseEverything() throws Exception
    {
        if (null != executor)
        {
            executor.shutdownNow();
            executor.awaitTermination(5, TimeUnit.SECONDS);
        }
        for (final RendezvousStore store : handles)
        {
            store.close();
        }
        closeBackend();
    }

    @Test
    void shouldGetWhatAnotherHandleSet()
    {
        final RendezvousStore a = handle();
        final RendezvousStore b = handle();
        final byte[] value = bytes("address-of-rank-0");
        a.set("addr/0", value);
        value[0] = 'X'; // the store must have copied it
        assertArrayEquals(bytes("address-of-rank-0"), b.get("addr/0", LONG));
        a.set("addr/0", new byte[0]);
        assertArrayEquals(new byte[0], b.get("addr/0", LONG), "overwrite, empty value allowed");
    }

    @Test
    void shouldBlockUntilKeyIsSet() throws Exception
    {
        final RendezvousStore waiter = handle();
        final RendezvousStore writer = handle();
        final Future<byte[]> pending = executor().submit(() -> waiter.get("late", LONG));
        Thread.sleep(50);
        assertFalse(pending.isDone(), "get must wait for the key");
        writer.set("late", bytes("here"));
        assertArrayEquals(bytes("here"), pending.get(10, TimeUnit.SECONDS));
    }

    @Test
    void shouldTimeOutNamingTheMissingKey()
    {
        final RendezvousStore store = handle();
        final long startNs = System.nanoTime();
        final RendezvousTimeoutException ex =
            assertThrows(RendezvousTimeoutException.class, () -> store.get("never", SHORT));
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertEquals(List.of("never"), ex.missingKeys());
        assertTrue(ex.getMessage().contains("never"), ex.getMessage());
        assertTrue(elapsedMs >= 140 && elapsedMs < 5000, "waited " + elapsedMs + " ms for a 150 ms timeout");
    }

    @Test
    void shouldWaitForAllKeysAndNameOnlyTheMissingOnes()
    {
        final RendezvousStore store = handle();
        store.set("k0", bytes("0"));
        store.set("k2", bytes("2"));
        final RendezvousTimeoutException ex = assertThrows(
            RendezvousTimeoutException.class, () -> store.waitFor(List.of("k0", "k1", "k2", "k3"), SHORT));
        assertEquals(List.of("k1", "k3"), ex.missingKeys());
        store.set("k1", bytes("1"));
        store.set("k3", bytes("3"));
        store.waitFor(List.of("k0", "k1", "k2", "k3"), LONG);
        assertTrue(store.check(List.of("k0", "k3")));
        assertFalse(store.check(List.of("k0", "k4")));
    }

    @Test
    void shouldAddAtomicallyFromManyThreads() throws Exception
    {
        final int threads = 4;
        final int addsPerThread = 25;
        final List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final RendezvousStore store = handle();
            futures.add(executor().submit(() ->
            {
                for (int i = 0; i < addsPerThread; i++)
                {
                    store.add("counter", 1);
                }
                return null;
            }));
        }
        for (final Future<?> future : futures)
        {
            future.get(20, TimeUnit.SECONDS);
        }
        final RendezvousStore reader = handle();
        assertEquals(threads * addsPerThread, reader.add("counter", 0));
        assertEquals(threads * addsPerThread - 10, reader.add("counter", -10));
        assertArrayEquals(bytes(Integer.toString(threads * addsPerThread - 10)), reader.get("counter", LONG),
            "counters are stored as ASCII decimal");
    }

    @Test
    void shouldRejectAddOnNonCounter()
    {
        final RendezvousStore store = handle();
        store.set("text", bytes("hello"));
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> store.add("text", 1));
        assertTrue(ex.getMessage().contains("text"), ex.getMessage());
        store.set("still-works", bytes("yes"));
        assertArrayEquals(bytes("yes"), store.get("still-works", LONG));
    }

    @Test
    void shouldDelete()
    {
        final RendezvousStore store = handle();
        store.set("gone", bytes("x"));
        assertTrue(store.delete("gone"));
        assertFalse(store.delete("gone"));
        assertFalse(store.check(List.of("gone")));
    }

    @Test
    void shouldRejectInvalidArguments()
    {
        final RendezvousStore store = handle();
        assertThrows(IllegalArgumentException.class, () -> store.set("", bytes("v")));
        assertThrows(IllegalArgumentException.class, () -> store.set(null, bytes("v")));
        assertThrows(IllegalArgumentException.class, () -> store.set("k", null));
        assertThrows(IllegalArgumentException.class, () -> store.set("a\0b", bytes("v")));
        assertThrows(IllegalArgumentException.class, () -> store.set("k".repeat(2000), bytes("v")));
        assertThrows(IllegalArgumentException.class, () -> store.get("k", Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> store.waitFor(List.of(), LONG));
    }

    @Test
    void shouldAcceptKeysWithAnyCharacters()
    {
        final RendezvousStore store = handle();
        final String key = "comm/0/../ü € %2F \\ long-" + "x".repeat(300);
        store.set(key, bytes("odd"));
        assertArrayEquals(bytes("odd"), handle().get(key, LONG));
        store.set("comm/0/%2E%2E", bytes("other"));
        assertArrayEquals(bytes("odd"), store.get(key, LONG), "distinct keys stay distinct");
    }

    @Test
    void shouldFailCallsAfterClose()
    {
        final RendezvousStore store = newHandle();
        store.close();
        store.close();
        assertThrows(IllegalStateException.class, () -> store.set("k", bytes("v")));
    }

    @Test
    void shouldAllGatherThroughStoreExchangeRepeatedly() throws Exception
    {
        final int size = 3;
        final List<Future<byte[][][]>> futures = new ArrayList<>();
        for (int r = 0; r < size; r++)
        {
            final int rank = r;
            final StoreExchange exchange = new StoreExchange(new PrefixStore("group", handle()));
            futures.add(executor().submit(() -> new byte[][][]{
                exchange.allGather(rank, size, bytes("r" + rank + "a"), LONG),
                exchange.allGather(rank, size, bytes("r" + rank + "b"), LONG)}));
        }
        for (final Future<byte[][][]> future : futures)
        {
            final byte[][][] rounds = future.get(20, TimeUnit.SECONDS);
            for (int r = 0; r < size; r++)
            {
                assertArrayEquals(bytes("r" + r + "a"), rounds[0][r]);
                assertArrayEquals(bytes("r" + r + "b"), rounds[1][r]);
            }
        }
        assertFalse(handle().check(List.of("group/exchange/0/0")), "finished rounds are deleted");
        assertFalse(handle().check(List.of("group/exchange/1/done")), "finished rounds are deleted");
    }

    static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
