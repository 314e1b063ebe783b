// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.stat.StatFile;
import io.verbs4j.stat.StatPublisher;
import io.verbs4j.stat.StatRegistry;
import io.verbs4j.stat.StatSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tcp device's counters appear in the counters file while it is open, and leave it when it closes. */
class TcpStatTest
{
    @TempDir
    Path dir;

    @Test
    void shouldPublishEveryCounterOfAnOpenDevice() throws Exception
    {
        try (StatPublisher publisher = StatRegistry.publishTo(dir, Duration.ofHours(1)))
        {
            final Set<String> groups;
            try (TcpPair pair = new TcpPair())
            {
                publisher.publishNow();
                final List<StatSnapshot.Counter> counters = StatFile.read(publisher.file()).counters();
                groups = counters.stream().map(StatSnapshot.Counter::group).filter(g -> g.startsWith("tcp device "))
                    .collect(Collectors.toSet());
                assertTrue(groups.size() >= 2, counters::toString);
                final String group = groups.iterator().next();
                final List<String> labels = counters.stream().filter(c -> c.group().equals(group))
                    .map(StatSnapshot.Counter::label).toList();
                assertEquals(TcpCounter.values().length, labels.size(), labels::toString);
                assertTrue(labels.contains(TcpCounter.RNR_RETRIES.label()), labels::toString);
                assertTrue(labels.contains(TcpCounter.AUTH_FAILURES.label()), labels::toString);
                final long established = counters.stream().filter(c -> groups.contains(c.group()) &&
                    c.label().equals(TcpCounter.CONNECTIONS_ESTABLISHED.label()))
                    .mapToLong(StatSnapshot.Counter::value).sum();
                assertTrue(established >= 2, counters::toString);
            }
            publisher.publishNow();
            assertFalse(StatFile.read(publisher.file()).counters().stream()
                .anyMatch(c -> groups.contains(c.group())));
        }
    }
}
