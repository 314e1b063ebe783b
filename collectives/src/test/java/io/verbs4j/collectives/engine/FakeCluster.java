// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.algorithm.CostModel;
import io.verbs4j.collectives.link.MemoryLinks;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * Runs one {@link CollectiveEngine} per thread over {@link MemoryLinks}: the algorithms and the engine without any
 * provider.
 */
public final class FakeCluster
{
    /** Body of one rank. */
    @FunctionalInterface
    public interface Body
    {
        /**
         * @param engine the rank's engine.
         * @param rank   rank.
         * @param mesh   the shared fake links (to kill ranks).
         * @throws Exception to fail.
         */
        void run(CollectiveEngine engine, int rank, MemoryLinks.Mesh mesh) throws Exception;
    }

    private FakeCluster()
    {
    }

    /**
     * @param size      ranks.
     * @param slots     slots per link.
     * @param slotBytes slot size.
     * @param timeoutMs operation timeout.
     * @param body      rank body.
     * @return per-rank failures (null entries for success).
     */
    public static Throwable[] run(final int size, final int slots, final int slotBytes, final long timeoutMs,
        final Body body)
    {
        final MemoryLinks.Mesh mesh = new MemoryLinks.Mesh(size, slots, slotBytes);
        final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(size);
        final Thread[] threads = new Thread[size];
        for (int r = 0; r < size; r++)
        {
            final int rank = r;
            threads[r] = new Thread(() ->
            {
                final CollectiveEngine engine = new CollectiveEngine(mesh.links(rank), slotBytes,
                    new BackoffIdleStrategy(10, 20, 1000, 100_000), TimeUnit.MILLISECONDS.toNanos(timeoutMs), null,
                    CostModel.defaults("shm"), Algorithm.AUTO);
                try
                {
                    body.run(engine, rank, mesh);
                }
                catch (final Throwable t)
                {
                    failures.set(rank, t);
                }
                finally
                {
                    engine.close();
                }
            }, "fake-rank-" + r);
            threads[r].setDaemon(true);
            threads[r].start();
        }
        final Throwable[] result = new Throwable[size];
        for (int r = 0; r < size; r++)
        {
            try
            {
                threads[r].join(TimeUnit.MILLISECONDS.toMillis(timeoutMs) * 4 + 10_000);
            }
            catch (final InterruptedException ex)
            {
                throw new IllegalStateException(ex);
            }
            if (threads[r].isAlive())
            {
                throw new IllegalStateException("fake rank " + r + " did not finish");
            }
            result[r] = failures.get(r);
        }
        return result;
    }

    /**
     * Runs and rethrows the first failure.
     *
     * @param size      ranks.
     * @param slots     slots.
     * @param slotBytes slot size.
     * @param body      body.
     */
    public static void runOk(final int size, final int slots, final int slotBytes, final Body body)
    {
        final Throwable[] failures = run(size, slots, slotBytes, 20_000, body);
        for (int r = 0; r < size; r++)
        {
            if (null != failures[r])
            {
                final AssertionError error = new AssertionError("rank " + r + " failed: " + failures[r], failures[r]);
                for (int q = r + 1; q < size; q++)
                {
                    if (null != failures[q])
                    {
                        error.addSuppressed(failures[q]);
                    }
                }
                throw error;
            }
        }
    }
}
