// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.verbs4j.bench.Main;
import io.verbs4j.launch.JvmLauncher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code coll --env}: one rank of an externally launched job per process, configured by the torchrun variables. Each
 * case runs the command line in a child JVM with its own environment (the command reads the process environment).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CollEnvCommandTest
{
    private static final List<String> TINY = List.of("coll", "allreduce", "--env", "-b", "8", "-e", "64", "-f", "8",
        "-w", "2", "--warmup-exact", "-n", "5", "--timeout", "30");

    @Test
    void shouldNameTheMissingVariable() throws Exception
    {
        final Result result = run(Map.of("RANK", "0", "WORLD_SIZE", "1", "MASTER_PORT", "29999"), TINY);
        assertEquals(2, result.code, result.text());
        assertTrue(result.err.contains("--env: MASTER_ADDR is not set"), result.text());
    }

    @Test
    void shouldRefuseThreadsAndAMismatchedRankCount() throws Exception
    {
        final Map<String, String> env = Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29999", "RANK", "0",
            "WORLD_SIZE", "2");
        final List<String> threads = new ArrayList<>(TINY);
        threads.add("--threads");
        final Result withThreads = run(env, threads);
        assertEquals(2, withThreads.code, withThreads.text());
        assertTrue(withThreads.err.contains("not with --threads"), withThreads.text());
        final List<String> three = new ArrayList<>(TINY);
        three.addAll(List.of("-g", "3"));
        final Result mismatch = run(env, three);
        assertEquals(2, mismatch.code, mismatch.text());
        assertTrue(mismatch.err.contains("-g 3 differs from the world size 2"), mismatch.text());
    }

    @Test
    void shouldRunTwoRanksStartedSeparatelyAndPrintTheTableOnRankZero() throws Exception
    {
        final String port = Integer.toString(freePort());
        final CompletableFuture<Result> rank1 = CompletableFuture.supplyAsync(() -> runUnchecked(
            Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", port, "RANK", "1", "WORLD_SIZE", "2"), TINY));
        final Result rank0 = run(
            Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", port, "RANK", "0", "WORLD_SIZE", "2"), TINY);
        final Result other = rank1.get(2, TimeUnit.MINUTES);
        assertEquals(0, rank0.code, rank0.text());
        assertEquals(0, other.code, other.text());
        assertTrue(rank0.out.contains("# Out of bounds values : 0 OK"), rank0.text());
        for (final String size : List.of("           8 ", "          64 "))
        {
            final String row = rank0.out.lines().filter(l -> l.startsWith(size)).findFirst().orElse("");
            assertTrue(row.endsWith(" 0"), "row with #wrong 0 for " + size.trim() + " B:\n" + rank0.text());
        }
        assertNotEquals(-1, rank0.out.indexOf("#  Rank  1"), "both ranks listed:\n" + rank0.text());
        assertEquals(-1, other.out.indexOf("# Out of bounds values"), "only rank 0 prints the table:\n" + other.text());
    }

    private static Result runUnchecked(final Map<String, String> env, final List<String> args)
    {
        try
        {
            return run(env, args);
        }
        catch (final IOException | InterruptedException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static Result run(final Map<String, String> env, final List<String> args)
        throws IOException, InterruptedException
    {
        // Not a ChildJvm: this test reads the child's stdout and stderr apart, to the end, with its own environment.
        final ProcessBuilder builder = JvmLauncher.of(Main.class).jvmArgs(List.of("-Xmx256m")).args(args)
            .processBuilder();
        for (final String name : List.of("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
            "OMPI_COMM_WORLD_SIZE", "VERBS4J_STORE_BIND", "VERBS4J_SECRET", "VERBS4J_SECRET_FILE"))
        {
            builder.environment().remove(name);
        }
        builder.environment().putAll(env);
        final Process process = builder.start();
        final CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        final String out = read(process.getInputStream());
        if (!process.waitFor(2, TimeUnit.MINUTES))
        {
            process.destroyForcibly();
            throw new IllegalStateException("coll --env did not finish: " + out);
        }
        return new Result(process.exitValue(), out, err.join());
    }

    private static String read(final java.io.InputStream in)
    {
        try
        {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return "(unreadable: " + ex + ")";
        }
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket probe = new ServerSocket(0))
        {
            return probe.getLocalPort();
        }
    }

    /** Exit code and output of one child JVM. */
    private static final class Result
    {
        private final int code;
        private final String out;
        private final String err;

        Result(final int code, final String out, final String err)
        {
            this.code = code;
            this.out = out;
            this.err = err;
        }

        String text()
        {
            return "exit " + code + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }
}
