// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.collectives.measure.WarmupPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The warm-up settings reach the rank processes ({@link CollSettings#toArgs()}) and become the right policy. */
class CollSettingsTest
{
    @Test
    void shouldWarmUpUntilStableWithMinusWAsTheLeastCallsByDefault()
    {
        final CollSettings s = new CollSettings();
        assertEquals(WarmupPolicy.DEFAULT_MIN_CALLS, s.warmup);
        assertEquals(WarmupPolicy.untilStable().describe(), s.warmupPolicy().describe());
        s.warmup = 20;
        assertFalse(s.warmupPolicy().exact());
        assertEquals(20, s.warmupPolicy().minCalls());
        final List<String> args = s.toArgs();
        assertEquals("20", args.get(args.indexOf("-w") + 1));
        assertFalse(args.contains("--warmup-exact"));
    }

    @Test
    void shouldPassAnExactWarmupToTheRankProcesses()
    {
        final CollSettings s = new CollSettings();
        s.warmup = 7;
        s.warmupExact = true;
        assertTrue(s.warmupPolicy().exact());
        assertEquals(7, s.warmupPolicy().minCalls());
        final List<String> args = s.toArgs();
        assertEquals("7", args.get(args.indexOf("-w") + 1));
        assertTrue(args.contains("--warmup-exact"));
    }
}
