// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

import java.util.List;

/**
 * What one process's counters file holds: who wrote it, when, and every counter by group, in registration order.
 *
 * @param pid        the process that wrote it.
 * @param command    its command line, as {@link ProcessHandle.Info#commandLine()} gave it (may be empty).
 * @param timeMillis when it was written, {@link System#currentTimeMillis()}.
 * @param counters   the counters.
 */
public record StatSnapshot(long pid, String command, long timeMillis, List<Counter> counters)
{
    /**
     * One counter.
     *
     * @param group the group, e.g. {@code tcp device 1}.
     * @param label what it counts.
     * @param value its value when the file was written.
     */
    public record Counter(String group, String label, long value)
    {
    }

    /**
     * @param pid        the process that wrote it.
     * @param command    its command line (may be empty).
     * @param timeMillis when it was written.
     * @param counters   the counters, copied.
     */
    public StatSnapshot
    {
        counters = List.copyOf(counters);
    }
}
