// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * How much this JVM's JIT compilers have worked so far, as a clock that a warm-up reads before and after a window:
 * a window during which it moved ran (partly) on code that was still being compiled, however steady its time looked.
 * A 1 MiB AllReduce of four processes on two cores ran 300 calls at a steady 5-7 ms each while the four JVMs'
 * compilers competed for the cores, then 0.6-0.7 ms once they were done; a rule that looked at the times alone
 * called the first plateau stable.
 */
public final class JitActivity
{
    private static final LongSupplier NONE = () -> 0;

    private JitActivity()
    {
    }

    /**
     * @return the accumulated compilation time of this JVM in milliseconds
     * ({@link CompilationMXBean#getTotalCompilationTime()}); a clock that never moves where the JVM has no JIT or
     * does not monitor its time (then a warm-up judges by the call times alone).
     */
    public static LongSupplier compileMillis()
    {
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (null == jit || !jit.isCompilationTimeMonitoringSupported())
        {
            return NONE;
        }
        return jit::getTotalCompilationTime;
    }
}
