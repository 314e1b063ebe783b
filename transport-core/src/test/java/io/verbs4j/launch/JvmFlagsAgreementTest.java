// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.launch;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The three copies of the JVM flags (this class, the launcher script, the parent pom) agree. */
class JvmFlagsAgreementTest
{
    @Test
    void shouldMatchTheLauncherScript() throws Exception
    {
        final Path script = Path.of("..", "verbs4j");
        assertTrue(Files.isRegularFile(script), "launcher script not found at " + script.toAbsolutePath());
        final String line = Files.readAllLines(script).stream()
            .filter(l -> l.startsWith("JVM_FLAGS=("))
            .findFirst()
            .orElseThrow();
        final String flags = line.substring("JVM_FLAGS=(".length(), line.lastIndexOf(')'));

        assertEquals(JvmFlags.LIST, JvmFlags.normalise(flags));
    }

    @Test
    void shouldMatchTheParentPomProperty()
    {
        final String fromPom = System.getProperty("verbs4j.test.jvmFlags");
        assertNotNull(fromPom, "surefire must pass verbs4j.test.jvmFlags (parent pom)");

        assertEquals(JvmFlags.LIST, JvmFlags.normalise(fromPom));
    }

    @Test
    void shouldNormaliseTwoTokenAddExports()
    {
        assertEquals(
            List.of("-XX:+IgnoreUnrecognizedVMOptions", "--add-exports=java.base/x=ALL-UNNAMED"),
            JvmFlags.normalise(" -XX:+IgnoreUnrecognizedVMOptions  --add-exports java.base/x=ALL-UNNAMED "));
    }
}
