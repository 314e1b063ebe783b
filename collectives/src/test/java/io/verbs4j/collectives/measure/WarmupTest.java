// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.measure;

import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The warm-up runner: with a fake clock and a local decision, then on a real communicator of 3 threads. */
class WarmupTest
{
    @Test
    void shouldRunWindowsUntilRankZeroSaysStopAndReportThem()
    {
        final AtomicLong clock = new AtomicLong();
        final List<Long> shared = new ArrayList<>();
        final SharedDecision local = value ->
        {
            shared.add(value);
            return value;
        };
        final List<Long> windows = new ArrayList<>();
        // 1 us per call; the clock also moves 1 us per reading (the decision's cost)
        final Warmup warmup = new Warmup(WarmupPolicy.untilStable(), local, true, () -> clock.addAndGet(1_000));
        final WarmupResult r = warmup.run(calls ->
        {
            windows.add(calls);
            clock.addAndGet(calls * 1_000);
        });
        assertTrue(r.stable(), r::describe);
        assertEquals(windows.size(), r.windows());
        assertEquals(windows.stream().mapToLong(Long::longValue).sum(), r.calls());
        assertEquals(Warmup.STOP_STABLE, shared.get(shared.size() - 1));
        assertEquals(windows.size(), shared.size());
        for (int i = 1; i < windows.size(); i++)
        {
            assertEquals(shared.get(i - 1), windows.get(i), "window " + i + " runs what rank 0 decided");
        }
    }

    @Test
    void shouldAlignWithTheSameExchangeTheWindowsUsed()
    {
        final AtomicLong clock = new AtomicLong();
        final List<Long> shared = new ArrayList<>();
        final Warmup warmup = new Warmup(WarmupPolicy.untilStable(), value ->
        {
            shared.add(value);
            return value;
        }, true, () -> clock.addAndGet(1_000));
        warmup.run(calls -> clock.addAndGet(calls * 1_000));
        final int afterRun = shared.size();
        warmup.align();
        // one more exchange of the decision, not a different operation: the timed loop then starts on the code
        // path the warm-up compiled (a barrier there deoptimized it)
        assertEquals(afterRun + 1, shared.size());
        assertEquals(Warmup.STOP_STABLE, shared.get(afterRun));
    }

    @Test
    void shouldAskEveryRankAboutTheJitBeforeEachDecisionAndNotCountWindowsWhileItCompiled()
    {
        final AtomicLong clock = new AtomicLong();
        final AtomicLong jitMs = new AtomicLong();
        final List<String> exchanges = new ArrayList<>();
        final SharedDecision recording = recording(exchanges);
        // 1 us per call, steady; the JIT works during every window of the first 0.5 s
        final Warmup warmup = new Warmup(WarmupPolicy.untilStable(), recording, true, () -> clock.addAndGet(1_000),
            jitMs::get);
        final WarmupResult r = warmup.run(calls ->
        {
            if (clock.get() < 500_000_000L)
            {
                jitMs.incrementAndGet();
            }
            clock.addAndGet(calls * 1_000);
        });
        assertTrue(r.stable(), r::describe);
        assertTrue(r.elapsedNs() > 500_000_000L, r::describe);
        assertEquals(2 * r.windows(), exchanges.size());
        for (int i = 0; i < exchanges.size(); i += 2)
        {
            assertTrue(exchanges.get(i).startsWith("max "), exchanges::toString);
            assertEquals("share", exchanges.get(i + 1));
        }
        assertEquals("max 1", exchanges.get(0));
        assertEquals("max 0", exchanges.get(exchanges.size() - 2));
        warmup.align();
        assertEquals(List.of("max 0", "share"), exchanges.subList(exchanges.size() - 2, exchanges.size()));
    }

    @Test
    void shouldTimeTheRowAgainWhileAnyRankCompiledDuringItAndStopAtTheCap()
    {
        final AtomicLong clock = new AtomicLong();
        final AtomicLong jitMs = new AtomicLong();
        final List<String> exchanges = new ArrayList<>();
        final int[] busyAttempts = {2};
        final SharedDecision recording = recording(exchanges);
        final Warmup warmup = new Warmup(WarmupPolicy.untilStable(), recording, true, clock::get, jitMs::get);
        // 10 ms per attempt; the JIT works 1 ms (10 %) during the first two attempts, then 0.05 ms worth (none)
        final CallBatch batch = calls ->
        {
            if (busyAttempts[0]-- > 0)
            {
                jitMs.incrementAndGet();
            }
            clock.addAndGet(calls * 1_000);
        };
        final TimedRun row = warmup.time(batch, 10_000);
        assertEquals(3, row.attempts());
        assertTrue(row.jitQuiet());
        assertEquals(10_000_000L, row.elapsedNs());
        // each attempt: align (max 0, share), the calls, then every rank's JIT question
        assertEquals(List.of("max 0", "share", "max 1", "max 0", "share", "max 1", "max 0", "share", "max 0"),
            exchanges);

        busyAttempts[0] = Integer.MAX_VALUE;
        final TimedRun capped = warmup.time(batch, 10_000);
        assertEquals(Warmup.MAX_TIMED_ATTEMPTS, capped.attempts());
        assertFalse(capped.jitQuiet());
    }

