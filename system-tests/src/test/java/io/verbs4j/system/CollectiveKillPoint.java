// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.launch.ChildJvm;
import io.verbs4j.system.support.Resources;
import io.verbs4j.system.support.SystemTests;

/**
 * One kill point of a collective loop: rank 0 runs in this JVM ({@link RankLoop} on a thread), ranks 1..n-1 are
 * child JVMs; once all run calls, one child rank is SIGKILLed (or SIGSTOPped) after a random delay. Every survivor
 * must throw a {@link CollectiveException} (PEER_FAILED or TIMEOUT) within {@link RankLoop#FAILURE_BOUND_MS} of the
 * signal, naming the stopped rank when the signal is SIGSTOP over shm (the ranks' heartbeats tell it from the ranks
 * that merely wait for it), no result may be wrong, the surviving children must exit by themselves, and this JVM
 * must be back to its baseline (threads, fds, direct memory) with the shm directory empty.
 */
final class CollectiveKillPoint
{
    private CollectiveKillPoint()
    {
    }

    /**
     * @param transport shm or tcp.
     * @param ops       allreduce, allgather, mixed.
     * @param signal    KILL or STOP.
     * @param victim    the rank hit.
     * @param delayMs   from the start of the calls to the signal.
     * @param calls     rank 0's successful calls.
     * @param outcomes  "rank:REASON@ms->named rank" of each survivor.
     * @param maxMs     slowest survivor.
     * @param problem   null if every check held.
     */
    record Outcome(String transport, String ops, VerbsKillPoint.Signal signal, int victim, long delayMs, long calls,
        List<String> outcomes, long maxMs, String problem)
    {
        boolean ok()
        {
            return null == problem;
        }

        @Override
        public String toString()
        {
            return transport + " " + ops + " " + signal + " victim=" + victim + " t=" + delayMs + "ms calls=" + calls +
                " survivors=" + outcomes + " maxMs=" + maxMs + (ok() ? " PASS" : " FAIL: " + problem);
        }
    }

    static Outcome run(final String transport, final String ops, final VerbsKillPoint.Signal signal, final int size,
        final SplittableRandom random, final Path shmDir, final Resources baseline, final String name)
    {
        return run(transport, ops, signal, size, 1 + random.nextInt(size - 1), random, shmDir, baseline, name);
    }

    static Outcome run(final String transport, final String ops, final VerbsKillPoint.Signal signal, final int size,
        final int victim, final SplittableRandom random, final Path shmDir, final Resources baseline,
        final String name)
    {
        final long delayMs = 200 + random.nextInt(1500);
        final long seed = random.nextLong();
        final List<String> outcomes = new ArrayList<>();
        long maxMs = 0;
        long calls = 0;
        String problem = null;
        Path storeDir = null;
        final List<ChildJvm> children = new ArrayList<>();
        try
        {
            storeDir = Files.createTempDirectory("verbs4j-systest-store-");
            for (int rank = 1; rank < size; rank++)
            {
                children.add(new ChildJvm("rank " + rank, SystemTests.SMALL_CHILD, RankLoop.class, List.of(
                    Integer.toString(rank), Integer.toString(size), storeDir.toString(), transport, shmDir.toString(),
                    name, ops, Long.toString(seed))));
            }
            final CountDownLatch created = new CountDownLatch(1);
            final Path store = storeDir;
            final CompletableFuture<RankLoop.Result> rank0 = CompletableFuture.supplyAsync(() ->
                RankLoop.run(0, size, store, transport, shmDir, name, ops, seed, created::countDown));
            for (final ChildJvm child : children)
            {
                child.awaitLine("CREATED", 90_000);
            }
            if (!created.await(90, TimeUnit.SECONDS))
            {
                throw new IllegalStateException("rank 0 did not join");
            }
            Thread.sleep(delayMs);
            final ChildJvm hit = children.get(victim - 1);
            final long signalledAtMs = System.currentTimeMillis();
            if (VerbsKillPoint.Signal.KILL == signal)
            {
                hit.kill();
            }
            else
            {
                hit.stop();
            }
            final RankLoop.Result r0 = rank0.get(RankLoop.FAILURE_BOUND_MS + 30_000, TimeUnit.MILLISECONDS);
            calls = r0.calls();
            final List<RankLoop.Result> survivors = new ArrayList<>();
            survivors.add(r0);
            for (int rank = 1; rank < size; rank++)
            {
                if (rank != victim)
                {
                    survivors.add(RankLoop.Result.parse(children.get(rank - 1).awaitLine("FAILED",
                        RankLoop.FAILURE_BOUND_MS + 30_000)));
                }
                else
                {
                    survivors.add(null);
                }
            }
            for (int rank = 0; rank < size; rank++)
            {
                final RankLoop.Result r = survivors.get(rank);
                if (null == r)
                {
                    continue;
                }
                final long ms = r.failedAtMs() - signalledAtMs;
                maxMs = Math.max(maxMs, ms);
                outcomes.add(rank + ":" + r.reason() + "@" + ms + "->" + r.peer());
                if (null == problem)
                {
                    if (r.wrong())
                    {
                        problem = "rank " + rank + " got a wrong result: " + r.message();
                    }
                    else if (CollectiveException.Reason.PEER_FAILED != r.reason() &&
                        CollectiveException.Reason.TIMEOUT != r.reason())
                    {
                        problem = "rank " + rank + " failed with " + r.reason() + ": " + r.message();
                    }
                    else if (ms < -50)
                    {
                        problem = "rank " + rank + " failed before the " + signal + ": " + r.message();
                    }
                    else if (ms > RankLoop.FAILURE_BOUND_MS)
                    {
                        problem = "rank " + rank + " failed " + ms + " ms after the " + signal + " > bound " +
                            RankLoop.FAILURE_BOUND_MS;
                    }
                    else if (VerbsKillPoint.Signal.STOP == signal && "shm".equals(transport) && r.peer() != victim)
                    {
                        problem = "rank " + rank + " blamed rank " + r.peer() + ", not the stopped rank " + victim +
                            ": " + r.message();
                    }
                }
            }
            hit.kill();
            for (int rank = 1; rank < size; rank++)
            {
                if (rank != victim)
                {
                    final ChildJvm child = children.get(rank - 1);
                    child.awaitLine("CLOSED", 30_000);
                    if (!child.waitFor(30_000))
                    {
                        problem = null == problem ? "surviving rank " + rank + " did not exit after closing" : problem;
                    }
                }
            }
        }
        catch (final Throwable t)
        {
            problem = null == problem ? "exception: " + t : problem;
        }
        finally
        {
            for (final ChildJvm child : children)
            {
                child.kill();
                child.close();
            }
            if (null != storeDir)
            {
                SystemTests.deleteDir(storeDir);
            }
        }
        if (null == problem && VerbsKillPoint.Signal.STOP == signal && "shm".equals(transport))
        {
            // The stopped rank was killed after the survivors closed: its files go at the next device open.
            io.verbs4j.Verbs.open("shm", SystemTests.context("shm", shmDir)).close();
        }
        if (null == problem)
        {
            try
            {
                Resources.assertBackTo(baseline, shmDir, 15_000);
            }
            catch (final AssertionError e)
            {
                problem = e.getMessage();
            }
        }
        return new Outcome(transport, ops, signal, victim, delayMs, calls, outcomes, maxMs, problem);
    }
}
