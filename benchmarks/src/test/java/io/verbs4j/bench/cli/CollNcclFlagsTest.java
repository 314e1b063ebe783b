// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.Main;
import io.verbs4j.bench.coll.CollSettings;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code coll} with nccl-tests' flags: parsed into the same settings as verbs4j's own names where they make sense,
 * refused with a message naming the flag where not. Parsing only: nothing runs.
 */
class CollNcclFlagsTest
{
    private static CollSettings settings(final String... args)
    {
        final CommandLine root = Main.commandLine();
        final String[] line = new String[args.length + 1];
        line[0] = "coll";
        System.arraycopy(args, 0, line, 1, args.length);
        root.parseArgs(line);
        return ((CollCommand)root.getSubcommands().get("coll").getCommand()).settings();
    }

    private static String refusal(final String... args)
    {
        return assertThrows(ParameterException.class, () -> settings(args)).getMessage();
    }

    @Test
    void shouldTakeTheJsonFileFromDashJAndOutputFile()
    {
        assertEquals(Path.of("a.json").toAbsolutePath().toString(), settings("allreduce", "-J", "a.json").json);
        assertEquals(Path.of("b.json").toAbsolutePath().toString(),
            settings("allreduce", "--output_file", "b.json").json);
        assertEquals(Path.of("c.json").toAbsolutePath().toString(), settings("allreduce", "--json", "c.json").json);
    }

    @Test
    void shouldTakeTheTimeoutFromDashTAndRefuseNcclTestsNoLimit()
    {
        assertEquals(7, settings("allreduce", "-T", "7").timeoutSeconds);
        assertTrue(refusal("allreduce", "-T", "0").contains("-T/--timeout must be >= 1"));
    }

    @Test
    void shouldMultiplyTheTimedCallsByAggIters()
    {
        assertEquals(60, settings("allreduce", "-n", "20", "-m", "3").iters);
        assertEquals(20, settings("allreduce", "-n", "20", "--agg_iters", "1").iters);
        assertTrue(refusal("allreduce", "-m", "0").contains("-m/--agg_iters must be >= 1"));
    }

    @Test
    void shouldRunEverySizeNCyclesAndPassItToTheRankProcesses()
    {
        final CollSettings s = settings("allreduce", "-N", "3");
        assertEquals(3, s.runCycles);
        final List<String> args = s.toArgs();
        assertEquals("3", args.get(args.indexOf("-N") + 1));
        assertEquals(3, settings(args.toArray(new String[0])).runCycles);
        assertTrue(refusal("allreduce", "-N", "0").contains("-N/--run_cycles must be >= 1"));
    }

    @Test
    void shouldStampRowsWithDashS()
    {
        assertTrue(settings("allreduce", "-S", "1").timestamps);
        assertFalse(settings("allreduce", "-S", "0").timestamps);
        assertTrue(settings(settings("allreduce", "-S", "1").toArgs().toArray(new String[0])).timestamps);
        assertTrue(refusal("allreduce", "-S", "2").contains("-S/--report_timestamps must be 0 or 1"));
    }

    @Test
    void shouldRunNThreadsTimesGRanksAsThreads()
    {
        final CollSettings four = settings("allreduce", "-t", "4");
        assertEquals(4, four.ranks);
        assertTrue(four.threads);
        final CollSettings six = settings("allreduce", "-t", "2", "-g", "3");
        assertEquals(6, six.ranks);
        assertTrue(six.threads);
        final CollSettings one = settings("allreduce", "-t", "1", "-g", "3");
        assertEquals(3, one.ranks);
        assertFalse(one.threads);
        assertTrue(refusal("allreduce", "-t", "0").contains("-t/--nthreads must be in 1..64"));
    }

    @Test
    void shouldMapDashZToBlockingOrAsync()
    {
        assertTrue(settings("allreduce", "-z", "0").async);
        assertFalse(settings("allreduce", "-z", "1").async);
        assertTrue(refusal("allreduce", "-z", "2").contains("-z must be 0"));
        assertTrue(refusal("allreduce", "-z", "1", "--async").contains("-z 1 contradicts --async"));
        assertTrue(refusal("allreduce", "-z", "0", "--blocking").contains("-z 0 contradicts --blocking"));
    }

    @Test
    void shouldRefuseGpuOnlyFlagsNamingThem()
    {
        final String[][] cases = {
            { "-G", "1", "-G/--cudagraph" }, { "--cudagraph", "1", "-G/--cudagraph" },
            { "-y", "1", "-y/--stream_null" }, { "-p", "1", "-p/--parallel_init" },
            { "-C", "1", "-C/--report_cputime" }, { "-R", "1", "-R/--local_register" },
            { "-x", "0", "-x/--cta_policy" }, { "-D", "1", "-D/--device_implementation" },
            { "-V", "4", "-V/--device_cta_count" }, { "-M", "1", "-M/--memory" } };
        for (final String[] c : cases)
        {
            final String message = refusal("allreduce", c[0], c[1]);
            assertTrue(message.startsWith(c[2] + " is not supported: "), message);
        }
    }
}
