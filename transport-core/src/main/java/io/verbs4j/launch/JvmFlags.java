// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.launch;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM flags every verbs4j JVM needs, in one place.
 * <p>
 * Child JVMs started by {@link JvmLauncher} get {@link #LIST}; JMH forks get the individual constants through
 * {@code @Fork(jvmArgsAppend = {...})} (annotation values must be compile-time constants, hence one constant per
 * flag). The same list appears in the top-level {@code verbs4j} launcher script and in the parent pom property
 * {@code verbs4j.jvmFlags} (Surefire's argLine); {@code JvmFlagsAgreementTest} fails the build when the three
 * copies disagree.
 * <ul>
 *     <li>{@link #IGNORE_UNRECOGNIZED} must come first so JDK 17 accepts the JDK 24-only flag.</li>
 *     <li>{@link #ADD_EXPORTS_MISC}: Agrona 2.x reaches {@code jdk.internal.misc.Unsafe}.</li>
 *     <li>{@link #ENABLE_NATIVE_ACCESS} and {@link #UNSAFE_MEMORY_ACCESS} keep JDK 25 quiet.</li>
 * </ul>
 */
public final class JvmFlags
{
    /** Lets JDK 17 ignore {@link #UNSAFE_MEMORY_ACCESS}. */
    public static final String IGNORE_UNRECOGNIZED = "-XX:+IgnoreUnrecognizedVMOptions";

    /** Agrona 2.x needs {@code jdk.internal.misc} exported to the class path. */
    public static final String ADD_EXPORTS_MISC = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";

    /** Silences the restricted-method warning on JDK 22+. */
    public static final String ENABLE_NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    /** Keeps {@code sun.misc.Unsafe} memory access allowed and silent on JDK 24+. */
    public static final String UNSAFE_MEMORY_ACCESS = "--sun-misc-unsafe-memory-access=allow";

    /** All flags, in the order they must be passed. */
    public static final List<String> LIST =
        List.of(IGNORE_UNRECOGNIZED, ADD_EXPORTS_MISC, ENABLE_NATIVE_ACCESS, UNSAFE_MEMORY_ACCESS);

    private JvmFlags()
    {
    }

    /**
     * Normalises a whitespace-separated flag string (as written in a pom property or a shell array) to the
     * one-token form of {@link #LIST}: {@code --add-exports X} becomes {@code --add-exports=X}.
     *
     * @param flags flags separated by whitespace.
     * @return the flags, one per element, in order.
     */
    public static List<String> normalise(final String flags)
    {
        if (null == flags)
        {
            throw new NullPointerException("flags");
        }
        final String[] tokens = flags.trim().split("\\s+");
        final List<String> result = new ArrayList<>();
        for (int i = 0; i < tokens.length; i++)
        {
            final String token = tokens[i];
            if (token.isEmpty())
            {
                continue;
            }
            if ("--add-exports".equals(token) && i + 1 < tokens.length)
            {
                result.add(token + "=" + tokens[++i]);
            }
            else
            {
                result.add(token);
            }
        }
        return result;
    }
}
