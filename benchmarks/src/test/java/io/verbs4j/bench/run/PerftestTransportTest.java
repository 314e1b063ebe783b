// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerftestTransportTest
{
    @Test
    void shouldGiveEveryRowAUniqueNameThatFindsItAgain()
    {
        final Set<String> seen = new HashSet<>();
        for (final PerftestTransport row : PerftestTransport.values())
        {
            final String name = row.transportName();
            assertTrue(name.matches("[a-z][a-z0-9-]*"), "a -T name without spaces or commas: " + name);
            assertTrue(seen.add(name), "duplicate name " + name);
            assertSame(row, PerftestTransport.find(name));
            assertTrue(!row.description().isBlank(), name + " has a description");
        }
        assertEquals(PerftestTransport.values().length, PerftestTransport.names().size());
    }

    @Test
    void shouldFindNothingForAnUnknownName()
    {
        assertNull(PerftestTransport.find("verbs-shm-write"));
    }

    @Test
    void shouldNameTheEventLoopInTheNettyDescription()
    {
        final String description = PerftestTransport.NETTY.description();

        assertTrue(description.startsWith("plain Netty epoll ") || description.startsWith("plain Netty NIO "),
            description);
    }
}
