// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Renders a fixed set of rows (two perftest panels, three transports) to PNG and SVG and reads the files back.
 */
class ChartRendererTest
{
    private static final byte[] PNG_SIGNATURE = {(byte)0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final List<String> TRANSPORTS = List.of("shm-write", "shm-cacheline", "socket");

    @Test
    void shouldWriteAPngOfTheExpectedSize(@TempDir final Path dir) throws Exception
    {
        final ChartDocument chart = chart();
        final Path png = dir.resolve("perftest.png");
        ChartRenderer.write(chart, png);

        final byte[] bytes = Files.readAllBytes(png);
        assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, PNG_SIGNATURE.length));
        final BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "ImageIO decodes the file");
        assertEquals(2 * ChartRenderer.PANEL_WIDTH, image.getWidth());
        assertEquals(ChartRenderer.TITLE_HEIGHT + ChartRenderer.PANEL_HEIGHT, image.getHeight());
        assertTrue(distinctColours(image) > 4, "lines of several colours on a white page");
    }

    @Test
    void shouldWriteAnSvgNamingEverySeriesAndAxis(@TempDir final Path dir) throws Exception
    {
        final ChartDocument chart = chart();
        final Path svg = dir.resolve("sub/perftest.SVG");
        ChartRenderer.write(chart, svg);

        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        // The file names the SVG 1.1 DTD by URL: parse it without fetching anything.
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        final Document document = factory.newDocumentBuilder().parse(svg.toFile());
        assertEquals("svg", document.getDocumentElement().getTagName());
        assertEquals("0 0 1520 540", document.getDocumentElement().getAttribute("viewBox"));
        final String text = document.getDocumentElement().getTextContent();
        for (final String transport : TRANSPORTS)
        {
            assertTrue(text.contains(transport), () -> transport + " in " + text);
        }
        for (final String label : new String[] {Metric.SIZE_LABEL, Metric.LATENCY.axisLabel(),
            Metric.BANDWIDTH.axisLabel(), chart.title()})
        {
            assertTrue(text.contains(label), () -> label + " in " + text);
        }
        assertTrue(Files.readString(svg).contains("<path"), "the plot itself is drawn as paths");
    }

    @Test
    void shouldComposeTheTitleFromTheRows()
    {
        assertEquals("verbs4j perftest lat, bw · shm-write, shm-cacheline, socket · 2 ranks (initiator + responder)" +
            " · 2 CPUs", chart().title());
    }

    /** Three transports, latency at 3 sizes and bandwidth at 2, values made up for the drawing. */
    static ChartDocument chart()
    {
        final List<ChartPoint> points = new java.util.ArrayList<>();
        for (int t = 0; t < TRANSPORTS.size(); t++)
        {
            final String transport = TRANSPORTS.get(t);
            for (final int bytes : new int[] {8, 1024, 65536})
            {
                points.add(point(Metric.LATENCY, "lat", transport, bytes, (t + 1) * (1 + bytes / 4096.0)));
            }
            for (final int bytes : new int[] {4096, 65536})
            {
                points.add(point(Metric.BANDWIDTH, "bw", transport, bytes, bytes / (1000.0 * (t + 1))));
            }
        }
        return ChartBuilder.build(points, List.of(Metric.values()), null, false);
    }

    private static ChartPoint point(
        final Metric metric, final String test, final String transport, final int bytes, final double value)
    {
        return new ChartPoint("perftest", metric, Map.of("test", test, "transport", transport), null, bytes, value, 2);
    }

    private static int distinctColours(final BufferedImage image)
    {
        final java.util.Set<Integer> colours = new java.util.HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3)
        {
            for (int x = 0; x < image.getWidth(); x += 3)
            {
                colours.add(image.getRGB(x, y));
            }
        }
        return colours.size();
    }
}
