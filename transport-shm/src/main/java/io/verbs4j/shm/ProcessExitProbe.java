// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.io.IOException;
import java.io.RandomAccessFile;

/**
 * Tells that a peer's process has exited before its parent reaped it. {@link ProcessHandle#isAlive()} answers true
 * for a zombie, and a rank's parent (a launcher, a shell, a test JVM) may take tens of milliseconds or more to reap
 * it; the process state in {@code /proc/<pid>/stat} is {@code Z} (or {@code X}) as soon as the kernel has torn the
 * process down (about 10 ms after a JVM's halt on the development machine, against 30–45 ms until the handle said
 * so).
 * <p>
 * The stat file is opened once, when the peer is connected, so the probe is bound to that process: after the
 * process is reaped a read fails (ESRCH), also if its PID was reused meanwhile. A probe is a seek and a read into
 * a buffer it owns: no allocation while the process lives. A {@link RandomAccessFile} rather than a channel: an
 * interrupt of the polling thread would close a channel, and a closed probe must not read as a dead peer. Where
 * {@code /proc} is not available the probe answers "not exited" and the caller's other checks decide. Not
 * thread-safe (the device's progress calls it).
 */
final class ProcessExitProbe implements AutoCloseable
{
    private static final int STAT_BYTES = 512;

    private final RandomAccessFile stat;
    private final byte[] buffer;
    private boolean exited;

    private ProcessExitProbe(final RandomAccessFile stat)
    {
        this.stat = stat;
        this.buffer = null == stat ? null : new byte[STAT_BYTES];
    }

    /**
     * @param pid the process.
     * @return a probe of it (one that never answers "exited" where its stat file cannot be opened).
     */
    static ProcessExitProbe of(final long pid)
    {
        try
        {
            return new ProcessExitProbe(new RandomAccessFile("/proc/" + pid + "/stat", "r"));
        }
        catch (final IOException | SecurityException ex)
        {
            return new ProcessExitProbe(null);
        }
    }

    /** @return whether the probe can tell anything (a readable {@code /proc/<pid>/stat}). */
    boolean available()
    {
        return null != stat;
    }

    /** @return true once the process is a zombie, dead, or reaped. */
    boolean exited()
    {
        if (exited || null == stat)
        {
            return exited;
        }
        try
        {
            stat.seek(0);
            int read = 0;
            int n;
            while (read < buffer.length && (n = stat.read(buffer, read, buffer.length - read)) > 0)
            {
                read += n;
            }
            exited = 0 == read || isExitedState(buffer, read);
        }
        catch (final IOException ex)
        {
            // reaped (ESRCH), or the file went away with the process
            exited = true;
        }
        return exited;
    }

    /**
     * @param stat  the bytes of a {@code /proc/<pid>/stat} line.
     * @param limit how many are valid.
     * @return whether the state field (after the command name in parentheses, which may itself hold ')') is Z or X.
     */
    static boolean isExitedState(final byte[] stat, final int limit)
    {
        int close = -1;
        for (int i = 0; i < limit; i++)
        {
            if (')' == stat[i])
            {
                close = i;
            }
        }
        if (close < 0 || close + 2 >= limit)
        {
            return false;
        }
        final byte state = stat[close + 2];
        return 'Z' == state || 'X' == state || 'x' == state;
    }

    @Override
    public void close()
    {
        if (null != stat)
        {
            try
            {
                stat.close();
            }
            catch (final IOException ignore)
            {
                // nothing held but the descriptor
            }
        }
    }
}
