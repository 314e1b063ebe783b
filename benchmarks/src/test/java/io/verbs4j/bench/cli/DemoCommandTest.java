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
 * The demo's plumbing: child JVM, every transport it shows, the summary table (with {@code --quick}: two sizes,
 * tiny counts; the figures are not checked).
 */
class DemoCommandTest
{
    @Test
    @Timeout(90)
    void shouldPrintBothTablesWithRatios()
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));

        final int code = commandLine.execute("demo", "--quick", "--timeout", "20");

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
        assertEquals("0.123", DemoCommand.value(0.1234));
        assertEquals("1.23", DemoCommand.value(1.234));
        assertEquals("123", DemoCommand.value(123.4));
        assertEquals("0.000312", DemoCommand.value(0.000312));
        assertEquals("-", DemoCommand.value(Double.NaN));
        assertEquals("2.5x", DemoCommand.ratio(5, 2));
        assertEquals("12x", DemoCommand.ratio(24, 2));
        assertEquals("-", DemoCommand.ratio(1, Double.NaN));
        assertEquals("8 B", DemoCommand.sizeName(8));
        assertEquals("64 KiB", DemoCommand.sizeName(65536));
        assertEquals("1 MiB", DemoCommand.sizeName(1 << 20));
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
