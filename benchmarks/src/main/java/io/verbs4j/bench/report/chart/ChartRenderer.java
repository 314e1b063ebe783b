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

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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
    /** A legend entry's line, marker and gaps; then its name at about this many pixels per character. */
    private static final int LEGEND_ENTRY_PIXELS = 50;
    private static final int LEGEND_CHAR_PIXELS = 7;
    private static final int SMALLEST_TITLE_FONT_SIZE = 9;

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
                final ByteArrayOutputStream svg = new ByteArrayOutputStream();
                new SVGProcessor().getDocument(g.getCommands(), new PageSize(0, 0, size[0], size[1])).writeTo(svg);
                out.write(withDescription(svg.toString(StandardCharsets.UTF_8), chart)
                    .getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * XChart draws its text as glyph outlines, so an SVG would not contain its legend and axis labels as text: they
     * go into the SVG's {@code <title>} and {@code <desc>} as well, for screen readers, search and tests.
     */
    static String withDescription(final String svg, final ChartDocument chart)
    {
        final StringBuilder description = new StringBuilder();
        for (final ChartDocument.Panel panel : chart.panels())
        {
            description.append(description.length() == 0 ? "" : "; ").append(panel.metric().title())
                .append(" vs size: x ").append(Metric.SIZE_LABEL).append(", y ").append(panel.metric().axisLabel())
                .append(", series:");
            for (final ChartDocument.Series series : panel.series())
            {
                description.append(' ').append(series.name()).append(',');
            }
            description.setLength(description.length() - 1);
        }
        final int svgStart = svg.indexOf("<svg");
        final int insertAt = svgStart < 0 ? -1 : svg.indexOf('>', svgStart) + 1;
        if (insertAt <= 0)
        {
            throw new IllegalStateException("VectorGraphics2D wrote no <svg> element");
        }
        return svg.substring(0, insertAt) + "\n  <title>" + xml(chart.title()) + "</title>\n  <desc>" +
            xml(description.toString()) + "</desc>" + svg.substring(insertAt);
    }

    private static String xml(final String text)
    {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
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
        // Decade ticks only would leave a panel whose values span less than a decade with one y label or none;
        // ticks at every 1..9 x 10^k label such a panel, but crowd one over several decades.
        final double[] range = range(panel);
        final boolean decadeTicks = Math.log10(range[1] / range[0]) >= 2;
        styler.setYAxisLogarithmicDecadeOnly(decadeTicks);
        if (decadeTicks)
        {
            // From the decade below the lowest value to the one above the highest: a labelled tick at both ends.
            styler.setYAxisMin(Math.pow(10, Math.floor(Math.log10(range[0]))));
            styler.setYAxisMax(Math.pow(10, Math.ceil(Math.log10(range[1]))));
        }
        styler.setXAxisDecimalPattern("#,##0");
        styler.setYAxisDecimalPattern("#,##0.#####");
        // Under the plot, never over the lines; one row when the names fit across the panel.
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(legendWidth(panel) <= PANEL_WIDTH - 40 ?
            Styler.LegendLayout.Horizontal : Styler.LegendLayout.Vertical);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotGridLinesColor(new Color(225, 225, 225));
        // Solid: VectorGraphics2D writes a dashed line as one rectangle per dash, half a megabyte of SVG.
        styler.setPlotGridLinesStroke(new BasicStroke(0.6f));
        styler.setMarkerSize(6);
        for (final ChartDocument.Series series : panel.series())
        {
            final XYSeries line = chart.addSeries(series.name(), series.bytes(), series.value());
            line.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        }
        return chart;
    }

    /** @return about how wide a one-row legend of the panel's series is, pixels. */
    private static int legendWidth(final ChartDocument.Panel panel)
    {
        int width = 0;
        for (final ChartDocument.Series series : panel.series())
        {
            width += LEGEND_ENTRY_PIXELS + LEGEND_CHAR_PIXELS * series.name().length();
        }
        return width;
    }

    /** @return {lowest, highest} value of the panel. */
    private static double[] range(final ChartDocument.Panel panel)
    {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (final ChartDocument.Series series : panel.series())
        {
            for (final double value : series.value())
            {
                min = Math.min(min, value);
                max = Math.max(max, value);
            }
        }
        return new double[] {min, max};
    }
}
