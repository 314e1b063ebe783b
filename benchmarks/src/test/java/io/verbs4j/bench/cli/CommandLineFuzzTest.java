// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.verbs4j.bench.Main;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * Fuzz targets for the command-line tools' argument parsing. The real {@link Main#commandLine()} parses and validates
 * in-process; an execution strategy stops short of running anything (no peer JVM, no server, no JMH run, no
 * {@code System.exit}): for {@code perftest} it runs the command's own validation ({@code validateCommon} and
 * {@code plans}), for {@code jmh} JMH's option parser, and {@code --list}/help as they are.
 * <p>
 * Asserts: the exit code is 0 or 2 (1 would mean an exception other than a usage error escaped the validation),
 * 2 always comes with a message on standard error, and nothing escapes {@code execute}.
 */
class CommandLineFuzzTest
{
    private static final String[] WORDS =
    {
        "perftest", "jmh", "help", "-T", "--transport", "tcp,shm", "shm", "tcp", "nio", "socket", "shm-cacheline",
        "--test", "lat", "bw", "lat,bw", "-s", "--size", "64", "4K", "1M", "8M", "0", "-1", "1k,2k", "-a", "--all",
        "-n", "--iters", "5", "100000000", "-w", "--warmup", "-t", "--tx-depth", "15000", "--busy-poll",
        "--timeout", "1", "--format", "json", "text", "--server", "--client", "127.0.0.1:1", "-p", "--port",
        "65535", "--bind", "--list", "-h", "--help", "-l", "-f", "-prof", "gc", "-wi", "-i", "-p", "size=8", "=",
        ",", "9223372036854775807", "2147483648", "-2147483649", "1e3", "0x10", "--", "-"
    };

    /** Arrays of words from the tools' vocabulary, numbers and arbitrary strings. */
    @FuzzTest
    void fuzzArguments(final FuzzedDataProvider data)
    {
        final List<String> args = new ArrayList<>();
        final int count = data.consumeInt(0, 12);
        for (int i = 0; i < count && data.remainingBytes() > 0; i++)
        {
            switch (data.consumeInt(0, 3))
            {
                case 0:
                    args.add(data.consumeString(24));
                    break;
                case 1:
                    args.add(Long.toString(data.consumeLong()));
                    break;
                default:
                    args.add(data.pickValue(WORDS));
                    break;
            }
        }
        run(args.toArray(new String[0]));
    }

    /** The size-list parser on its own: a list of sizes or an IllegalArgumentException, nothing else. */
    @FuzzTest
    void fuzzSizeList(final FuzzedDataProvider data)
    {
        final String text = data.consumeRemainingAsString();
        try
        {
            final List<Integer> sizes = ByteSizes.parseList(text);
            for (final int size : sizes)
            {
                assertTrue(size >= 0, "negative size " + size + " from '" + text + "'");
            }
        }
        catch (final IllegalArgumentException expected)
        {
            assertFalse(String.valueOf(expected.getMessage()).isEmpty(), "empty message for '" + text + "'");
        }
    }

    private static void run(final String[] args)
    {
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        commandLine.setErr(new PrintWriter(err, true));
        commandLine.setExecutionStrategy(CommandLineFuzzTest::validateOnly);
        final int code = commandLine.execute(args);
        final String joined = String.join(" ", args);
        assertTrue(0 == code || 2 == code, () -> "exit " + code + " for [" + joined + "]: " + err);
        if (2 == code)
        {
            assertFalse(err.toString().isBlank(), () -> "exit 2 without a message for [" + joined + "]");
        }
    }

    private static int validateOnly(final ParseResult parseResult)
    {
        if (CommandLine.printHelpIfRequested(parseResult))
        {
            return CommandLine.ExitCode.OK;
        }
        ParseResult leaf = parseResult;
        while (leaf.hasSubcommand())
        {
            leaf = leaf.subcommand();
        }
        final Object command = leaf.commandSpec().userObject();
        try
        {
            if (command instanceof PerftestCommand)
            {
                return validatePerftest((PerftestCommand)command);
            }
            if (command instanceof JmhCommand)
            {
                final List<String> jmhArgs = leaf.unmatched();
                try
                {
                    new CommandLineOptions(jmhArgs.toArray(new String[0]));
                    return CommandLine.ExitCode.OK;
                }
                catch (final CommandLineOptionException ex)
                {
                    // What JmhCommand does.
                    leaf.commandSpec().commandLine().getErr().println("verbs4j jmh: " + ex.getMessage());
                    return CommandLine.ExitCode.USAGE;
                }
            }
            if (command instanceof Main)
            {
                return ((Main)command).call();
            }
            return CommandLine.ExitCode.OK;
        }
        catch (final CommandLine.ParameterException ex)
        {
            throw ex;
        }
        catch (final Exception ex)
        {
            throw new CommandLine.ExecutionException(leaf.commandSpec().commandLine(), "validation failed: " + ex, ex);
        }
    }

    private static int validatePerftest(final PerftestCommand command) throws Exception
    {
        if (field(command, "list"))
        {
            return command.call(); // prints the transports
        }
        invoke(command, "validateCommon", new Class<?>[0]);
        if (!field(command, "server"))
        {
            final java.lang.reflect.Field timeout = PerftestCommand.class.getDeclaredField("timeoutSeconds");
            timeout.setAccessible(true);
            final long timeoutSeconds = timeout.getLong(command);
            invoke(command, "plans", new Class<?>[]{long.class}, TimeUnit.SECONDS.toMillis(timeoutSeconds));
        }
        return CommandLine.ExitCode.OK;
    }

    private static boolean field(final PerftestCommand command, final String name) throws ReflectiveOperationException
    {
        final java.lang.reflect.Field field = PerftestCommand.class.getDeclaredField(name);
        field.setAccessible(true);
        return field.getBoolean(command);
    }

    private static void invoke(final Object target, final String name, final Class<?>[] types, final Object... args)
        throws Exception
    {
        final Method method = PerftestCommand.class.getDeclaredMethod(name, types);
        method.setAccessible(true);
        try
        {
            method.invoke(target, args);
        }
        catch (final InvocationTargetException ex)
        {
            if (ex.getCause() instanceof Exception)
            {
                throw (Exception)ex.getCause();
            }
            throw (Error)ex.getCause();
        }
    }
}
