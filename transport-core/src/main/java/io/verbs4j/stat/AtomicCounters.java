// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters that any thread may add to: one atomic long per counter of the set {@code T}, updated without
 * allocating. An uncontended atomic add each; where one thread at a time owns what is counted,
 * {@link SingleWriterCounters} costs less.
 *
 * @param <T> the counter set (an enum implementing {@link CounterType}).
 */
public class AtomicCounters<T extends Enum<T> & CounterType>
{
    private final T[] types;
    private final AtomicLongArray values;

    /**
     * @param type the enum of the counter set.
     */
    public AtomicCounters(final Class<T> type)
    {
        this.types = type.getEnumConstants();
        this.values = new AtomicLongArray(types.length);
    }

    /**
     * @param counter the counter.
     * @param delta   amount to add.
     */
    public final void add(final T counter, final long delta)
    {
        values.getAndAdd(counter.id(), delta);
    }

    /**
     * @param counter the counter.
     */
    public final void increment(final T counter)
    {
        values.getAndIncrement(counter.id());
    }

    /**
     * @param counter the counter.
     * @return its value.
     */
    public final long get(final T counter)
    {
        return values.get(counter.id());
    }

    /** @return every counter with its label, for {@link StatRegistry#register}. */
    public final StatSource source()
    {
        return sink ->
        {
            for (final T counter : types)
            {
                sink.counter(counter.label(), get(counter));
            }
        };
    }

    /** {@inheritDoc} */
    public String toString()
    {
        final StringBuilder sb = new StringBuilder(getClass().getSimpleName()).append('{');
        for (final T counter : types)
        {
            sb.append(counter.name()).append('=').append(get(counter)).append(counter.ordinal() < types.length - 1 ?
                ", " : "}");
        }
        return sb.toString();
    }
}
