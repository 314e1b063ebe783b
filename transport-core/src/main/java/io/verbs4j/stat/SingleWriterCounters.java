// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counters of a data path, for state that one thread at a time owns (a queue pair's send side under its lock, its
 * receive side under another): each add is a plain read and an opaque store, no atomic read-modify-write, no
 * allocation (on x86 the same instructions as a field increment). Each counter must have one writer at a time,
 * with a happens-before edge (a lock hand-over) between successive writers; different counters may have different
 * writers. Any thread may read: opaque loads see every value whole, recent but not necessarily the latest. A
 * device keeps one instance per queue pair and sums them when sampled.
 */
public final class SingleWriterCounters
{
    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] values;

    /**
     * @param size how many counters (the size of the counter set).
     */
    public SingleWriterCounters(final int size)
    {
        this.values = new long[size];
    }

    /**
     * Adds to a counter; only from the thread that owns it now.
     *
     * @param counter the counter.
     * @param delta   amount to add.
     */
    public void add(final CounterType counter, final long delta)
    {
        final int id = counter.id();
        VALUES.setOpaque(values, id, values[id] + delta);
    }

    /**
     * Adds one to a counter; only from the thread that owns it now.
     *
     * @param counter the counter.
     */
    public void increment(final CounterType counter)
    {
        add(counter, 1);
    }

    /**
     * @param counter the counter.
     * @return its value; any thread.
     */
    public long get(final CounterType counter)
    {
        return (long)VALUES.getOpaque(values, counter.id());
    }

    /** @return how many counters. */
    public int size()
    {
        return values.length;
    }
}
