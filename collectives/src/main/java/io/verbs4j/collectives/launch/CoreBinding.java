// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One core per rank process, as {@code mpirun --bind-to core} does: rank r runs under {@code taskset -c <cpu r>}.
 * Unbound, two rank processes on two cores were measured to share a core for whole rows of an 8-byte AllReduce
 * (2–7 µs a call instead of 0.4 µs) until the scheduler moved one; the C peers the benchmarks are compared with are
 * bound. Java has no affinity API, so this needs the util-linux {@code taskset} and the allowed-CPU list of
 * {@code /proc/self/status}; where either is missing, or ranks outnumber the allowed CPUs, nothing is bound.
 */
final class CoreBinding
{
    /** Environment variable a bound rank finds its CPU in. */
    static final String BOUND_CPU_ENV = "VERBS4J_BOUND_CPU";

    private static final Path[] TASKSET = {Path.of("/usr/bin/taskset"), Path.of("/bin/taskset")};

    private CoreBinding()
    {
    }

    /**
     * @param size ranks to place.
     * @return the CPU of each rank, or null when they cannot each have one (or binding is unavailable here).
     */
    static int[] plan(final int size)
    {
        if (null == taskset())
        {
            return null;
        }
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Cpus_allowed_list:"))
                {
                    return plan(size, parseList(line.substring(line.indexOf(':') + 1).trim()));
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
        return null;
    }

    /**
     * @param size ranks.
     * @param cpus allowed CPUs.
     * @return the first {@code size} CPUs, one per rank, or null when there are fewer CPUs than ranks.
     */
    static int[] plan(final int size, final List<Integer> cpus)
    {
        if (size < 1 || cpus.size() < size)
        {
            return null;
        }
        final int[] plan = new int[size];
        for (int rank = 0; rank < size; rank++)
        {
            plan[rank] = cpus.get(rank);
        }
        return plan;
    }

    /**
     * @param list a kernel CPU list such as {@code 0-3,8,10-11}.
     * @return the CPUs in it, in order.
     * @throws NumberFormatException if it is not such a list.
     */
    static List<Integer> parseList(final String list)
    {
        final List<Integer> cpus = new ArrayList<>();
        for (final String part : list.split(","))
        {
            final String range = part.trim();
            if (range.isEmpty())
            {
                continue;
            }
            final int dash = range.indexOf('-');
            final int first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            final int last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1));
            for (int cpu = first; cpu <= last; cpu++)
            {
                cpus.add(cpu);
            }
        }
        return cpus;
    }

    /** @return the taskset executable, or null. */
    static String taskset()
    {
        for (final Path path : TASKSET)
        {
            if (Files.isExecutable(path))
            {
                return path.toString();
            }
        }
        return null;
    }
}
