// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** nccl-tests' table text: the column header, row widths that line up with it, number formats, the footer. */
class NcclTestsFormatTest
{
    @Test
    void shouldPrintNcclTestsColumnHeader()
    {
        final String[] header = NcclTestsFormat.columnHeader();
        assertEquals("#       size         count      type   redop    root     time   algbw   busbw #wrong" +
            "     time   " +
            "algbw   busbw #wrong", header[1]);
        assertTrue(header[2].startsWith("#        (B)    (elements)                               (us)  (GB/s)  " +
            "(GB/s)            (us)  (GB/s)  (GB/s)"), header[2]);
        assertTrue(header[0].contains("out-of-place") && header[0].contains("in-place"), header[0]);
    }

    @Test
    void shouldLineRowsUpWithTheHeader()
    {
        final String row = NcclTestsFormat.preamble(1048576, 262144, "float", "sum", -1) +
            NcclTestsFormat.body(345.678, 3.03, 3.03, 0) + NcclTestsFormat.body(12345.6, 0.08, 0.08, -1);
        final String header = NcclTestsFormat.columnHeader()[1];
        assertEquals(header.length(), row.length(), row);
        assertEquals("     1048576        262144     float     sum      -1    345.7    3.03    3.03      0    12346" +
            "    0.08    0.08    N/A", row);
        assertEquals(NcclTestsFormat.body(1, 1, 1, 1).length(), NcclTestsFormat.nullBody().length());
    }

    @Test
    void shouldFormatTimeLikeNcclTests()
    {
        assertEquals("  12.35", NcclTestsFormat.time(12.345));
        assertEquals("  123.5", NcclTestsFormat.time(123.45));
        assertEquals("  12346", NcclTestsFormat.time(12345.6));
    }

    @Test
    void shouldPrintFooterWithCStyleG()
    {
        final String[] ok = NcclTestsFormat.footer(0, 0.311655);
        assertEquals("# Out of bounds values : 0 OK", ok[0]);
        assertEquals("# Avg bus bandwidth    : 0.311655 ", ok[1]);
        assertEquals("#", ok[2]);
        assertEquals("# Out of bounds values : 3 FAILED", NcclTestsFormat.footer(3, 0)[0]);
        assertEquals("1", NcclTestsFormat.cG(1.0));
        assertEquals("12.3457", NcclTestsFormat.cG(12.345678));
        assertEquals("0.000295895", NcclTestsFormat.cG(0.000295895));
        assertEquals("0", NcclTestsFormat.cG(0));
    }
}
