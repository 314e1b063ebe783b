// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.util.concurrent.CopyOnWriteArrayList;

import io.verbs4j.stat.AtomicCounters;
import io.verbs4j.stat.SingleWriterCounters;
import io.verbs4j.stat.StatSource;

/**
 * The counters of one shm device: the device's own ({@link ShmCounter#perQueuePair()} false, atomic, rare events)
 * and the queue pairs' data-path counters ({@link SingleWriterCounters}, one set per queue pair), summed when read.
 * A closed queue pair's counts are folded into the device's, so they stay in the totals.
 */
final class ShmCounters
{
    private final AtomicCounters<ShmCounter> device = new AtomicCounters<>(ShmCounter.class);
    private final CopyOnWriteArrayList<SingleWriterCounters> queuePairs = new CopyOnWriteArrayList<>();

    /** @return a new queue pair's counters, counted in this device's totals until {@link #detach}. */
    SingleWriterCounters attach()
    {
        final SingleWriterCounters counters = new SingleWriterCounters(ShmCounter.values().length);
        queuePairs.add(counters);
        return counters;
    }

    /**
     * Folds a closed queue pair's counts into the device's; call once no thread writes them any more.
     *
     * @param counters what {@link #attach} returned.
     */
    void detach(final SingleWriterCounters counters)
    {
        if (queuePairs.remove(counters))
        {
            for (final ShmCounter counter : ShmCounter.values())
            {
                if (counter.perQueuePair())
                {
                    device.add(counter, counters.get(counter));
                }
            }
        }
    }

    /**
     * Counts a device event (any thread).
     *
     * @param counter a device counter.
     */
    void increment(final ShmCounter counter)
    {
        device.increment(counter);
    }

    /**
     * @param counter a counter.
     * @return its value: the device's, plus every open queue pair's for a per-queue-pair counter.
     */
    long get(final ShmCounter counter)
    {
        long value = device.get(counter);
        if (counter.perQueuePair())
        {
            for (final SingleWriterCounters qp : queuePairs)
            {
                value += qp.get(counter);
            }
        }
        return value;
    }

    /** @return every counter with its label, for the counters file. */
    StatSource source()
    {
        return sink ->
        {
            for (final ShmCounter counter : ShmCounter.values())
            {
                sink.counter(counter.label(), get(counter));
            }
        };
    }
}
