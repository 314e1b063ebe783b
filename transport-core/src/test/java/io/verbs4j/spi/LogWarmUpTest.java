// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import org.junit.jupiter.api.Test;

class LogWarmUpTest
{
    @Test
    void formatsOneRecordThroughTheRootHandlersFormattersAndPublishesNothing()
    {
        final Logger root = Logger.getLogger("");
        final RecordingHandler recorder = new RecordingHandler();
        root.addHandler(recorder);
        try
        {
            final int formatted = LogWarmUp.warmUp();
            // Two records (a message and a supplier), each formatted by every root handler with a formatter.
            assertTrue(formatted >= 2, "formatted " + formatted);
            assertTrue(recorder.formatCalls >= 2, "root formatter calls: " + recorder.formatCalls);
            assertEquals(List.of(), recorder.published, "the warm-up must print nothing");
        }
        finally
        {
            root.removeHandler(recorder);
        }
    }

    @Test
    void aRealRecordAfterTheWarmUpStillReachesTheRootHandlers()
    {
        final Logger root = Logger.getLogger("");
        final RecordingHandler recorder = new RecordingHandler();
        root.addHandler(recorder);
        try
        {
            LogWarmUp.warmUp();
            System.getLogger("io.verbs4j.log-warm-up").log(System.Logger.Level.WARNING, "a real record");
            assertEquals(List.of("a real record"), recorder.published);
        }
        finally
        {
            root.removeHandler(recorder);
        }
    }

    private static final class RecordingHandler extends Handler
    {
        final List<String> published = new ArrayList<>();
        int formatCalls;

        RecordingHandler()
        {
            setFormatter(new SimpleFormatter()
            {
                @Override
                public String format(final LogRecord record)
                {
                    formatCalls++;
                    return super.format(record);
                }
            });
        }

        @Override
        public void publish(final LogRecord record)
        {
            published.add(record.getMessage());
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
