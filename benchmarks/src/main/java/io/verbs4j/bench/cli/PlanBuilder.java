// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.run.PerftestTransport;
import io.verbs4j.bench.run.TestPlan;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.bench.spi.TransportUnderTest;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns validated perftest options into the ordered list of tables: all latency tables first, then all bandwidth
 * tables, transports in the order given (or registry order). A transport is left out of a kind it does not
 * implement at any of the sizes; a transport named explicitly that fits none of the requested tests is an error.
 */
public final class PlanBuilder
{
    /** perftest's default latency size is 2 B; 8 B is used here, the size of the peer reference figures. */
    public static final int DEFAULT_LATENCY_BYTES = 8;
    /** perftest's default bandwidth size ({@code DEF_SIZE_BW}). */
    public static final int DEFAULT_BANDWIDTH_BYTES = 65536;
    /** perftest's default latency iterations ({@code DEF_ITERS}). */
    public static final long DEFAULT_LATENCY_ITERATIONS = 1000;
    /** perftest's default bandwidth iterations ({@code DEF_ITERS_WB}). */
    public static final long DEFAULT_BANDWIDTH_ITERATIONS = 5000;

    private PlanBuilder()
    {
    }

    /**
     * Builds the plans.
     *
     * @param transportNames requested names, empty for all.
     * @param kinds          requested kinds, in order.
     * @param sizes          requested sizes, or {@code null} for each kind's default.
     * @param iterations     timed iterations, or {@code null} for each kind's default.
     * @param warmup         warm-up iterations, or {@code null} for "same as iterations".
     * @param window         bandwidth window.
     * @param busyPoll       idle mode.
     * @param timeoutMs      longest single wait.
     * @param warmupMinMs    least warm-up time per size (0: exactly the warm-up iterations).
     * @return the plans.
     * @throws IllegalArgumentException with a user-facing message for unknown or unusable transports.
     */
    public static List<TestPlan> build(
        final List<String> transportNames,
        final List<TestKind> kinds,
        final List<Integer> sizes,
        final Long iterations,
        final Long warmup,
        final int window,
        final boolean busyPoll,
        final long timeoutMs,
        final long warmupMinMs)
    {
        final boolean explicit = !transportNames.isEmpty();
        final List<PerftestTransport> transports = new ArrayList<>();
        if (explicit)
        {
            for (final String name : new LinkedHashSet<>(transportNames))
            {
                final PerftestTransport transport = PerftestTransport.find(name);
                if (null == transport)
                {
                    throw new IllegalArgumentException(
                        "unknown transport '" + name + "'; known: " + String.join(", ", PerftestTransport.names()));
                }
                transports.add(transport);
            }
        }
        else
        {
            transports.addAll(List.of(PerftestTransport.values()));
        }

        final List<TestPlan> plans = new ArrayList<>();
        final Set<PerftestTransport> used = EnumSet.noneOf(PerftestTransport.class);
        for (final TestKind kind : new LinkedHashSet<>(kinds))
        {
            final List<Integer> kindSizes = null != sizes ? sizes :
                List.of(TestKind.LATENCY == kind ? DEFAULT_LATENCY_BYTES : DEFAULT_BANDWIDTH_BYTES);
            final long kindIterations = null != iterations ? iterations :
                (TestKind.LATENCY == kind ? DEFAULT_LATENCY_ITERATIONS : DEFAULT_BANDWIDTH_ITERATIONS);
            final long kindWarmup = null != warmup ? warmup : kindIterations;
            final int kindWindow = TestKind.LATENCY == kind ? 1 : window;
            for (final PerftestTransport transport : transports)
            {
                if (supportsAny(transport.instance(), kind, kindSizes))
                {
                    used.add(transport);
                    plans.add(new TestPlan(
                        transport, kind, kindSizes, kindWarmup, kindIterations, kindWindow, busyPoll, timeoutMs,
                        warmupMinMs));
                }
            }
        }
        if (explicit)
        {
            for (final PerftestTransport transport : transports)
            {
                if (!used.contains(transport))
                {
                    throw new IllegalArgumentException("transport '" + transport.transportName() +
                        "' supports none of the requested tests/sizes (see --list)");
                }
            }
        }
        return plans;
    }

    private static boolean supportsAny(final TransportUnderTest transport, final TestKind kind,
        final List<Integer> sizes)
    {
        for (final int size : sizes)
        {
            if (transport.supports(kind, size))
            {
                return true;
            }
        }
        return false;
    }
}
