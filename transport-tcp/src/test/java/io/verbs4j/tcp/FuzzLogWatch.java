// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Watches the java.util.logging records of the tcp provider and of Netty (neither has an SLF4J binding in the tests,
 * so both log through JUL) for signs that an exception escaped where the provider promised a clean disconnect:
 * <ul>
 *   <li>{@code TcpConnection.exceptionCaught} logs "connection with ... failed: cause" at DEBUG; a cause that is not
 *       an I/O error (socket reset, broken pipe) is a decoder bug that Netty happened to catch;</li>
 *   <li>Netty's "reached at the tail of the pipeline", "A task raised an exception" and "LEAK:" lines.</li>
 * </ul>
 * Records arrive on I/O threads; {@link #drain()} collects what arrived so far.
 */
final class FuzzLogWatch extends Handler
{
    // Strong references: JUL keeps loggers weakly, and a collected logger would lose the level and the handler.
    private static final Logger TCP_LOGGER = Logger.getLogger("io.verbs4j.tcp");
    private static final Logger NETTY_LOGGER = Logger.getLogger("io.netty");
    private static final FuzzLogWatch INSTANCE = new FuzzLogWatch();

    static
    {
        TCP_LOGGER.setLevel(Level.FINE);
        TCP_LOGGER.addHandler(INSTANCE);
        NETTY_LOGGER.addHandler(INSTANCE);
    }

    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();

    private FuzzLogWatch()
    {
        setLevel(Level.ALL);
    }

    static FuzzLogWatch instance()
    {
        return INSTANCE;
    }

    /** @return the problems logged since the last call (empty if none). */
    List<String> drain()
    {
        final List<String> out = new ArrayList<>();
        String problem;
        while (null != (problem = problems.poll()))
        {
            out.add(problem);
        }
        return out;
    }

    @Override
    public void publish(final LogRecord record)
    {
        final String message = String.valueOf(record.getMessage());
        final String logger = String.valueOf(record.getLoggerName());
        if (logger.startsWith("io.netty"))
        {
            if (record.getLevel().intValue() >= Level.WARNING.intValue() && (null != record.getThrown() ||
                message.contains("LEAK") || message.contains("tail of the pipeline")))
            {
                problems.add(logger + ": " + message + (null == record.getThrown() ? "" : " " + record.getThrown()));
            }
            return;
        }
        final int failed = message.indexOf(" failed: ");
        if (message.startsWith("verbs4j tcp: connection with") && failed > 0)
        {
            final String cause = message.substring(failed + " failed: ".length());
            if (!isIoError(cause))
            {
                problems.add(message);
            }
        }
        else if (null != record.getThrown())
        {
            problems.add(message + " " + record.getThrown());
        }
    }

    private static boolean isIoError(final String cause)
    {
        return cause.startsWith("java.io.IOException") || cause.startsWith("java.net.SocketException") ||
            cause.startsWith("io.netty.channel.unix.Errors$NativeIoException") ||
            cause.contains("ClosedChannelException"); // java.nio's, or Netty's StacklessClosedChannelException
    }

    @Override
    public void flush()
    {
    }

    @Override
    public void close()
    {
    }
}
