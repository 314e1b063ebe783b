// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects the messages logged to {@code io.verbs4j.collectives} while open (through java.util.logging). */
final class LogCapture extends Handler implements AutoCloseable
{
    private final Logger logger = Logger.getLogger("io.verbs4j.collectives");
    private final List<String> messages = new ArrayList<>();

    LogCapture()
    {
        logger.addHandler(this);
    }

    /** @return the messages so far. */
    synchronized List<String> messages()
    {
        return new ArrayList<>(messages);
    }

    @Override
    public synchronized void publish(final LogRecord record)
    {
        messages.add(record.getMessage());
    }

    @Override
    public void flush()
    {
    }

    @Override
    public void close()
    {
        logger.removeHandler(this);
    }
}
