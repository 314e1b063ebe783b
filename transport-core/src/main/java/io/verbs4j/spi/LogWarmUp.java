// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Takes the start-up cost of the logging backend off the failure path. The first record a JVM logs through
 * {@code System.Logger} and {@code java.util.logging} costs 40-270 ms on a 2-core machine (the log manager, the
 * console handler, the formatter's date and pattern machinery, caller inference, all loaded and interpreted for the
 * first time); later records cost 1-5 ms. In verbs4j the first record is usually the report of a peer's death, logged
 * by the thread that found it, which is often the application's own thread waiting in a collective: that cost sat
 * between the death and the error the application sees (docs/RELIABILITY.md, "Survivors carry on").
 * <p>
 * {@link #startOnce()} runs, once per JVM and on a daemon thread of minimum priority, one record through the same
 * path a real one takes — a {@code System.Logger} bridged to a {@code java.util.logging} logger, and the root
 * handlers' formatters — into a handler that formats and discards it, so nothing is printed. Where
 * {@code System.Logger} is routed to another backend (SLF4J, Log4j) only the bridge's own start-up is done.
 * {@code -Dverbs4j.log.warmup=false} turns it off.
 */
public final class LogWarmUp
{
    /** Name of the one-shot thread (it ends by itself after the warm-up, typically within 100-250 ms). */
    public static final String THREAD_NAME = "verbs4j-log-warm-up";

    /** System property that turns the warm-up off when {@code false}. */
    public static final String ENABLED_PROP_NAME = "verbs4j.log.warmup";

    private static final String LOGGER_NAME = "io.verbs4j.log-warm-up";
    private static final String JUL_FINDER = "sun.util.logging.internal.LoggingProviderImpl";
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private LogWarmUp()
    {
    }

    /** Starts the warm-up thread unless one was started before in this JVM or the property turns it off. */
    public static void startOnce()
    {
        if (!Boolean.parseBoolean(System.getProperty(ENABLED_PROP_NAME, "true")) || !STARTED.compareAndSet(false, true))
        {
            return;
        }
        final Thread thread = new Thread(LogWarmUp::warmUp, THREAD_NAME);
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
        thread.start();
    }

    /**
     * Runs one record through the logging path without printing it.
     *
     * @return how many of the root handlers' formatters formatted it (0 where the backend is not
     *         {@code java.util.logging}).
     */
    static int warmUp()
    {
        try
        {
            final System.Logger bridge = System.getLogger(LOGGER_NAME);
            if (!JUL_FINDER.equals(System.LoggerFinder.getLoggerFinder().getClass().getName()))
            {
                bridge.isLoggable(System.Logger.Level.ERROR);
                return 0;
            }
            // Held strongly while in use: java.util.logging keeps loggers only weakly.
            final Logger target = Logger.getLogger(LOGGER_NAME);
            final FormatAndDiscard sink = new FormatAndDiscard(Logger.getLogger("").getHandlers());
            target.setUseParentHandlers(false);
            target.setLevel(Level.ALL);
            target.addHandler(sink);
            try
            {
                bridge.log(System.Logger.Level.WARNING, "verbs4j: logging warm-up, formatted and discarded");
                bridge.log(System.Logger.Level.WARNING, () -> "verbs4j: logging warm-up " + System.nanoTime());
            }
            finally
            {
                target.removeHandler(sink);
                target.setLevel(null);
                target.setUseParentHandlers(true);
            }
            return sink.formatted;
        }
        catch (final RuntimeException | LinkageError ex)
        {
            // A warm-up must never fail anything: whatever went wrong will show when a real record is logged.
            return 0;
        }
    }

    /** Formats each record with the root handlers' formatters, as they would, and prints nothing. */
    private static final class FormatAndDiscard extends Handler
    {
        private final Handler[] rootHandlers;
        private int formatted;

        FormatAndDiscard(final Handler[] rootHandlers)
        {
            this.rootHandlers = rootHandlers;
        }

        @Override
        public void publish(final LogRecord record)
        {
            for (final Handler handler : rootHandlers)
            {
                final Formatter formatter = handler.getFormatter();
                if (null != formatter && !formatter.format(record).isEmpty())
                {
                    formatted++;
                }
            }
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
}
