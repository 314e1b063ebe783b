// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

import io.verbs4j.bench.Main;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code verbs4j shmem}: bad input exits with 2 and a message; a tiny run of each latency test prints its table and
 * its same-run baseline (the figures are not checked: the machine may be loaded).
 */
class ShmemCommandTest
{
    private static int run(final StringWriter out, final StringWriter err, final String... args)
    {
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void shouldRefuseBadInputWithUsageExit()
    {
        final StringWriter err = new StringWriter();
        assertEquals(2, run(new StringWriter(), err, "shmem", "nope"));
        assertEquals(2, run(new StringWriter(), err, "shmem", "put_bw", "-b", "1M", "-e", "8"));
        assertEquals(2, run(new StringWriter(), err, "shmem", "put_bw", "-b", "x"));
        assertEquals(2, run(new StringWriter(), err, "shmem", "p_latency", "--transport", "rdma"));
        assertTrue(err.toString().contains("verbs4j shmem"), err.toString());
    }

    @Test
    void shouldPrintATableAndItsBaseline()
    {
        for (final String[] args : new String[][]{
            {"shmem", "put_latency", "-b", "8", "-e", "16", "-n", "200", "-w", "20"},
            {"shmem", "atomic_latency", "--transport", "tcp", "-n", "100", "-w", "10"},
            {"shmem", "get_bw", "-b", "4K", "-e", "4K", "-n", "64", "-w", "8", "--window", "16"}})
        {
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            assertEquals(0, run(out, err, args), err.toString());
            final String text = out.toString();
            assertTrue(text.contains("# shmem " + args[1]) && text.contains("# baseline"), text);
        }
    }
}
