// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole local mode: a child JVM as responder, the control protocol, every transport, both output formats.
 */
@Timeout(60)
class PerftestLocalSmokeTest
{
    @Test
    void shouldRunEveryTransportAgainstAChildJvm()
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));

        final int code = commandLine.execute("perftest", "-s", "8,4K", "-n", "50", "-w", "10",
            "--warmup-exact", "-t", "8",
            "--timeout", "20", "--format", "json");

        assertEquals(0, code, () -> out + "\n" + err);
        final String json = out.toString();
        for (final String transport : new String[] { "socket", "nio", "nio-poll", "netty", "shm-cacheline",
            "shm-write", "tcp-send" })
        {
            assertTrue(json.contains("{\"type\":\"latency\",\"transport\":\"" + transport + "\""), json);
        }
        for (final String transport : new String[] { "socket", "nio", "nio-poll", "netty", "shm-memcpy", "memcpy",
            "shm-read", "tcp-write" })
        {
            assertTrue(json.contains("{\"type\":\"bandwidth\",\"transport\":\"" + transport + "\""), json);
        }
        assertTrue(json.contains("child JVM pid"), json);
        assertTrue(json.contains("skipped: [4096]"), json);
    }

    @Test
    void shouldPrintPerftestTables()
    {
        final StringWriter out = new StringWriter();
        final CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(new StringWriter(), true));

        final int code = commandLine.execute("perftest", "-T", "socket", "-s", "64", "-n", "20", "-w", "5",
            "--warmup-exact");

        assertEquals(0, code, out::toString);
        assertTrue(out.toString().contains("socket Latency Test"), out::toString);
        assertTrue(out.toString().contains(" 64      20          "), out::toString);
        assertTrue(out.toString().contains("socket BW Test"), out::toString);
        assertTrue(out.toString().contains(" 64         20           "), out::toString);
    }
}
