// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.run;

import io.verbs4j.bench.control.ControlClient;
import io.verbs4j.bench.launch.PeerProcess;
import io.verbs4j.bench.report.ResultSink;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The local mode shared by {@code perftest} and {@code demo}: starts the responder as a child JVM on this machine
 * ({@code perftest --server} on an ephemeral loopback port), runs the plans against it over 127.0.0.1, and stops it.
 */
public final class LocalRun
{
    private static final String LOOPBACK = "127.0.0.1";
    private static final List<Logger> QUIETED = new ArrayList<>();

    private LocalRun()
    {
    }

    /**
     * Runs the plans, with a child JVM as responder when any plan needs a peer.
     *
     * @param plans          the tables.
     * @param sink           where rows go.
     * @param timeoutMs      longest single wait.
     * @param extraChildArgs more arguments for the child's {@code perftest --server} (hidden options).
     * @param err            diagnostics.
     * @return the number of failed sizes.
     * @throws IOException if the child or the control connection fails.
     */
    public static int run(
        final List<TestPlan> plans, final ResultSink sink, final long timeoutMs, final List<String> extraChildArgs,
        final PrintWriter err) throws IOException
    {
        if (!needsPeer(plans))
        {
            return new PerftestClient(null, "none", sink).run(plans);
        }
        final List<String> childArgs = new ArrayList<>(List.of(
            "perftest", "--server", "--port", "0", "--bind", LOOPBACK, "--exit-with-parent",
            "--timeout", Long.toString(Math.max(1, TimeUnit.MILLISECONDS.toSeconds(timeoutMs)))));
        childArgs.addAll(extraChildArgs);
        try (PeerProcess peer = PeerProcess.start(childArgs, Math.max(timeoutMs, 30_000), err))
        {
            final String endpoint = peer.endpoint();
            final int colon = endpoint.lastIndexOf(':');
            final int controlPort = Integer.parseInt(endpoint.substring(colon + 1));
            final int failures;
            try (ControlClient control = ControlClient.connect(LOOPBACK, controlPort, timeoutMs))
            {
                failures = new PerftestClient(control, LOOPBACK + " (child JVM pid " + peer.pid() + ")", sink)
                    .run(plans);
            }
            try
            {
                final int code = peer.awaitExit(10_000);
                if (-1 == code)
                {
                    err.println("verbs4j: peer JVM did not exit, stopping it");
                }
                else if (0 != code)
                {
                    err.println("verbs4j: peer JVM exit code " + code);
                }
                return failures;
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the peer JVM", ex);
            }
        }
    }

    /**
     * Lets only SEVERE records of the verbs providers through (java.util.logging, which {@code System.Logger} uses
     * by default), e.g. to keep the "peer closed its device" warnings of every session end out of a demo table.
     */
    public static void quietProviderLogs()
    {
        synchronized (QUIETED)
        {
            for (final String name : new String[] { "io.verbs4j" })
            {
                final Logger logger = Logger.getLogger(name);
                logger.setLevel(Level.SEVERE);
                QUIETED.add(logger);
            }
        }
    }

    private static boolean needsPeer(final List<TestPlan> plans)
    {
        for (final TestPlan plan : plans)
        {
            if (plan.transport().instance().needsPeer())
            {
                return true;
            }
        }
        return false;
    }
}
