// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.verbs4j.collectives.launch.ClusterResult;
import io.verbs4j.collectives.launch.LoopbackCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PEs as separate processes ({@link LoopbackCluster} running {@link ShmemRankMain}): the message-passing litmus
 * test over shm (direct peer memory), tcp (RDMA verbs) and a mixed job of two fake hosts with two PEs each; and a
 * killed PE failing the others' blocked waits within the bound, over shm and tcp; and a bootstrap from the torchrun
 * environment ({@link SymmetricHeap#fromEnv}).
 */
class ShmemProcessSystemTest
{
    @AfterEach
    void sweep()
    {
        Heaps.sweep();
    }

    private static void run(final int size, final String... args)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream output = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final ClusterResult result = new LoopbackCluster(size).timeout(Duration.ofSeconds(150)).output(output)
            .jvmArgs("-Xmx192m").run(ShmemRankMain.class.getName(), args);
        final String text = bytes.toString(StandardCharsets.UTF_8);
        System.out.print(text);
        assertTrue(result.succeeded(), result + "\n" + text);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp", "mixed"})
    void dataThenFlagLitmusAcrossProcesses(final String transport)
    {
        run(4, "litmus", transport);
    }

    @Test
    void litmusBootstrappedFromTheTorchrunEnvironment()
    {
        run(2, "litmus", "tcp", "env");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aKilledPeFailsTheOthersWaitsWithinTheBound(final String transport)
    {
        run(3, "kill", transport);
    }
}
