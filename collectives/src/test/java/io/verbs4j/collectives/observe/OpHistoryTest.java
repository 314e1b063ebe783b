// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpHistoryTest
{
    @Test
    void keepsTheLastOperationsOldestFirstWithTheirOutcome()
    {
        final OpHistory history = new OpHistory(3);
        for (int seq = 1; seq <= 5; seq++)
        {
            history.begin(seq, "allReduce", 8L * seq, 1_000_000L * seq);
            history.end("RECURSIVE_DOUBLING", seq != 4);
        }
        history.begin(6, "barrier", 0, 6_000_000L);

        final String text = history.describe(7_500_000L);
        final String[] lines = text.split("\n");
        assertEquals(3, lines.length, text);
        assertTrue(lines[0].startsWith("  #4 allReduce 32 B RECURSIVE_DOUBLING, started 3.500 ms ago, FAILED"), text);
        assertTrue(lines[1].startsWith("  #5 allReduce 40 B RECURSIVE_DOUBLING, started 2.500 ms ago, completed"),
            text);
        assertEquals("  #6 barrier 0 B, started 1.500 ms ago, NOT COMPLETED", lines[2]);
        assertEquals(6, history.count());
    }

    @Test
    void anEmptyOrDisabledHistorySaysSo()
    {
        assertEquals("(no operation yet)", new OpHistory(4).describe(0));
        final OpHistory off = new OpHistory(0);
        off.begin(1, "allReduce", 8, 0);
        off.end(null, true);
        assertEquals("(history disabled)", off.describe(0));
        assertEquals(1, off.count());
        assertThrows(IllegalArgumentException.class, () -> new OpHistory(-1));
    }

    @Test
    void endWithoutBeginChangesNothing()
    {
        final OpHistory history = new OpHistory(2);
        history.end("RING", false);
        history.begin(1, "broadcast", 4, 0);
        history.end(null, true);
        history.end("RING", false);
        final String text = history.describe(0);
        assertTrue(text.contains("#1 broadcast 4 B, started 0.000 ms ago, completed"), text);
        assertFalse(text.contains("FAILED"), text);
    }
}
