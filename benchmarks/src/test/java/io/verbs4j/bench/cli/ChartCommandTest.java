// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import javax.imageio.ImageIO;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --chart} on perftest and coll, and the {@code chart} tool over the JSON the tools write, end to end in
 * this JVM: perftest's in-process memcpy rows and coll with ranks as threads, a few calls per size.
 */
class ChartCommandTest
{
    private static final String[] PERFTEST_MEMCPY = {"perftest", "-T", "memcpy", "--test", "bw", "-s", "1K,64K",
        "-n", "64", "-w", "8", "--warmup-exact"};
    private static final String[] COLL_THREADS = {"coll", "allreduce", "-g", "2", "--threads", "-b", "64", "-e", "4K",
        "-f", "8", "-w", "2", "--warmup-exact", "-n", "3"};

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @TempDir
    Path dir;

    @Test
    void shouldRefuseAChartFileThatIsNeitherPngNorSvgBeforeRunning()
    {
        assertRefused("--chart: chart file '" + dir.resolve("rows.jpg") + "' must end in .png or .svg",
            concat(PERFTEST_MEMCPY, "--chart", dir.resolve("rows.jpg").toString()));
        assertRefused("must end in .png or .svg", concat(COLL_THREADS, "--chart", dir.resolve("rows").toString()));
        assertRefused("--chart-metric takes busbw, time or busbw,time, not latency",
            concat(COLL_THREADS, "--chart", dir.resolve("c.png").toString(), "--chart-metric", "lat"));
        assertRefused("--chart is for the side that runs the tests",
            "perftest", "--server", "--chart", dir.resolve("p.png").toString());
        assertRefused("must end in .png or .svg", "chart", "-o", dir.resolve("c.pdf").toString(), "x.json");
    }

    @Test
    @Timeout(60)
    void shouldDrawThePerftestRunAndKeepItsTable() throws Exception
    {
        final Path png = dir.resolve("memcpy.png");
        assertEquals(0, run(concat(PERFTEST_MEMCPY, "--chart", png.toString())), err::toString);
        assertTrue(out.toString().contains("memcpy BW Test"), out::toString);
        assertFalse(out.toString().contains("chart"), "the table is unchanged: the chart's line goes to stderr");
        assertTrue(err.toString().contains("verbs4j perftest: chart written to " + png), err::toString);
        final BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image);
        assertEquals(800 - 40, image.getWidth(), "one panel: bw");
    }

    @Test
    @Timeout(60)
    void shouldDrawTheCollRunFromATemporaryRowsFileAndRemoveIt() throws Exception
    {
        final Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        final List<Path> before = rowsFiles(tmp);
        final Path svg = dir.resolve("allreduce.svg");
        assertEquals(0, run(concat(COLL_THREADS, "--chart", svg.toString(), "--chart-metric", "busbw")),
            err::toString);
        assertTrue(out.toString().contains("# Out of bounds values : 0 OK"), out::toString);
        final String text = description(svg);
        assertTrue(text.contains("verbs4j coll allreduce · shm · 2 ranks"), text);
        assertTrue(text.contains("series: out-of-place, in-place"), text);
        assertFalse(text.contains("time per call"), "--chart-metric busbw: no time panel");
        assertEquals(before, rowsFiles(tmp), "the temporary rows file is gone");
    }

    @Test
    @Timeout(60)
    void shouldSetTheToolsJsonFilesSideBySide() throws Exception
    {
        final Path coll = dir.resolve("coll.json");
        final Path perftest = dir.resolve("perftest.json");
        assertEquals(0, run(concat(COLL_THREADS, "-J", coll.toString())), err::toString);
        out.getBuffer().setLength(0);
        assertEquals(0, run(concat(PERFTEST_MEMCPY, "--format", "json")), err::toString);
        Files.writeString(perftest, out.toString());

        final Path svg = dir.resolve("both.svg");
        assertEquals(0, run("chart", "-o", svg.toString(), coll.toString(), perftest.toString()), err::toString);
        final String text = description(svg);
        assertTrue(text.contains("<title>verbs4j coll + perftest allreduce, bw · shm, memcpy · 2 ranks · "), text);
        assertTrue(text.contains("busbw vs size") && text.contains("time vs size") &&
            text.contains("bandwidth vs size"), text);
        assertTrue(text.contains("series: out-of-place, in-place") && text.contains("series: memcpy"), text);

        final Path png = dir.resolve("labelled.png");
        assertEquals(0, run("chart", "-o", png.toString(), "--label", "v1", "--label", "v2", "--metric", "time",
            coll.toString(), coll.toString()), err::toString);
        assertEquals(760, ImageIO.read(png.toFile()).getWidth(), "one panel: time");
    }

    @Test
    void shouldNameAGarbledOrMissingFile() throws Exception
    {
        final Path garbled = dir.resolve("garbled.json");
        Files.writeString(garbled, "{\"collective\":\"allreduce\",\"ranks\":2,\n");
        final Path svg = dir.resolve("out.svg");
        assertEquals(1, run("chart", "-o", svg.toString(), garbled.toString()));
        assertTrue(err.toString().contains("verbs4j chart: error: " + garbled + " line 1: not a JSON object"),
            err::toString);
        assertFalse(Files.exists(svg));

        err.getBuffer().setLength(0);
        assertEquals(1, run("chart", "-o", svg.toString(), dir.resolve("missing.json").toString()));
        assertTrue(err.toString().contains("missing.json"), err::toString);

        err.getBuffer().setLength(0);
        assertEquals(2, run("chart", "-o", svg.toString(), "--label", "one", garbled.toString(), garbled.toString()));
        assertTrue(err.toString().contains("--label given 1 time(s) for 2 file(s)"), err::toString);
    }

    private int run(final String... args)
    {
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    private void assertRefused(final String expected, final String... args)
    {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        assertEquals(2, run(args), err::toString);
        assertTrue(err.toString().contains(expected), err::toString);
        assertEquals("", out.toString(), "refused before any run");
    }

    private static String[] concat(final String[] first, final String... more)
    {
        return Stream.concat(Stream.of(first), Stream.of(more)).toArray(String[]::new);
    }

    /** @return the SVG's title and description: what XChart drew as outlines, in words (ChartRenderer). */
    private static String description(final Path svg) throws Exception
    {
        final String text = Files.readString(svg);
        final int start = text.indexOf("<title>");
        final int end = text.indexOf("</desc>");
        assertTrue(start >= 0 && end > start, "an SVG with a title and a description");
        return text.substring(start, end);
    }

    private static List<Path> rowsFiles(final Path tmp) throws Exception
    {
        try (Stream<Path> files = Files.list(tmp))
        {
            return files.filter(f -> f.getFileName().toString().startsWith("verbs4j-coll-rows")).sorted().toList();
        }
    }
}
