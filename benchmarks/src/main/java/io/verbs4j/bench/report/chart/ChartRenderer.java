// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import de.erichseifert.vectorgraphics2d.svg.SVGProcessor;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;

import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import javax.imageio.ImageIO;

/**
 * Draws a {@link ChartDocument} into a PNG or SVG file: the title on top, then one XChart log-log plot per panel,
 * side by side. Runs headless ({@code java.awt.headless=true} is set before AWT is touched): the tools run on
 * servers without a display.
 */
public final class ChartRenderer
{
    /** Width of one panel, pixels. */
    public static final int PANEL_WIDTH = 760;
    /** Height of one panel, pixels. */
    public static final int PANEL_HEIGHT = 500;
    /** Height of the title band over the panels, pixels. */
    public static final int TITLE_HEIGHT = 40;

    private static final int TITLE_FONT_SIZE = 17;
    private static final int SMALLEST_TITLE_FONT_SIZE = 9;
    private static final String[] SI_PREFIXES = {"", "k", "M", "G", "T"};

    private ChartRenderer()
    {
    }

    /**
     * The size of the image of a chart.
     *
     * @param chart the chart.
     * @return {width, height} in pixels.
     */
    public static int[] size(final ChartDocument chart)
    {
        return new int[] {PANEL_WIDTH * chart.panels().size(), TITLE_HEIGHT + PANEL_HEIGHT};
    }

    /**
     * Writes the chart, replacing the file.
     *
     * @param chart the chart.
     * @param file  where; {@code .png} or {@code .svg} ({@link ChartFormat#of}).
     * @throws IOException if the file cannot be written.
     */
    public static void write(final ChartDocument chart, final Path file) throws IOException
    {
        final ChartFormat format = ChartFormat.of(file);
        System.setProperty("java.awt.headless", "true");
        final int[] size = size(chart);
        final Path parent = file.toAbsolutePath().getParent();
        if (null != parent)
        {
            Files.createDirectories(parent);
        }
        try (OutputStream out = Files.newOutputStream(file))
        {
            if (ChartFormat.PNG == format)
            {
                final BufferedImage image = new BufferedImage(size[0], size[1], BufferedImage.TYPE_INT_RGB);
                final Graphics2D g = image.createGraphics();
                try
                {
                    paint(chart, g, size);
                }
                finally
                {
                    g.dispose();
                }
                if (!ImageIO.write(image, "png", out))
                {
                    throw new IOException("this JDK has no PNG writer (javax.imageio)");
                }
            }
            else
            {
                final VectorGraphics2D g = new VectorGraphics2D();
                paint(chart, g, size);
                new SVGProcessor().getDocument(g.getCommands(), new PageSize(0, 0, size[0], size[1])).writeTo(out);
            }
        }
    }

    private static void paint(final ChartDocument chart, final Graphics2D g, final int[] size)
    {
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, size[0], size[1]);
        paintTitle(chart.title(), g, size[0]);
        for (int i = 0; i < chart.panels().size(); i++)
        {
            final AffineTransform saved = g.getTransform();
            g.translate(i * PANEL_WIDTH, TITLE_HEIGHT);
            xyChart(chart.panels().get(i)).paint(g, PANEL_WIDTH, PANEL_HEIGHT);
            g.setTransform(saved);
        }
    }

    /** Centred, in a smaller font when the line is wider than the image (many transports). */
    private static void paintTitle(final String title, final Graphics2D g, final int width)
    {
        int fontSize = TITLE_FONT_SIZE;
        Font font = new Font(Font.SANS_SERIF, Font.BOLD, fontSize);
        FontMetrics metrics = g.getFontMetrics(font);
        while (metrics.stringWidth(title) > width - 20 && fontSize > SMALLEST_TITLE_FONT_SIZE)
        {
            font = new Font(Font.SANS_SERIF, Font.BOLD, --fontSize);
            metrics = g.getFontMetrics(font);
        }
        g.setFont(font);
        g.setColor(Color.BLACK);
        final int x = Math.max(4, (width - metrics.stringWidth(title)) / 2);
        g.drawString(title, x, (TITLE_HEIGHT + metrics.getAscent() - metrics.getDescent()) / 2 + 2);
    }

    private static XYChart xyChart(final ChartDocument.Panel panel)
    {
        final XYChart chart = new XYChartBuilder().width(PANEL_WIDTH).height(PANEL_HEIGHT)
            .title(panel.metric().title() + " vs size").xAxisTitle(Metric.SIZE_LABEL)
            .yAxisTitle(panel.metric().axisLabel()).build();
        final XYStyler styler = chart.getStyler();
        styler.setXAxisLogarithmic(true);
        styler.setYAxisLogarithmic(true);
        styler.setxAxisTickLabelsFormattingFunction(ChartRenderer::bytes);
        styler.setyAxisTickLabelsFormattingFunction(ChartRenderer::plain);
        styler.setLegendPosition(Styler.LegendPosition.InsideNW);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotGridLinesColor(new Color(225, 225, 225));
        styler.setMarkerSize(6);
        for (final ChartDocument.Series series : panel.series())
        {
            final XYSeries line = chart.addSeries(series.name(), series.bytes(), series.value());
            line.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        }
        return chart;
    }

    /** Log-axis ticks fall on powers of ten, so SI prefixes give exact labels: 1 kB = 1000 B. */
    static String bytes(final Double value)
    {
        double scaled = value;
        int prefix = 0;
        while (Math.abs(scaled) >= 1000 && prefix < SI_PREFIXES.length - 1)
        {
            scaled /= 1000;
            prefix++;
        }
        return plain(scaled) + " " + SI_PREFIXES[prefix] + "B";
    }

    private static String plain(final Double value)
    {
        if (value == Math.rint(value) && Math.abs(value) < 1e15)
        {
            return Long.toString(value.longValue());
        }
        final String text = String.format(Locale.ROOT, "%.3g", value);
        return text.contains(".") && !text.contains("e") ? text.replaceFirst("\\.?0+$", "") : text;
    }
}
