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

import io.verbs4j.system.VerbsKillPoint.Kind;
import io.verbs4j.system.VerbsKillPoint.Outcome;
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
 * SIGKILL and SIGSTOP of a peer process at random points of WRITE, SEND, RECV, READ and atomic streams over shm and
 * tcp ({@link VerbsKillPoint} says what each point checks). The default suite runs
 * {@code verbs4j.faults.killPoints} points (seeded by {@code verbs4j.faults.seed}, round-robin over provider x
 * kind) and one SIGSTOP per provider and kind; the {@code slow} profile runs {@code verbs4j.faults.slowKillPoints}.
 * Every outcome goes to {@code target/reliability/verbs-kill-points.txt}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VerbsKillPointSystemTest
{
    private static final String REPORT = "verbs-kill-points.txt";

    private Path shmDir;
    private Resources baseline;
    private int names;

    @BeforeAll
    void warmUpAndTakeBaseline()
    {
        shmDir = SystemTests.newShmDir("killpoints");
        // One unchecked point per provider loads every class, jar and JDK helper thread the later points use.
        for (final String provider : SystemTests.PROVIDERS)
        {
            final Outcome warm = VerbsKillPoint.run(provider, Kind.WRITE, Signal.KILL, new SplittableRandom(1), shmDir,
                Resources.snapshot(null), name());
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
    void survivorsSeeErrorFlushAndNoLeakAtRandomKillPoints()
    {
        runKillPoints(SystemTests.intProperty("verbs4j.faults.killPoints", 20), "default");
    }

    @Test
    @Tag("slow")
    @Timeout(value = 120, unit = TimeUnit.MINUTES)
    void hundredsOfKillPoints()
    {
        runKillPoints(SystemTests.intProperty("verbs4j.faults.slowKillPoints", 300), "slow");
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aStoppedPeerIsDetectedWithinTheSameBound()
    {
        final SplittableRandom random = new SplittableRandom(SystemTests.seed() ^ 0x5709);
        final List<Outcome> outcomes = new ArrayList<>();
        for (final String provider : SystemTests.PROVIDERS)
        {
            for (final Kind kind : Kind.values())
            {
                outcomes.add(VerbsKillPoint.run(provider, kind, Signal.STOP, random.split(), shmDir, baseline,
                    name()));
            }
        }
        summarise("sigstop", outcomes);
    }

    private void runKillPoints(final int count, final String label)
    {
        final long seed = SystemTests.seed();
        final SplittableRandom random = new SplittableRandom(seed);
        final Kind[] kinds = Kind.values();
        final List<Outcome> outcomes = new ArrayList<>();
        final long start = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            final String provider = SystemTests.PROVIDERS.get(i % 2);
            final Kind kind = kinds[(i / 2) % kinds.length];
            final Outcome outcome = VerbsKillPoint.run(provider, kind, Signal.KILL, random.split(), shmDir, baseline,
                name());
            outcomes.add(outcome);
            SystemTests.report(REPORT, label + " #" + i + " seed=" + seed + " " + outcome);
        }
        SystemTests.report(REPORT, label + " " + count + " kill points in " +
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) + " s");
        summarise(label, outcomes);
    }

    private void summarise(final String label, final List<Outcome> outcomes)
    {
        final Map<String, Integer> firstErrors = new TreeMap<>();
        final Map<String, Integer> passed = new TreeMap<>();
        final List<String> failures = new ArrayList<>();
        long maxDetect = 0;
        long posted = 0;
        for (final Outcome o : outcomes)
        {
            firstErrors.merge(o.provider() + "/" + o.firstError(), 1, Integer::sum);
            passed.merge(o.provider() + "/" + o.kind() + (o.ok() ? "/pass" : "/FAIL"), 1, Integer::sum);
            maxDetect = Math.max(maxDetect, o.detectMs());
            posted += o.posted();
            if (!o.ok())
            {
                failures.add(o.toString());
            }
        }
        SystemTests.report(REPORT, List.of(
            label + " summary: " + outcomes.size() + " points, " + failures.size() + " failed, " + posted +
                " requests posted, max detection " + maxDetect + " ms (bound " + SystemTests.DETECTION_BOUND_MS + ")",
            label + " first errors: " + SystemTests.format(firstErrors),
            label + " by kind: " + SystemTests.format(passed)));
        assertEquals(List.of(), failures);
    }

    private String name()
    {
        return "kp-" + ProcessHandle.current().pid() + "-" + (++names);
    }
}
