// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;

import org.junit.jupiter.api.Test;

class CommunicatorAssemblyTest
{
    private static final String MODE = CommunicatorAssembly.TCP_MODE_PROPERTY;

    @Test
    void shouldGiveABusyPollingCommunicatorsTcpDevicesPollMode()
    {
        final Map<String, String> properties = CommunicatorAssembly.deviceProperties(
            new CommunicatorContext().idle(Long.MAX_VALUE, 0, 1, 1).deviceProperty("verbs4j.tcp.io.threads", "2"));
        assertEquals("poll", properties.get(MODE), "its waiting threads read the sockets");
        assertEquals("2", properties.get("verbs4j.tcp.io.threads"), "the context's own properties stay");
    }

    @Test
    void shouldLeaveTheModeAloneForAWaitingThatYields()
    {
        assertFalse(CommunicatorAssembly.deviceProperties(new CommunicatorContext().idle(1000, 10, 1000, 100_000))
            .containsKey(MODE), "spin, yield, park: the I/O threads get their turn (event mode, the default)");
    }

    @Test
    void shouldKeepAModeTheUserChose()
    {
        assertEquals("event", CommunicatorAssembly.deviceProperties(
            new CommunicatorContext().idle(Long.MAX_VALUE, 0, 1, 1).deviceProperty(MODE, "event")).get(MODE));
        final String before = System.getProperty(MODE);
        System.setProperty(MODE, "event");
        try
        {
            assertFalse(CommunicatorAssembly.deviceProperties(new CommunicatorContext().idle(Long.MAX_VALUE, 0, 1, 1))
                .containsKey(MODE), "the system property applies to every device as it is");
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(MODE);
            }
            else
            {
                System.setProperty(MODE, before);
            }
        }
    }
}
