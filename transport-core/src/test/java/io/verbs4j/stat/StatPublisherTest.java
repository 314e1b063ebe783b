// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatPublisherTest
{
    @TempDir
    Path dir;

    @Test
    void shouldWriteTheRegisteredGroupsUntilClosedThenDeleteTheFile() throws Exception
    {
        final AtomicLong sent = new AtomicLong(10);
        final StatPublisher publisher = StatRegistry.publishTo(dir, Duration.ofHours(1));
        try (StatRegistry.Registration registration = StatRegistry.register("test group " + System.nanoTime(),
            sink ->
            {
                sink.counter("messages sent", sent.get());
                sink.counter("messages lost", 0);
            }))
        {
            publisher.publishNow();
            assertEquals(List.of(new StatSnapshot.Counter(registration.group(), "messages sent", 10),
                new StatSnapshot.Counter(registration.group(), "messages lost", 0)), mine(publisher, registration));
            final StatSnapshot snapshot = StatFile.read(publisher.file());
            assertEquals(ProcessHandle.current().pid(), snapshot.pid());

            sent.set(11);
            publisher.publishNow();
            assertEquals(11, mine(publisher, registration).get(0).value());

            registration.close();
            publisher.publishNow();
            assertTrue(mine(publisher, registration).isEmpty());
        }
        finally
        {
            publisher.close();
        }
        assertFalse(Files.exists(publisher.file()));
    }

    @Test
    void shouldLookInTheConfiguredDirectory()
    {
        final String before = System.getProperty(StatRegistry.DIR_PROP_NAME);
        System.setProperty(StatRegistry.DIR_PROP_NAME, dir.toString());
        try
        {
            assertEquals(dir, StatRegistry.defaultDirectory());
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(StatRegistry.DIR_PROP_NAME);
            }
            else
            {
                System.setProperty(StatRegistry.DIR_PROP_NAME, before);
            }
        }
    }

    private static List<StatSnapshot.Counter> mine(final StatPublisher publisher,
        final StatRegistry.Registration registration) throws Exception
    {
        return StatFile.read(publisher.file()).counters().stream()
            .filter(c -> c.group().equals(registration.group())).toList();
    }
}
