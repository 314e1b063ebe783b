// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.verbs4j.system.CollectiveKillPoint.Outcome;
import io.verbs4j.system.VerbsKillPoint.Signal;
import io.verbs4j.system.support.Resources;
import io.verbs4j.system.support.SystemTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * SIGKILL and SIGSTOP of a rank during AllReduce / AllGather loops of 3 ranks over shm and over tcp
 * ({@link CollectiveKillPoint} says what each point checks). Default suite: {@code verbs4j.faults.collectiveKillPoints}
 * kills plus one stop per transport; {@code slow}: {@code verbs4j.faults.slowCollectiveKillPoints} kills and stops.
 * Outcomes go to {@code target/reliability/collective-kill-points.txt}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CollectiveKillPointSystemTest
{
    private static final String REPORT = "collective-kill-points.txt";
    private static final int SIZE = 3;
    private static final String[] OPS = {"allreduce", "allgather", "mixed"};

    private Path shmDir;
    private Resources baseline;
    private int names;

    @BeforeAll
    void warmUpAndTakeBaseline()
    {
        shmDir = SystemTests.newShmDir("collectives");
        for (final String transport : SystemTests.PROVIDERS)
        {
            final Outcome warm = CollectiveKillPoint.run(transport, "mixed", Signal.KILL, SIZE, new SplittableRandom(7),
                shmDir, Resources.snapshot(null), name());
            System.out.println("[reliability] warm-up " + warm);
        }
        System.gc();
        baseline = Resources.snapshot(null);
        SystemTests.report(REPORT, SystemTests.runHeader() + " baseline " + baseline);
    }

    @AfterAll
    void removeDir()
    {
        SystemTests.deleteDir(shmDir);
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void everySurvivingRankFailsWithinTheBound()
    {
        final List<Outcome> outcomes = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(SystemTests.seed() ^ 0xC011);
        final int kills = SystemTests.intProperty("verbs4j.faults.collectiveKillPoints", 4);
        for (int i = 0; i < kills; i++)
        {
            outcomes.add(point("default", i, SystemTests.PROVIDERS.get(i % 2), OPS[(i / 2) % OPS.length], Signal.KILL,
                random));
        }
        for (int i = 0; i < 2; i++)
        {
            outcomes.add(point("default", kills + i, SystemTests.PROVIDERS.get(i % 2), "mixed", Signal.STOP, random));
        }
        // Issue 15's case: rank 1 of 4 stopped in a loop of AllReduces over shm; every survivor must name rank 1.
        final Outcome stopOneOfFour = CollectiveKillPoint.run("shm", "allreduce", Signal.STOP, 4, 1, random.split(),
            shmDir, baseline, name());
        SystemTests.report(REPORT, "default #" + (kills + 2) + " seed=" + SystemTests.seed() + " " + stopOneOfFour);
        outcomes.add(stopOneOfFour);
        summarise("default", outcomes);
    }

    @Test
    @Tag("slow")
    @Timeout(value = 120, unit = TimeUnit.MINUTES)
    void manyCollectiveKillPoints()
    {
        final List<Outcome> outcomes = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(SystemTests.seed() ^ 0x510C);
        final int count = SystemTests.intProperty("verbs4j.faults.slowCollectiveKillPoints", 60);
        for (int i = 0; i < count; i++)
        {
            outcomes.add(point("slow", i, SystemTests.PROVIDERS.get(i % 2), OPS[(i / 2) % OPS.length],
                0 == (i / 6) % 4 ? Signal.STOP : Signal.KILL, random));
        }
        summarise("slow", outcomes);
    }

    private Outcome point(final String label, final int i, final String transport, final String ops,
        final Signal signal, final SplittableRandom random)
    {
        final Outcome outcome = CollectiveKillPoint.run(transport, ops, signal, SIZE, random.split(), shmDir, baseline,
            name());
        SystemTests.report(REPORT, label + " #" + i + " seed=" + SystemTests.seed() + " " + outcome);
        return outcome;
    }

    private static void summarise(final String label, final List<Outcome> outcomes)
    {
        final Map<String, Integer> reasons = new TreeMap<>();
        final List<String> failures = new ArrayList<>();
        long maxMs = 0;
        long calls = 0;
        for (final Outcome o : outcomes)
        {
            for (final String s : o.outcomes())
            {
                reasons.merge(o.transport() + "/" + o.signal() + "/" + s.substring(s.indexOf(':') + 1, s.indexOf('@')),
                    1, Integer::sum);
            }
            maxMs = Math.max(maxMs, o.maxMs());
            calls += o.calls();
            if (!o.ok())
            {
                failures.add(o.toString());
            }
        }
        SystemTests.report(REPORT, List.of(
            label + " summary: " + outcomes.size() + " points, " + failures.size() + " failed, " + calls +
                " checked calls on rank 0, slowest survivor " + maxMs + " ms (bound " + RankLoop.FAILURE_BOUND_MS + ")",
            label + " survivor reasons: " + SystemTests.format(reasons)));
        assertEquals(List.of(), failures);
    }

    private String name()
    {
        return "ckp-" + ProcessHandle.current().pid() + "-" + (++names);
    }
}
