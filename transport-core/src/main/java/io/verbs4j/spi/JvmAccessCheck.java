// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * Checks, at first use, that the JVM lets Agrona reach what it needs, so that a missing flag is reported plainly
 * instead of as an {@code IllegalAccessError} deep inside a ring buffer.
 */
public final class JvmAccessCheck
{
    /** The flag Agrona 2.x needs. */
    public static final String REQUIRED_FLAG = "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED";

    private static volatile boolean checked;

    private JvmAccessCheck()
    {
    }

    /**
     * @throws IllegalStateException naming the missing JVM flag.
     */
    public static void ensureAgronaAccess()
    {
        if (checked)
        {
            return;
        }
        final Module javaBase = Object.class.getModule();
        final Module agrona = org.agrona.BitUtil.class.getModule();
        if (!javaBase.isExported("jdk.internal.misc", agrona))
        {
            throw new IllegalStateException("verbs4j needs the JVM flag '" + REQUIRED_FLAG + "' (Agrona 2.x uses " +
                "jdk.internal.misc.Unsafe). Add it to the java command line, to Surefire's argLine, to JMH's " +
                "@Fork(jvmArgsAppend) or to JDK_JAVA_OPTIONS; the ./verbs4j launcher sets it for you.");
        }
        checked = true;
    }
}
