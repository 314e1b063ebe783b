// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demos' plumbing (with {@code --quick}: tiny counts; the figures are not checked): the collectives demo's three
 * steps (rank 0's lines only, no object's toString, the verbs4j and the socket AllReduce in one table format), and
 * the verbs demo's child JVM, every transport it shows and its summary tables.
 */
class DemoCommandTest
{
    @Test
    @Timeout(180)
    void shouldTrainThenPrintTheAllReduceTableAndTheSocketBaseline()
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));

        final int code = commandLine.execute("demo", "--quick", "--timeout", "20");

        final String text = out.toString();
        assertEquals(0, code, () -> text + "\n" + err);
        assertTrue(text.contains("weights agree with every rank bit for bit: yes"), text);
        assertTrue(text.contains("training: ok"), text);
        final String verbs = text.substring(text.indexOf("== 2/3"), text.indexOf("== 3/3"));
        final String socket = text.substring(text.indexOf("== 3/3"));
        for (final String table : new String[] { verbs, socket })
        {
            assertTrue(table.contains("#       size         count      type   redop    root     time"), table);
            assertTrue(line(table, "           8             2     float     sum      -1").endsWith(" 0"), table);
            assertTrue(line(table, "       65536         16384     float     sum      -1").endsWith(" 0"), table);
            assertTrue(table.contains("# Out of bounds values : 0 OK"), table);
        }
        assertTrue(socket.contains("# java.net.Socket AllReduce"), socket);
        assertFalse(text.contains("[rank "), text);
        assertFalse(text.contains("{"), text);
    }

    @Test
    @Timeout(90)
    void shouldPrintBothVerbsTablesWithRatios()
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));

        final int code = commandLine.execute("demo", "--verbs", "--quick", "--timeout", "20");

        final String text = out.toString();
        assertEquals(0, code, () -> text + "\n" + err);
        assertTrue(text.contains("One-way latency, median usec"), text);
        assertTrue(text.contains("Bandwidth, average GB/s"), text);
        final String latencyRow = line(text, "     8 B ");
        final String bandwidthRow = line(text.substring(text.indexOf("Bandwidth")), "     8 B ");
        assertEquals(10, latencyRow.trim().split("\\s+").length, latencyRow);
        assertEquals(12, bandwidthRow.trim().split("\\s+").length, bandwidthRow);
        assertFalse(latencyRow.contains(" - "), latencyRow);
        assertFalse(bandwidthRow.contains(" - "), bandwidthRow);
        assertTrue(line(text, "   4 KiB ").endsWith("x"), text);
    }

    @Test
    void shouldFormatValuesRatiosAndSizes()
    {
        assertEquals("0.123", VerbsDemo.value(0.1234));
        assertEquals("1.23", VerbsDemo.value(1.234));
        assertEquals("123", VerbsDemo.value(123.4));
        assertEquals("0.000312", VerbsDemo.value(0.000312));
        assertEquals("-", VerbsDemo.value(Double.NaN));
        assertEquals("2.5x", VerbsDemo.ratio(5, 2));
        assertEquals("12x", VerbsDemo.ratio(24, 2));
        assertEquals("-", VerbsDemo.ratio(1, Double.NaN));
        assertEquals("8 B", VerbsDemo.sizeName(8));
        assertEquals("64 KiB", VerbsDemo.sizeName(65536));
        assertEquals("1 MiB", VerbsDemo.sizeName(1 << 20));
    }

    private static String line(final String text, final String prefix)
    {
        for (final String line : text.split("\n"))
        {
            if (line.startsWith(prefix))
            {
                return line;
            }
        }
        throw new AssertionError("no line starting with '" + prefix + "' in\n" + text);
    }
}
