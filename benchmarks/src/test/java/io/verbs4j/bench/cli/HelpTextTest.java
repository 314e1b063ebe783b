// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import io.verbs4j.bench.Main;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every tool's {@code --help} renders without picocli warnings. Picocli formats descriptions with
 * {@code String.format}, so a lone {@code %} in a description ("15-25 % lower") printed three "Could not format"
 * warnings above the perftest help; {@code %%} is the literal percent sign.
 */
class HelpTextTest
{
    @Test
    void everyCommandsHelpRendersWithoutWarnings()
    {
        final Map<String, CommandLine> commands = Main.commandLine().getSubcommands();
        assertTrue(commands.size() >= 7, "the tools: " + commands.keySet());
        final PrintStream err = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try
        {
            for (final Map.Entry<String, CommandLine> command : commands.entrySet())
            {
                final String usage = command.getValue().getUsageMessage(CommandLine.Help.Ansi.OFF);
                assertTrue(usage.contains("Usage:"), command.getKey() + ": " + usage);
            }
        }
        finally
        {
            System.setErr(err);
        }
        final String warnings = captured.toString(StandardCharsets.UTF_8);
        assertFalse(warnings.contains("picocli WARN"), warnings);
    }
}
