// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code verbs4j jmh [JMH options] [regex...]}: runs the JMH suites packaged in this jar through JMH's own command
 * line, e.g. {@code verbs4j jmh -prof gc -f 1 MemcpyBenchmark}. Every argument goes to JMH unchanged; JMH's
 * {@code -h} prints its options, {@code -l} lists the benchmarks. Forks get the verbs4j JVM flags from each
 * benchmark's {@code @Fork(jvmArgsAppend = ...)}. Malformed JMH options exit with 2.
 */
@Command(
    name = "jmh",
    description = {
        "Run the JMH suites in this jar (socket/NIO ping-pong and streaming, memcpy) with JMH's command line.",
        "All arguments go to JMH unchanged. Examples:",
        "  verbs4j jmh -l                                   list benchmarks",
        "  verbs4j jmh -prof gc -f 1 -wi 3 -i 5 Memcpy      GC profiler: gc.alloc.rate.norm = B/op",
        "  verbs4j jmh -p size=8,4096 SocketPingPong        restrict a @Param",
        "  verbs4j jmh -h                                   JMH's full option list" })
public final class JmhCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Unmatched
    private List<String> jmhArgs = new ArrayList<>();

    /**
     * Validates the JMH arguments, then runs JMH's main.
     *
     * @return 0 when JMH returns normally, 2 for malformed JMH options.
     * @throws Exception whatever JMH throws.
     */
    @Override
    public Integer call() throws Exception
    {
        final String[] args = jmhArgs.toArray(new String[0]);
        try
        {
            new CommandLineOptions(args);
        }
        catch (final CommandLineOptionException ex)
        {
            spec.commandLine().getErr().println("verbs4j jmh: " + ex.getMessage() + " (see 'verbs4j jmh -h')");
            return CommandLine.ExitCode.USAGE;
        }
        org.openjdk.jmh.Main.main(args);
        return CommandLine.ExitCode.OK;
    }
}
