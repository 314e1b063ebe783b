// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.stat.StatFile;
import io.verbs4j.stat.StatRegistry;
import io.verbs4j.stat.StatSnapshot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code verbs4j stat}: prints the counters of running verbs4j processes from their counters files
 * ({@link StatFile}), as Aeron's {@code AeronStat} prints a media driver's: once, or every {@code --watch} seconds.
 * A process writes its file when started with {@code VERBS4J_STAT=1}.
 */
@Command(
    name = "stat",
    sortOptions = false,
    usageHelpWidth = 120,
    description = {
        "Counters of running verbs4j processes (bytes, frames, RNR, retries, authentication failures per tcp device;",
        "collectives started, completed, failed and bytes per communicator), read from the counters file each",
        "process writes when started with VERBS4J_STAT=1 (or -Dverbs4j.stat=true), every second by default.",
        "" },
    footer = { "", "Exit codes: 0 ok, 1 no running process found or a file unreadable, 2 bad command line." })
public final class StatCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "PID", arity = "0..*", description = "Processes to show (default: every running one).")
    private List<Long> pids = new ArrayList<>();

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Stat directory (default: -Dverbs4j.stat.dir, VERBS4J_STAT_DIR, /dev/shm, java.io.tmpdir; " +
            "the processes' default too).")
    private Path dir;

    @Option(names = "--watch", paramLabel = "SECONDS",
        description = "Print again every SECONDS until interrupted (default: once).")
    private Integer watchSeconds;

    @Option(names = "--clean", description = "Delete the files of processes that no longer run.")
    private boolean clean;

    @Option(names = { "-h", "--help" }, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Prints the counters.
     *
     * @return the exit code.
     * @throws IOException if the stat directory cannot be listed.
     * @throws InterruptedException if interrupted while watching.
     */
    @Override
    public Integer call() throws IOException, InterruptedException
    {
        if (null != watchSeconds && watchSeconds < 1)
        {
            throw new ParameterException(spec.commandLine(), "--watch must be >= 1 second");
        }
        final Path directory = null == dir ? StatRegistry.defaultDirectory() : dir;
        final PrintWriter out = spec.commandLine().getOut();
        int code = print(directory, out);
        while (null != watchSeconds)
        {
            Thread.sleep(watchSeconds * 1000L);
            out.println();
            code = print(directory, out);
        }
        return code;
    }

    private int print(final Path directory, final PrintWriter out) throws IOException
    {
        final List<Path> files = new ArrayList<>();
        if (Files.isDirectory(directory))
        {
            try (Stream<Path> list = Files.list(directory))
            {
                list.filter(f -> StatFile.pidOf(f) > 0 && (pids.isEmpty() || pids.contains(StatFile.pidOf(f))))
                    .sorted().forEach(files::add);
            }
        }
        int shown = 0;
        boolean unreadable = false;
        for (final Path file : files)
        {
            final long pid = StatFile.pidOf(file);
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
            {
                try
                {
                    print(StatFile.read(file), out);
                    shown++;
                }
                catch (final NoSuchFileException ex)
                {
                    out.printf(Locale.ROOT, "pid %d: exited while being read%n", pid);
                }
                catch (final IllegalArgumentException ex)
                {
                    out.println("verbs4j stat: " + ex.getMessage());
                    unreadable = true;
                }
            }
            else if (clean)
            {
                Files.deleteIfExists(file);
                out.printf(Locale.ROOT, "pid %d: not running, %s deleted%n", pid, file);
            }
            else
            {
                out.printf(Locale.ROOT, "pid %d: not running (stale %s; --clean deletes it)%n", pid, file);
            }
        }
        if (0 == shown)
        {
            out.println("verbs4j stat: no running process writes counters to " + directory +
                (pids.isEmpty() ? "" : " among pids " + pids) + " (start the job with VERBS4J_STAT=1)");
        }
        out.flush();
        return 0 == shown || unreadable ? CommandLine.ExitCode.SOFTWARE : CommandLine.ExitCode.OK;
    }

    private static void print(final StatSnapshot snapshot, final PrintWriter out)
    {
        out.printf(Locale.ROOT, "pid %d, sampled %.1f s ago: %s%n", snapshot.pid(),
            Math.max(0, System.currentTimeMillis() - snapshot.timeMillis()) / 1000.0, abbreviate(snapshot.command()));
        String group = null;
        for (final StatSnapshot.Counter counter : snapshot.counters())
        {
            if (!counter.group().equals(group))
            {
                group = counter.group();
                out.println("  " + group);
            }
            out.printf(Locale.ROOT, "    %-50s %,20d%n", counter.label(), counter.value());
        }
        if (snapshot.counters().isEmpty())
        {
            out.println("  (no device or communicator open)");
        }
    }

    private static String abbreviate(final String command)
    {
        return command.length() <= 100 ? command : command.substring(0, 97) + "...";
    }
}
