// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.system;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.verbs4j.collectives.launch.ClusterResult;
import io.verbs4j.collectives.launch.LoopbackCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ranks as real processes ({@link LoopbackCluster}): correctness over shm and tcp, a mixed shm+tcp communicator,
 * and the failure bounds when a rank dies (halts) or hangs.
 */
class ProcessClusterSystemTest
{
    private static ClusterResult run(final int size, final String... args)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream output = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final ClusterResult result = new LoopbackCluster(size).timeout(Duration.ofSeconds(120)).output(output)
            .jvmArgs("-Xmx256m").run(CollectiveRankMain.class.getName(), args);
        System.out.print(bytes.toString(StandardCharsets.UTF_8));
        assertTrue(result.succeeded(), result + "\n" + bytes.toString(StandardCharsets.UTF_8));
        return result;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void allReduceAcrossProcesses(final String transport)
    {
        run(3, "check", transport);
    }

    @Test
    void mixedShmAndTcpCommunicator()
    {
        run(4, "mixed", "");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aKilledRankFailsTheOthersWithinTheBound(final String transport)
    {
        run(4, "kill", transport);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void theSurvivorsOfAKilledRankShrinkAndCarryOn(final String transport)
    {
        run(4, "shrink", transport);
    }

    @Test
    void aHungRankTimesTheOthersOutWithinTheBound()
    {
        run(3, "hang", "shm");
    }
}
