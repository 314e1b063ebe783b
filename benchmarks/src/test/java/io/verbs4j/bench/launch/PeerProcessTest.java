// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.launch;

import io.verbs4j.launch.JvmFlags;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PeerProcessTest
{
    @Test
    void shouldFailFastWhenThePeerExitsBeforeReady()
    {
        final IOException ex = assertThrows(
            IOException.class,
            () -> PeerProcess.start(List.of("perftest", "--no-such-option"), 30_000,
                new PrintWriter(new StringWriter())));

        assertTrue(ex.getMessage().contains("exited with code 2 before ready"), ex.getMessage());
    }

    @Test
    void shouldBuildCommandWithJvmFlagsAndMainClass()
    {
        final List<String> command = PeerProcess.command(List.of("perftest", "--server"));

        assertTrue(command.get(0).endsWith("java"));
        assertTrue(command.containsAll(JvmFlags.LIST));
        assertTrue(command.indexOf("io.verbs4j.bench.Main") == command.size() - 3);
    }
}
