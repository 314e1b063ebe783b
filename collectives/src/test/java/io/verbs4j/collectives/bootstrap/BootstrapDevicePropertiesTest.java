// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;

import org.junit.jupiter.api.Test;

class BootstrapDevicePropertiesTest
{
    private static final String MODE = Bootstrap.TCP_MODE_PROPERTY;

    @Test
    void shouldGiveBusyPollingThreadsTheTcpSocketsToRead()
    {
        final Map<String, String> properties = Bootstrap.deviceProperties(Map.of("verbs4j.tcp.io.threads", "2"), true);
        assertEquals("poll", properties.get(MODE), "the waiting threads read the sockets");
        assertEquals("2", properties.get("verbs4j.tcp.io.threads"), "the properties asked for stay");
    }

    @Test
    void shouldLeaveTheModeAloneForThreadsThatYield()
    {
        final Map<String, String> asked = Map.of("verbs4j.tcp.io.threads", "2");
        assertSame(asked, Bootstrap.deviceProperties(asked, false),
            "spin, yield, park: the I/O threads get their turn (event mode, the default)");
    }

    @Test
    void shouldKeepAModeTheUserChose()
    {
        assertEquals("event", Bootstrap.deviceProperties(Map.of(MODE, "event"), true).get(MODE));
        final String before = System.getProperty(MODE);
        System.setProperty(MODE, "event");
        try
        {
            assertFalse(Bootstrap.deviceProperties(Map.of(), true).containsKey(MODE),
                "the system property applies to every device as it is");
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
