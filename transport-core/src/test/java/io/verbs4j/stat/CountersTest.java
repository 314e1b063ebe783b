// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.stat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The two counter stores a provider builds its counters from. */
class CountersTest
{
    private enum Sample implements CounterType
    {
        FRAMES(0, "frames"),
        BYTES(1, "bytes");

        private final int id;
        private final String label;

        Sample(final int id, final String label)
        {
            this.id = id;
            this.label = label;
        }

        @Override
        public int id()
        {
            return id;
        }

        @Override
        public String label()
        {
            return label;
        }
    }

    @Test
    void atomicCountersAddFromAnyThreadAndReportEveryCounterWithItsLabel() throws Exception
    {
        final AtomicCounters<Sample> counters = new AtomicCounters<>(Sample.class);
        final Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++)
        {
            threads[t] = new Thread(() ->
            {
                for (int i = 0; i < 10_000; i++)
                {
                    counters.increment(Sample.FRAMES);
                    counters.add(Sample.BYTES, 3);
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        final List<String> reported = new ArrayList<>();
        counters.source().sample((label, value) -> reported.add(label + "=" + value));
        assertEquals(List.of("frames=40000", "bytes=120000"), reported);
        assertEquals("AtomicCounters{FRAMES=40000, BYTES=120000}", counters.toString());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void singleWriterCountersAreReadWholeByAnotherThread() throws Exception
    {
        final SingleWriterCounters counters = new SingleWriterCounters(Sample.values().length);
        final long total = 1_000_000;
        final Thread writer = new Thread(() ->
        {
            for (long i = 0; i < total; i++)
            {
                counters.increment(Sample.FRAMES);
                counters.add(Sample.BYTES, 1L << 33);
            }
        });
        writer.start();
        long seen = 0;
        while (seen < total)
        {
            final long frames = counters.get(Sample.FRAMES);
            final long bytes = counters.get(Sample.BYTES);
            assertEquals(0, bytes % (1L << 33), "a value read whole, never half of one");
            assertTrue(frames >= seen, "never backwards");
            seen = frames;
            Thread.onSpinWait();
        }
        writer.join();
        assertEquals(total, counters.get(Sample.FRAMES));
        assertEquals(total << 33, counters.get(Sample.BYTES));
        assertEquals(2, counters.size());
    }
}
