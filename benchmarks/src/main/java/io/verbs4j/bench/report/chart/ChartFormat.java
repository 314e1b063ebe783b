// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The image formats a chart is written in, chosen by the file name's extension.
 */
public enum ChartFormat
{
    /** A bitmap (ImageIO). */
    PNG,
    /** A vector image (VectorGraphics2D), sharp at any size: the one for documentation. */
    SVG;

    /**
     * The format of a chart file.
     *
     * @param file the chart file.
     * @return its format.
     * @throws IllegalArgumentException if the name ends in neither {@code .png} nor {@code .svg}.
     */
    public static ChartFormat of(final Path file)
    {
        final Path name = file.getFileName();
        final String lower = null == name ? "" : name.toString().toLowerCase(Locale.ROOT);
        if (lower.endsWith(".png") && lower.length() > 4)
        {
            return PNG;
        }
        if (lower.endsWith(".svg") && lower.length() > 4)
        {
            return SVG;
        }
        throw new IllegalArgumentException("chart file '" + file + "' must end in .png or .svg (the extension " +
            "chooses the format)");
    }
}
