// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report.chart;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlatJsonTest
{
    @Test
    void shouldReadEveryValueKindTheToolsWrite()
    {
        final Map<String, Object> row = FlatJson.parse(
            " {\"s\":\"a \\\"q\\\" \\\\ \\u00b5s\\t\", \"n\":-1.5E-4, \"i\":42, \"t\":true, \"f\":false, \"z\":null} ");
        assertEquals("a \"q\" \\ µs\t", row.get("s"));
        assertEquals(-1.5e-4, row.get("n"));
        assertEquals(42.0, row.get("i"));
        assertEquals(Boolean.TRUE, row.get("t"));
        assertEquals(Boolean.FALSE, row.get("f"));
        assertTrue(row.containsKey("z"));
        assertNull(row.get("z"));
        assertEquals(0, FlatJson.parse("{}").size());
    }

    @Test
    void shouldRefuseWhatIsNotOneFlatObject()
    {
        assertMessage("expected '{' at column 1", "time 8 0.5");
        assertMessage("unexpected end of line", "{\"a\":1");
        assertMessage("nested objects and arrays", "{\"a\":[1,2]}");
        assertMessage("text after the object", "{\"a\":1} {\"b\":2}");
        assertMessage("not a number", "{\"a\":1.2.3}");
        assertMessage("expected a value", "{\"a\":}");
        assertMessage("bad escape", "{\"a\":\"\\x\"}");
    }

    private static void assertMessage(final String expected, final String line)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> FlatJson.parse(line));
        assertTrue(ex.getMessage().contains(expected), ex::getMessage);
    }
}
