// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CommunicatorAssemblyTest
{
    @Test
    void shouldCallAContextThatNeverYieldsBusyPolling()
    {
        assertTrue(CommunicatorAssembly.busyPolls(new CommunicatorContext().idle(Long.MAX_VALUE, 0, 1, 1)));
        assertTrue(CommunicatorAssembly.busyPolls(new CommunicatorContext().idle(Integer.MAX_VALUE, 0, 1, 1)));
        assertFalse(CommunicatorAssembly.busyPolls(new CommunicatorContext().idle(1000, 10, 1000, 100_000)),
            "spin, yield, park");
    }
}
