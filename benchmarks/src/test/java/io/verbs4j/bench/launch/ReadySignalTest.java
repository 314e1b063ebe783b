// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.launch;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReadySignalTest
{
    @Test
    void shouldRoundTripEndpoint()
    {
        assertEquals("127.0.0.1:4242", ReadySignal.parse(ReadySignal.format("127.0.0.1:4242")));
    }

    @Test
    void shouldIgnoreOtherLines()
    {
        assertNull(ReadySignal.parse("# server listening"));
        assertNull(ReadySignal.parse(null));
        assertNull(ReadySignal.parse(ReadySignal.PREFIX + "  "));
    }

    @Test
    void shouldRejectMultiLineEndpoint()
    {
        assertThrows(IllegalArgumentException.class, () -> ReadySignal.format("a\nb"));
    }
}
