// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThreadingModeTest
{
    @Test
    void shouldParseAnyCaseAndNameTheChoicesOtherwise()
    {
        assertEquals(ThreadingMode.DEDICATED, ThreadingMode.parse(" Dedicated "));
        assertEquals(ThreadingMode.INVOKER, ThreadingMode.parse("invoker"));
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> ThreadingMode.parse("agent"));
        assertTrue(ex.getMessage().contains("'agent'") &&
            ex.getMessage().contains("shared, dedicated, invoker or single_thread"),
            ex.getMessage());
    }

    @Test
    void shouldMapTheProgressThreadSwitchOntoTheModes()
    {
        final DeviceContext context = new DeviceContext().threadingMode(ThreadingMode.SHARED);
        assertTrue(context.progressThread());
        context.progressThread(false);
        assertEquals(ThreadingMode.INVOKER, context.threadingMode());
        assertFalse(context.progressThread());
        context.progressThread(true);
        assertEquals(ThreadingMode.SHARED, context.threadingMode());
        context.threadingMode(ThreadingMode.DEDICATED).progressThread(true);
        assertEquals(ThreadingMode.DEDICATED, context.threadingMode(), "a progress thread runs in DEDICATED already");
        assertTrue(context.progressThread());
    }

    @Test
    void shouldRunSingleThreadWithoutAProgressThreadAndKeepItAgainstTheOldSwitch()
    {
        assertEquals(ThreadingMode.SINGLE_THREAD, ThreadingMode.parse("single_thread"));
        assertFalse(ThreadingMode.SINGLE_THREAD.progressThread());
        assertFalse(ThreadingMode.INVOKER.progressThread());
        assertTrue(ThreadingMode.SHARED.progressThread());
        assertTrue(ThreadingMode.DEDICATED.progressThread());
        final DeviceContext context = new DeviceContext().threadingMode(ThreadingMode.SINGLE_THREAD);
        assertFalse(context.progressThread());
        context.progressThread(false);
        assertEquals(ThreadingMode.SINGLE_THREAD, context.threadingMode(), "no progress thread runs in it already");
        context.progressThread(true);
        assertEquals(ThreadingMode.SHARED, context.threadingMode());
    }

    @Test
    void shouldReadTheModeFromSystemPropertiesWithTheOldSwitchAsFallback()
    {
        final String mode = System.getProperty(CoreConfiguration.THREADING_MODE_PROP_NAME);
        final String thread = System.getProperty(CoreConfiguration.PROGRESS_THREAD_PROP_NAME);
        try
        {
            System.clearProperty(CoreConfiguration.THREADING_MODE_PROP_NAME);
            System.clearProperty(CoreConfiguration.PROGRESS_THREAD_PROP_NAME);
            assertEquals(ThreadingMode.SHARED, CoreConfiguration.threadingMode());
            System.setProperty(CoreConfiguration.PROGRESS_THREAD_PROP_NAME, "false");
            assertEquals(ThreadingMode.INVOKER, CoreConfiguration.threadingMode());
            assertEquals(ThreadingMode.INVOKER, new DeviceContext().threadingMode());
            System.setProperty(CoreConfiguration.THREADING_MODE_PROP_NAME, "dedicated");
            assertEquals(ThreadingMode.DEDICATED, CoreConfiguration.threadingMode(), "the mode wins over the switch");
        }
        finally
        {
            restore(CoreConfiguration.THREADING_MODE_PROP_NAME, mode);
            restore(CoreConfiguration.PROGRESS_THREAD_PROP_NAME, thread);
        }
    }

    private static void restore(final String name, final String value)
    {
        if (null == value)
        {
            System.clearProperty(name);
        }
        else
        {
            System.setProperty(name, value);
        }
    }
}
