// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/**
 * The text of nccl-tests' tables ({@code NVIDIA/nccl-tests:src/common.cu}): the two column-header lines with units,
 * one row per size with out-of-place then in-place columns, and the footer. Widths and number formats are
 * nccl-tests' own, so scripts that parse {@code all_reduce_perf} output parse ours.
 * <pre>
 * #                                                              out-of-place                       in-place
 * #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
 * #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
 *      1048576        262144     float     sum      -1   345.67    3.03    3.03      0   340.12    3.08    3.08      0
 * # Out of bounds values : 0 OK
 * # Avg bus bandwidth    : 1.23456
 * #
 * </pre>
 * GB/s = 1e9 B/s; time in microseconds.
 */
public final class NcclTestsFormat
{
    private NcclTestsFormat()
    {
    }

    /** @return the three column-header lines. */
    public static String[] columnHeader()
    {
        return new String[] {
            String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       " +
                "in-place          ", "", "", "", "", ""),
            String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s",
                "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
                "busbw", "#wrong"),
            String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s",
                "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "") };
    }

    /**
     * The first columns of a row.
     *
     * @param sizeBytes size column.
     * @param count     count column.
     * @param type      type name.
     * @param op        operator name ({@code none} for collectives that do not reduce).
     * @param root      root, or -1.
     * @return the text.
     */
    public static String preamble(final long sizeBytes, final long count, final String type, final String op,
        final int root)
    {
        return String.format(Locale.ROOT, "%12d  %12d  %8s  %6s  %6d", sizeBytes, count, type, op, root);
    }

    /**
     * One placement's columns.
     *
     * @param timeUs  time per call.
     * @param algBw   GB/s.
     * @param busBw   GB/s.
     * @param wrong   wrong elements, or -1 when not checked ({@code N/A}).
     * @return the text.
     */
    public static String body(final double timeUs, final double algBw, final double busBw, final long wrong)
    {
        return String.format(Locale.ROOT, "  %7s  %6.2f  %6.2f  %5s", time(timeUs), algBw, busBw,
            wrong < 0 ? "N/A" : Long.toString(wrong));
    }

    /** @return the columns of a placement that does not exist for the collective. */
    public static String nullBody()
    {
        return String.format(Locale.ROOT, "  %7s  %6s  %6s  %5s", "N/A", "N/A", "N/A", "N/A");
    }

    /**
     * nccl-tests' time column: 2 decimals below 100 us, 1 below 10 ms, none above.
     *
     * @param timeUs microseconds.
     * @return 7 characters (or more for huge values).
     */
    public static String time(final double timeUs)
    {
        if (timeUs >= 10000.0)
        {
            return String.format(Locale.ROOT, "%7.0f", timeUs);
        }
        if (timeUs >= 100.0)
        {
            return String.format(Locale.ROOT, "%7.1f", timeUs);
        }
        return String.format(Locale.ROOT, "%7.2f", timeUs);
    }

    /**
     * The footer.
     *
     * @param wrongTotal     wrong elements over all rows (0 prints OK).
     * @param avgBusBw       mean busbw over every measured placement.
     * @return the three footer lines.
     */
    public static String[] footer(final long wrongTotal, final double avgBusBw)
    {
        return new String[] {
            "# Out of bounds values : " + wrongTotal + (0 == wrongTotal ? " OK" : " FAILED"),
            "# Avg bus bandwidth    : " + cG(avgBusBw) + " ",
            "#" };
    }

    /**
     * C's {@code %g}: 6 significant digits, trailing zeros removed.
     *
     * @param value the value.
     * @return the text.
     */
    public static String cG(final double value)
    {
        if (0 == value || Double.isNaN(value) || Double.isInfinite(value))
        {
            return 0 == value ? "0" : Double.toString(value);
        }
        final BigDecimal rounded = new BigDecimal(value).round(new MathContext(6)).stripTrailingZeros();
        final double magnitude = Math.abs(value);
        if (magnitude >= 1e-4 && magnitude < 1e6)
        {
            return rounded.toPlainString();
        }
        return String.format(Locale.ROOT, "%.5e", value).replaceAll("\\.?0+e", "e");
    }
}
