// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shmem module uses only the verbs API and finds providers at run time, like collectives: no main source names
 * io.verbs4j.shm or io.verbs4j.tcp, and no compiled main class refers to them.
 */
class NoProviderDependencyTest
{
    // with the dot: "io.verbs4j.shm" is a prefix of this module's own package
    private static final List<String> FORBIDDEN = List.of("io.verbs4j.shm.", "io.verbs4j.tcp.");

    @Test
    void mainSourcesDoNotMentionProviderPackages() throws IOException
    {
        final Path sources = Path.of("src/main/java");
        assertTrue(Files.isDirectory(sources), "run from the module directory");
        try (Stream<Path> files = Files.walk(sources))
        {
            final List<String> offenders = files.filter(p -> p.toString().endsWith(".java"))
                .filter(p -> contains(p, FORBIDDEN)).map(Path::toString).collect(Collectors.toList());
            assertEquals(List.of(), offenders);
        }
    }

    @Test
    void mainClassesDoNotReferToProviderClasses() throws IOException
    {
        final Path classes = Path.of("target/classes");
        assertTrue(Files.isDirectory(classes), "compile first");
        try (Stream<Path> files = Files.walk(classes))
        {
            final List<String> offenders = files.filter(p -> p.toString().endsWith(".class"))
                .filter(p -> contains(p, List.of("io/verbs4j/shm/", "io/verbs4j/tcp/")))
                .map(Path::toString).collect(Collectors.toList());
            assertEquals(List.of(), offenders);
        }
    }

    private static boolean contains(final Path file, final List<String> needles)
    {
        try
        {
            final String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            return needles.stream().anyMatch(text::contains);
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
