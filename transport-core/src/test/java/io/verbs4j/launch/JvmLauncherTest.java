// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.launch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class JvmLauncherTest
{
    /** Child entry point: prints its arguments and a system property, then waits to be killed if asked to. */
    public static final class Echo
    {
        public static void main(final String[] args) throws InterruptedException
        {
            System.out.println("ARGS " + String.join(",", args) + " PROP " + System.getProperty("launcher.test"));
            if (args.length > 0 && "hang".equals(args[0]))
            {
                Thread.sleep(60_000);
            }
        }
    }

    @Test
    void shouldWriteThePrefixJavaFlagsJvmArgsClassPathMainClassAndArgsInOrder()
    {
        final List<String> command = JvmLauncher.of("a.Main")
            .prefix(List.of("taskset", "-c", "1"))
            .jvmArgs(List.of("-Xmx64m"))
            .classPath("cp1:cp2")
            .args(List.of("x", "y"))
            .command();

        final List<String> expected = new ArrayList<>(List.of("taskset", "-c", "1",
            JvmLauncher.javaExecutable()));
        expected.addAll(JvmFlags.LIST);
        expected.addAll(List.of("-Xmx64m", "-cp", "cp1:cp2", "a.Main", "x", "y"));
        assertEquals(expected, command);
    }

    @Test
    void shouldLeaveOutTheFlagsOnlyWhenAsked()
    {
        final List<String> command = JvmLauncher.of("a.Main").withoutFlags().command();

        assertEquals(List.of(JvmLauncher.javaExecutable(), "-cp", System.getProperty("java.class.path"), "a.Main"),
            command);
    }

    @Test
    void shouldRefuseABlankMainClassOrClassPath()
    {
        final IllegalArgumentException blankMain =
            assertThrows(IllegalArgumentException.class, () -> JvmLauncher.of(" "));
        assertTrue(blankMain.getMessage().contains("main class"), blankMain.getMessage());
        final IllegalArgumentException blankPath =
            assertThrows(IllegalArgumentException.class, () -> JvmLauncher.of("a.Main").classPath(""));
        assertTrue(blankPath.getMessage().contains("classPath"), blankPath.getMessage());
    }

    @Test
    void shouldRunAChildWithTheArgumentsAndJvmArgs() throws Exception
    {
        try (ChildJvm child = ChildJvm.builder("echo", Echo.class)
            .jvmArgs(List.of("-Dlauncher.test=on"))
            .args(List.of("a", "b"))
            .start())
        {
            assertEquals("ARGS a,b PROP on", child.awaitLine("ARGS", ChildJvm.CALL_TIMEOUT_MS));
            assertTrue(child.waitFor(ChildJvm.CALL_TIMEOUT_MS));
            assertEquals(0, child.exitValue());
        }
    }

    @Test
    void shouldKillAChildThatHangsWhenClosed() throws Exception
    {
        final ChildJvm child = ChildJvm.builder("hanging echo", Echo.class).args(List.of("hang")).start();
        child.awaitLine("ARGS", ChildJvm.CALL_TIMEOUT_MS);

        child.close();

        assertFalse(child.isAlive(), "close() without an exit command kills the child");
    }

    @Test
    void shouldStopAChildWithinTheGracePeriod() throws Exception
    {
        final Process process = JvmLauncher.of(Echo.class).args(List.of("hang")).start();
        try
        {
            ProcessReaper.stop(process, Duration.ofSeconds(10));

            assertFalse(process.isAlive());
        }
        finally
        {
            process.destroyForcibly();
        }
    }
}
