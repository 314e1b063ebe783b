// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Copies a child's output to a shared stream line by line with a {@code [rank N] } prefix. One thread per rank. */
final class OutputPump implements Runnable
{
    private final InputStream source;
    private final PrintStream sink;
    private final String prefix;

    OutputPump(final InputStream source, final PrintStream sink, final int rank)
    {
        this.source = source;
        this.sink = sink;
        this.prefix = "[rank " + rank + "] ";
    }

    @Override
    public void run()
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(source, StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = reader.readLine()))
            {
                // Whole lines under the sink's lock, so ranks' lines interleave but never mix.
                synchronized (sink)
                {
                    sink.println(prefix + line);
                }
            }
        }
        catch (final IOException ex)
        {
            synchronized (sink)
            {
                sink.println(prefix + "(output lost: " + ex + ")");
            }
        }
    }
}
