// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.bench.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code verbs4j coll} end to end with tiny sweeps: every collective once with the check on, 2 ranks as threads
 * (blocking and non-blocking) and as processes, and every type and operator on 3 ranks. The figures are not
 * checked, only the table's shape and {@code #wrong}.
 */
class CollSmokeTest
{
    private static final int COLLECTIVES = Collective.values().length;

    @Test
    @Timeout(60)
    void shouldRunEveryCollectiveOnThreads()
    {
        final String text = run(0, "coll", "all", "-g", "2", "--threads", "-b", "8", "-e", "4K", "-f", "8", "-w",
            "1", "--warmup-exact", "-n", "2", "-c", "1");
        assertEquals(COLLECTIVES, count(text, "# Out of bounds values : 0 OK"), text);
        assertTrue(text.contains("#       size         count      type   redop    root     time   algbw   busbw " +
            "#wrong     time   algbw   busbw #wrong"), text);
        assertTrue(text.contains("# AllReduce algorithm by size (auto): "), text);
    }

    @Test
    @Timeout(60)
    void shouldRunEveryCollectiveNonBlocking()
    {
        final String text = run(0, "coll", "all", "-g", "2", "--threads", "--async", "-b", "64", "-e", "64K", "-f",
            "32", "-w", "1", "--warmup-exact", "-n", "70");
        assertEquals(COLLECTIVES, count(text, "# Out of bounds values : 0 OK"), text);
        assertTrue(text.contains("mode: async"), text);
    }

    @Test
    @Timeout(60)
    void shouldRunEveryTypeAndOperatorOnThreeRanks()
    {
        final String text = run(0, "coll", "allreduce,reducescatter,reduce", "-g", "3", "--threads", "-b", "96",
            "-e", "96", "-d", "all", "-o", "all", "-r", "all", "-w", "0", "--warmup-exact", "-n", "1",
            "--algo", "ring");
        assertEquals(3, count(text, "# Out of bounds values : 0 OK"), text);
        assertTrue(text.contains("bfloat16     avg") && text.contains("    int8     xor"), text);
    }

    @Test
    @Timeout(60)
    void shouldRunEveryCollectiveInProcessesAndWriteJson(@TempDir final Path dir) throws Exception
    {
        final Path json = dir.resolve("rows.json");
        final String text = run(0, "coll", "all", "-g", "2", "-b", "8", "-e", "1K", "-f", "128", "-w", "1",
            "--warmup-exact", "-n", "2", "--json", json.toString());
        assertEquals(COLLECTIVES, count(text, "# Out of bounds values : 0 OK"), text);
        assertTrue(text.contains("(processes)"), text);
        final List<String> rows = Files.readAllLines(json);
        // 2 sizes x 2 placements for 8 collectives with both, 2 x 1 for broadcast, 1 for barrier
        assertEquals(8 * 4 + 2 + 1, rows.size(), rows::toString);
        assertTrue(rows.get(0).startsWith("{\"collective\":\"allreduce\",\"ranks\":2,\"launch\":\"processes\""),
            rows.get(0));
        assertTrue(rows.get(0).endsWith(",\"wrong\":0}"), rows.get(0));
    }

    @Test
    @Timeout(90)
    void shouldWarmUpUntilStableByDefaultWithMinusWAsTheLeastCallCount(@TempDir final Path dir) throws Exception
    {
        final Path json = dir.resolve("rows.json");
        final String text = run(0, "coll", "allreduce", "-g", "2", "--threads", "--sizes", "8,64", "-w", "300",
            "-n", "20", "--json", json.toString());
        assertTrue(text.contains("# Warm-up: until stable (>= 0.25 s and >= 300 calls per size, 3 windows within " +
            "5% and no JIT at work, cap 3 s or 10 s while compiling), just before each size and placement"), text);
        assertTrue(text.contains("# Cost model: alpha "), text);
        assertFalse(text.contains("CostModel{"), text);
        assertTrue(text.contains("# AllReduce choice (auto, 2 ranks): 1 B-"), text);
        assertTrue(text.contains("# Warm-up: ") && text.contains(" of 4 placements reached a stable time; "), text);
        final List<String> rows = Files.readAllLines(json);
        assertEquals(4, rows.size(), rows::toString);
        for (final String row : rows)
        {
            assertTrue(row.contains("\"warmup\":300,\"warmup_exact\":false,\"warmup_calls\":"), row);
            final long calls = Long.parseLong(row.replaceAll(".*\"warmup_calls\":(\\d+),.*", "$1"));
            final double seconds = Double.parseDouble(row.replaceAll(".*\"warmup_s\":([0-9.Ee-]+),.*", "$1"));
            assertTrue(calls >= 300, row);
            assertTrue(seconds >= 0.25, row);
            assertTrue(row.matches(".*\"warmup_outcome\":\"(stable|capped)\".*"), row);
        }
    }

    @Test
    @Timeout(60)
    void shouldWarmUpExactlyWithWarmupExact(@TempDir final Path dir) throws Exception
    {
        final Path json = dir.resolve("rows.json");
        final String text = run(0, "coll", "allreduce", "-g", "2", "--threads", "--sizes", "8", "-w", "7",
            "--warmup-exact", "-n", "3", "--json", json.toString());
        assertTrue(text.contains("# Warm-up: exactly 7 calls per size (no time minimum, no stability check), just " +
            "before each size and placement (--warmup-exact)"), text);
        assertTrue(text.contains("# Warm-up: exact, 7-7 calls"), text);
        for (final String row : Files.readAllLines(json))
        {
            assertTrue(row.contains("\"warmup\":7,\"warmup_exact\":true,\"warmup_calls\":7,"), row);
            assertTrue(row.contains("\"warmup_outcome\":\"exact\""), row);
        }
    }

    @Test
    void shouldRejectBadInput()
    {
        run(2, "coll", "allreduce", "-b", "1M", "-e", "8");
        run(2, "coll", "allreduce", "-r", "5", "-g", "2");
        run(2, "coll", "allreduce", "-d", "float32", "-o", "xor");
        run(2, "coll", "nosuch");
        run(2, "coll", "allreduce", "--async", "--blocking");
        run(2, "coll", "sendrecv", "-g", "1");
        run(2, "coll", "allreduce", "-w", "-1");
        run(2, "coll", "allreduce", "-w", "100000001", "--warmup-exact");
    }

    private static String run(final int expectedCode, final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        final int code = commandLine.execute(args);
        assertEquals(expectedCode, code, () -> out + "\n" + err);
        return out.toString();
    }

    private static int count(final String text, final String line)
    {
        int n = 0;
        for (final String l : text.split("\n"))
        {
            if (l.equals(line))
            {
                n++;
            }
        }
        return n;
    }
}
