// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import io.verbs4j.bench.report.BandwidthStats;
import io.verbs4j.bench.report.JsonLinesResultSink;
import io.verbs4j.bench.report.LatencyStats;
import io.verbs4j.bench.report.TestHeader;
import io.verbs4j.bench.spi.TestKind;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RowReaderTest
{
    @Test
    void shouldReadWhatPerftestsJsonSinkWrites()
    {
        final StringWriter text = new StringWriter();
        final JsonLinesResultSink sink = new JsonLinesResultSink(new PrintWriter(text));
        sink.begin(new TestHeader("shm-write", "d", TestKind.LATENCY, "in-process", "backoff", 10, 1, "17", null));
        sink.latency(new LatencyStats(64, 1000, 100, 900, 250, 260, 20, 400, 800));
        sink.note("size 1M skipped");
        sink.end();
        sink.begin(new TestHeader("socket", "d", TestKind.BANDWIDTH, "in-process", "backoff", 10, 128, "17", null));
        sink.bandwidth(new BandwidthStats(4096, 5000, 2.5, 2.0, 0.5));
        sink.end();

        final List<ChartPoint> points = RowReader.read(text.toString().lines().toList(), "run", "run.json");
        assertEquals(2, points.size(), points::toString);
        final ChartPoint latency = points.get(0);
        assertEquals(Metric.LATENCY, latency.metric());
        assertEquals("shm-write", latency.identity().get("transport"));
        assertEquals(64, latency.bytes());
        assertEquals(0.25, latency.value(), 1e-12, "t_typical in µs");
        assertEquals(Runtime.getRuntime().availableProcessors(), latency.cpus());
        assertEquals("run", latency.source());
        final ChartPoint bandwidth = points.get(1);
        assertEquals(Metric.BANDWIDTH, bandwidth.metric());
        assertEquals(2.0, bandwidth.value(), "BW average in GB/s");
    }

    @Test
    void shouldReadACollRowAsBusbwAndTimeAndSkipNaCells()
    {
        final String row = "{\"collective\":\"broadcast\",\"ranks\":4,\"launch\":\"threads\",\"transport\":\"tcp\"," +
            "\"algo\":\"auto\",\"mode\":\"blocking\",\"busy_poll\":false,\"cpus\":8,\"placement\":\"%s\"," +
            "\"size_bytes\":1024,\"count\":256,\"type\":\"float32\",\"redop\":\"none\",\"root\":0,\"time_us\":%s," +
            "\"busbw_GBps\":%s,\"wrong\":0}";
        final List<ChartPoint> points = RowReader.read(List.of(
            String.format(row, "out-of-place", "null", "null"), String.format(row, "in-place", "12.5", "0.08")),
            null, "b.json");
        assertEquals(2, points.size(), points::toString);
        assertEquals(Metric.BUSBW, points.get(0).metric());
        assertEquals(0.08, points.get(0).value());
        assertEquals(Metric.TIME, points.get(1).metric());
        assertEquals(12.5, points.get(1).value());
        assertEquals("4", points.get(1).identity().get("ranks"));
        assertEquals("in-place", points.get(1).identity().get("placement"));
        assertEquals(8, points.get(1).cpus());
    }

    @Test
    void shouldNameTheFileAndLineOfWhatIsNotARow()
    {
        assertMessage("x.json line 2: not a JSON object", List.of("", "# nccl-tests table"));
        assertMessage("x.json line 1: neither a coll row", List.of("{\"type\":\"histogram\"}"));
        assertMessage("x.json line 1: no \"size_bytes\"", List.of("{\"collective\":\"allreduce\",\"ranks\":2," +
            "\"transport\":\"shm\",\"algo\":\"auto\",\"mode\":\"blocking\",\"type\":\"float32\",\"redop\":\"sum\"," +
            "\"root\":-1,\"placement\":\"in-place\"}"));
        assertMessage("x.json: no rows", List.of("{\"type\":\"note\",\"text\":\"all sizes skipped\"}"));
    }

    private static void assertMessage(final String expected, final List<String> lines)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> RowReader.read(lines, null, "x.json"));
        assertTrue(ex.getMessage().startsWith(expected), ex::getMessage);
    }
}
