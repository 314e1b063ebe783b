// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

import io.verbs4j.bench.spi.TestKind;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JsonLinesResultSinkTest
{
    @Test
    void shouldWriteOneObjectPerRowWithHeaderFields()
    {
        final StringWriter text = new StringWriter();
        final JsonLinesResultSink sink = new JsonLinesResultSink(new PrintWriter(text));

        sink.begin(new TestHeader("nio", "d", TestKind.BANDWIDTH, "127.0.0.1", "busy-poll", 5, 128, "17", null));
        sink.bandwidth(new BandwidthStats(4096, 5000, 2.5, 2.0, 0.48828125));
        sink.end();

        final String line = text.toString().trim();
        assertEquals(1, line.split("\n").length);
        assertTrue(line.startsWith("{\"type\":\"bandwidth\",\"transport\":\"nio\",\"test\":\"bw\""), line);
        assertTrue(line.contains("\"bytes\":4096,\"iterations\":5000,\"window\":128"), line);
        assertTrue(line.contains("\"bw_peak_GBps\":2.5,\"bw_average_GBps\":2.0,\"msg_rate_Mpps\":0.48828125"), line);
        assertTrue(line.endsWith("}"), line);
    }

    @Test
    void shouldCarryLatencyInMicrosecondsAndNanoseconds()
    {
        final StringWriter text = new StringWriter();
        final JsonLinesResultSink sink = new JsonLinesResultSink(new PrintWriter(text));

        sink.begin(new TestHeader("shm-cacheline", "d", TestKind.LATENCY, "p", "backoff", 0, 1, "17", null));
        sink.latency(new LatencyStats(8, 10, 150, 300, 162.5, 170, 10, 250, 300));

        final String line = text.toString();
        assertTrue(line.contains("\"t_typical_usec\":0.1625"), line);
        assertTrue(line.contains("\"t_typical_ns\":162.5"), line);
        assertTrue(line.contains("\"p99_9_ns\":300.0"), line);
    }

    @Test
    void shouldPutEachSizesWarmupTimeOnItsRowOnly()
    {
        final StringWriter text = new StringWriter();
        final JsonLinesResultSink sink = new JsonLinesResultSink(new PrintWriter(text));

        sink.begin(new TestHeader("tcp-write", "d", TestKind.BANDWIDTH, "p", "backoff", 5, 128, "17", null, 1000));
        sink.warmedUp(3_400_000_000L);
        sink.bandwidth(new BandwidthStats(65536, 5000, 2.5, 2.0, 0.5));
        sink.bandwidth(new BandwidthStats(1048576, 5000, 2.5, 2.0, 0.5));

        final String[] lines = text.toString().trim().split("\n");
        assertTrue(lines[0].contains("\"warmup_s\":3.4"), lines[0]);
        assertFalse(lines[1].contains("warmup_s"), lines[1]);
    }

    @Test
    void shouldEscapeNotes()
    {
        final StringWriter text = new StringWriter();
        final JsonLinesResultSink sink = new JsonLinesResultSink(new PrintWriter(text));

        sink.note("a \"quoted\" \\ path\tx");

        assertEquals("{\"type\":\"note\",\"text\":\"a \\\"quoted\\\" \\\\ path\\tx\"}", text.toString().trim());
    }
}
