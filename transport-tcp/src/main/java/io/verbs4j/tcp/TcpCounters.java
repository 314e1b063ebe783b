// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The counters of one device: one atomic long per {@link TcpCounter}, updated by the I/O threads without
 * allocating. Cheap enough for the data path (an uncontended atomic add per frame).
 */
public final class TcpCounters
{
    private final AtomicLongArray values = new AtomicLongArray(TcpCounter.values().length);

    /**
     * @param counter the counter.
     * @param delta   amount to add.
     */
    public void add(final TcpCounter counter, final long delta)
    {
        values.getAndAdd(counter.id(), delta);
    }

    /**
     * @param counter the counter.
     */
    public void increment(final TcpCounter counter)
    {
        values.getAndIncrement(counter.id());
    }

    /**
     * @param counter the counter.
     * @return its value.
     */
    public long get(final TcpCounter counter)
    {
        return values.get(counter.id());
    }

    /** {@inheritDoc} */
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("TcpCounters{");
        for (final TcpCounter counter : TcpCounter.values())
        {
            sb.append(counter.name()).append('=').append(get(counter)).append(counter.ordinal() <
                TcpCounter.values().length - 1 ? ", " : "}");
        }
        return sb.toString();
    }
}
