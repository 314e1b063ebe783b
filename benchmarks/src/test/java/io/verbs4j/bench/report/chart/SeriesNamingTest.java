// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SeriesNamingTest
{
    @Test
    void shouldNameCollSeriesByWhatDiffers()
    {
        final List<SeriesNaming.Key> keys = List.of(
            coll("a.json", "allreduce", "shm", "sum", "out-of-place"),
            coll("a.json", "allreduce", "shm", "sum", "in-place"),
            coll("b.json", "allgather", "tcp", "none", "out-of-place"));
        assertEquals(
            List.of("allreduce shm sum out-of-place", "allreduce shm sum in-place", "allgather tcp out-of-place"),
            SeriesNaming.names(keys, false));
    }

    @Test
    void shouldAlwaysNameThePlacementOrTransport()
    {
        assertEquals(List.of("out-of-place"),
            SeriesNaming.names(List.of(coll(null, "allreduce", "shm", "sum", "out-of-place")), false));
        assertEquals(List.of("socket"), SeriesNaming.names(List.of(perftest(null, "socket")), false));
    }

    @Test
    void shouldPutTheFileInFrontWhenTwoRunsOfTheSameThingMeet()
    {
        assertEquals(List.of("old.json shm-write", "new.json shm-write"),
            SeriesNaming.names(List.of(perftest("old.json", "shm-write"), perftest("new.json", "shm-write")), false));
    }

    @Test
    void shouldStartWithTheLabelAndAddWhatDiffersWithinIt()
    {
        final List<SeriesNaming.Key> keys = List.of(
            coll("shm", "allreduce", "shm", "sum", "out-of-place"),
            coll("shm", "allreduce", "shm", "sum", "in-place"),
            coll("tcp", "allreduce", "tcp", "sum", "out-of-place"));
        assertEquals(List.of("shm out-of-place", "shm in-place", "tcp"), SeriesNaming.names(keys, true));
    }

    private static SeriesNaming.Key coll(
        final String source, final String collective, final String transport, final String redop,
        final String placement)
    {
        final Map<String, String> identity = new LinkedHashMap<>();
        identity.put("collective", collective);
        identity.put("transport", transport);
        identity.put("ranks", "2");
        identity.put("redop", redop);
        identity.put("root", "-1");
        identity.put("placement", placement);
        return new SeriesNaming.Key("coll", source, identity);
    }

    private static SeriesNaming.Key perftest(final String source, final String transport)
    {
        final Map<String, String> identity = new LinkedHashMap<>();
        identity.put("test", "lat");
        identity.put("transport", transport);
        return new SeriesNaming.Key("perftest", source, identity);
    }
}
