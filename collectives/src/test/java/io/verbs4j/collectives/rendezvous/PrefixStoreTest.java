// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PrefixStoreTest
{
    @Test
    void shouldSeparateNamespacesOverOneBackend()
    {
        try (InMemoryStore backend = new InMemoryStore())
        {
            final PrefixStore a = new PrefixStore("commA", backend);
            final PrefixStore b = new PrefixStore("commB", backend);
            a.set("rank/0", AbstractRendezvousStoreTest.bytes("A"));
            b.set("rank/0", AbstractRendezvousStoreTest.bytes("B"));
            assertArrayEquals(AbstractRendezvousStoreTest.bytes("A"), a.get("rank/0", Duration.ofSeconds(1)));
            assertArrayEquals(AbstractRendezvousStoreTest.bytes("B"), b.get("rank/0", Duration.ofSeconds(1)));
            assertTrue(backend.check(List.of("commA/rank/0", "commB/rank/0")));
            assertEquals(1, a.add("n", 1));
            assertEquals(1, b.add("n", 1));
            a.close();
            assertThrows(IllegalStateException.class, () -> a.set("k", new byte[0]));
            assertFalse(b.check(List.of("k")), "closing a view leaves the backend and other views open");
        }
    }

    @Test
    void shouldReportMissingKeysWithoutThePrefix()
    {
        try (InMemoryStore backend = new InMemoryStore())
        {
            final PrefixStore view = new PrefixStore("comm", backend);
            final RendezvousTimeoutException ex = assertThrows(RendezvousTimeoutException.class,
                () -> view.waitFor(List.of("x", "y"), Duration.ofMillis(50)));
            assertEquals(List.of("x", "y"), ex.missingKeys());
        }
    }

    @Test
    void shouldRejectEmptyPrefixAndNullDelegate()
    {
        assertThrows(IllegalArgumentException.class, () -> new PrefixStore("", new InMemoryStore()));
        assertThrows(IllegalArgumentException.class, () -> new PrefixStore("p", null));
    }
}
