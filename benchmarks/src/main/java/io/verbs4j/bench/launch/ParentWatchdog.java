// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.launch;

import java.io.IOException;
import java.io.InputStream;

/**
 * Makes a child JVM exit when its parent goes away: a daemon thread reads standard input until end-of-file (the
 * parent holds the other end of the pipe, see {@link PeerProcess}) and then calls {@link System#exit}, which runs
 * the shutdown hooks that remove shm files.
 */
public final class ParentWatchdog
{
    /** Exit code used when the parent disappeared. */
    public static final int PARENT_GONE_EXIT_CODE = 3;

    private ParentWatchdog()
    {
    }

    /**
     * Starts watching {@code in}; returns immediately.
     *
     * @param in the stream whose end means "parent gone", normally {@link System#in}.
     */
    public static void start(final InputStream in)
    {
        final Thread thread = new Thread(
            () ->
            {
                final byte[] sink = new byte[256];
                try
                {
                    int read;
                    do
                    {
                        read = in.read(sink);
                    }
                    while (read >= 0);
                }
                catch (final IOException ignore)
                {
                    // A broken pipe means the parent is gone, exactly like end-of-file.
                }
                System.err.println("# verbs4j peer: parent process gone, exiting");
                System.exit(PARENT_GONE_EXIT_CODE);
            },
            "verbs4j-parent-watchdog");
        thread.setDaemon(true);
        thread.start();
    }
}