    @Test
    void shouldTimeAnExactPolicyOnceWhateverTheJitDid()
    {
        final AtomicLong clock = new AtomicLong();
        final AtomicLong jitMs = new AtomicLong();
        final Warmup warmup = new Warmup(WarmupPolicy.exactly(100), value -> value, true, clock::get, jitMs::get);
        final TimedRun row = warmup.time(calls ->
        {
            jitMs.addAndGet(50);
            clock.addAndGet(calls * 1_000);
        }, 1_000);
        assertEquals(1, row.attempts());
        assertEquals(1_000_000L, row.elapsedNs());
    }

    @Test
    void shouldFollowRankZeroOnOtherRanks()
    {
        // rank 0 (elsewhere) decided 16 calls, then 50, then stop at the cap
        final long[] decisions = {50, Warmup.STOP_CAPPED};
        final int[] next = {0};
        final List<Long> windows = new ArrayList<>();
        final Warmup warmup = new Warmup(WarmupPolicy.untilStable(), value -> decisions[next[0]++], false,
            System::nanoTime);
        final WarmupResult r = warmup.run(windows::add);
        assertEquals(List.of(16L, 50L), windows);
        assertEquals(66, r.calls());
        assertEquals("capped", r.outcome());
    }

    @Test
    void shouldRunAnExactCountWithoutDeciding()
    {
        final List<Long> windows = new ArrayList<>();
        final Warmup warmup = new Warmup(WarmupPolicy.exactly(7), value ->
        {
            throw new AssertionError("an exact warm-up shares nothing");
        }, true, System::nanoTime);
        assertEquals(7, warmup.run(windows::add).calls());
        assertEquals(List.of(7L), windows);
        assertEquals(0, new Warmup(WarmupPolicy.exactly(0), v -> v, true, System::nanoTime).run(windows::add)
            .calls());
    }

    @Test
    @Timeout(60)
    void shouldStopEveryRankOfACommunicatorAfterTheSameCalls()
    {
        final int ranks = 3;
        final AtomicReferenceArray<WarmupResult> results = new AtomicReferenceArray<>(ranks);
        // a short policy: the point is the agreement, not the figures
        final WarmupPolicy policy = WarmupPolicy.untilStable().withMinCalls(200).withMinTimeNs(20_000_000L)
            .withCapNs(2_000_000_000L).withJitCapNs(2_000_000_000L).withWindowNs(2_000_000L).withStability(3, 0.5);
        new ThreadCluster(ranks, Duration.ofSeconds(50)).run((rank, size, store) ->
        {
            try (Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size)
                .store(store).transport("shm").name("warmup").calibrate(false)))
            {
                final float[] data = {1, 2};
                final CommBuffer buffer = CommBuffer.of(data);
                results.set(rank, Warmup.over(comm, policy).run(calls ->
                {
                    for (long i = 0; i < calls; i++)
                    {
                        comm.allReduce(buffer, buffer, 2, DataType.FLOAT32, ReduceOp.MAX);
                    }
                }));
                // every rank left together: one more collective matches up
                comm.barrier();
            }
        });
        for (int rank = 1; rank < ranks; rank++)
        {
            assertEquals(results.get(0).calls(), results.get(rank).calls());
            assertEquals(results.get(0).windows(), results.get(rank).windows());
            assertEquals(results.get(0).outcome(), results.get(rank).outcome());
        }
        // the cap wins over the least call count (on a loaded machine it may end the warm-up first)
        final WarmupResult r = results.get(0);
        assertTrue(r.stable() ? r.calls() >= 200 : r.elapsedNs() >= 2_000_000_000L, r::describe);
    }

    /** @return a decision for one rank that logs every exchange ({@code share}, {@code max <value>}). */
    private static SharedDecision recording(final List<String> exchanges)
    {
        return new SharedDecision()
        {
            @Override
            public long share(final long value)
            {
                exchanges.add("share");
                return value;
            }

            @Override
            public long max(final long value)
            {
                exchanges.add("max " + value);
                return value;
            }
        };
    }
}
