// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench;

import io.verbs4j.bench.cli.ChartCommand;
import io.verbs4j.bench.cli.CollCommand;
import io.verbs4j.bench.cli.DemoCommand;
import io.verbs4j.bench.cli.JmhCommand;
import io.verbs4j.bench.cli.PerftestCommand;
import io.verbs4j.bench.cli.ShmemCommand;
import io.verbs4j.bench.cli.StatCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * {@code verbs4j}: the benchmark tools' top-level command. Each tool is a subcommand; see {@code verbs4j --help}.
 * <p>
 * Exit codes: 0 success; 1 a run failed (a session, the peer, I/O); 2 bad command-line input (the message and the
 * usage go to standard error).
 */
@Command(
    name = "verbs4j",
    description = "verbs4j benchmark tools. Run 'verbs4j <tool> --help' for a tool's options.",
    subcommands = { DemoCommand.class, CollCommand.class, PerftestCommand.class, ShmemCommand.class, StatCommand.class,
        ChartCommand.class, JmhCommand.class, CommandLine.HelpCommand.class },
    footer = {
        "",
        "Exit codes: 0 ok, 1 run failed, 2 bad command line." })
public final class Main implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @CommandLine.Option(names = { "-h", "--help" }, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Without a tool: prints the usage to standard error.
     *
     * @return 2 (a tool is required).
     */
    @Override
    public Integer call()
    {
        spec.commandLine().getErr().println("verbs4j: a tool is required");
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }

    /**
     * Builds the command line with the house error handling: execution failures print one line and exit 1.
     *
     * @return the configured command line.
     */
    public static CommandLine commandLine()
    {
        final CommandLine commandLine = new CommandLine(new Main());
        commandLine.setExecutionExceptionHandler(
            (ex, cmd, parseResult) ->
            {
                cmd.getErr().println("verbs4j " + cmd.getCommandName() + ": error: " + ex.getMessage());
                if (Boolean.getBoolean("verbs4j.debug"))
                {
                    ex.printStackTrace(cmd.getErr());
                }
                return CommandLine.ExitCode.SOFTWARE;
            });
        return commandLine;
    }

    /**
     * Entry point.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }
}
