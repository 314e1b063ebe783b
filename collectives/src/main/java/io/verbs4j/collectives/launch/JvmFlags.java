// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import java.util.List;

/**
 * The JVM flags every verbs4j JVM needs, for child JVMs started from code. The same list is the parent pom's
 * {@code verbs4j.jvmFlags} property (a test checks they agree).
 *
 * <p>Agrona 2.x reaches {@code jdk.internal.misc.Unsafe} (hence the export); the last two flags quiet JDK 25 and
 * keep Unsafe memory access on there; JDK 17 skips the flag it does not know because
 * {@code -XX:+IgnoreUnrecognizedVMOptions} comes first.
 */
public final class JvmFlags
{
    /** The flags, in order. */
    public static final List<String> FLAGS = List.of(
        "-XX:+IgnoreUnrecognizedVMOptions",
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow");

    private JvmFlags()
    {
    }
}
