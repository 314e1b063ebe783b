// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class WindowPlanTest
{
    @Test
    void shouldCutMessagesIntoFullWindowsAndAShortLastOne()
    {
        assertEquals(3, WindowPlan.windowCount(300, 128));
        assertEquals(128, WindowPlan.windowSize(300, 128, 0));
        assertEquals(128, WindowPlan.windowSize(300, 128, 1));
        assertEquals(44, WindowPlan.windowSize(300, 128, 2));
        assertEquals(0, WindowPlan.windowCount(0, 128));
    }
}
