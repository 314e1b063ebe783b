// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

import java.nio.charset.StandardCharsets;

import io.verbs4j.launch.JvmLauncher;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** A JVM started without the Agrona flag gets a message naming the flag, not an IllegalAccessError. */
class JvmFlagsTest
{
    /** Child entry point: opens a provider without the flag. */
    public static final class Child
    {
        public static void main(final String[] args)
        {
            try
            {
                Verbs.open("any");
            }
            catch (final IllegalStateException ex)
            {
                System.out.println("MESSAGE " + ex.getMessage());
            }
        }
    }

    @Test
    void shouldNameTheMissingFlag() throws Exception
    {
        final Process process = JvmLauncher.of(Child.class).withoutFlags().processBuilder()
            .redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        assertTrue(output.contains("MESSAGE") &&
            output.contains("--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"),
            output);
    }
}
