// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import java.util.concurrent.TimeUnit;

/**
 * The last collectives one rank started, in a fixed ring: sequence number, operation, size, algorithm, when it
 * started and whether it completed. Logged when the communicator fails, and readable at any time, so a hang can be
 * read off every rank ("rank 2 is still in allReduce #5021, the others finished it"), as PyTorch's flight recorder
 * does for NCCL.
 * <p>
 * Recording is allocation-free: parallel primitive arrays written by the thread that runs operations (one writer).
 * {@link #describe(long)} may run on another thread; it then reads a best-effort snapshot (an entry being
 * overwritten at that moment may show mixed fields), which is enough for diagnosis and never blocks the writer.
 */
public final class OpHistory
{
    private static final byte RUNNING = 0;
    private static final byte DONE = 1;
    private static final byte FAILED = 2;

    private final int capacity;
    private final long[] seq;
    private final String[] operation;
    private final long[] bytes;
    private final String[] algorithm;
    private final long[] startNs;
    private final byte[] state;
    private long count;
    private int current = -1;

    /**
     * @param capacity entries kept (0 disables the history).
     * @throws IllegalArgumentException if negative.
     */
    public OpHistory(final int capacity)
    {
        if (capacity < 0)
        {
            throw new IllegalArgumentException("history capacity must be >= 0: " + capacity);
        }
        this.capacity = capacity;
        seq = new long[capacity];
        operation = new String[capacity];
        bytes = new long[capacity];
        algorithm = new String[capacity];
        startNs = new long[capacity];
        state = new byte[capacity];
    }

    /** @return entries kept (0: disabled). */
    public int capacity()
    {
        return capacity;
    }

    /** @return operations recorded since creation (also those no longer in the ring). */
    public long count()
    {
        return count;
    }

    /**
     * Records the start of an operation.
     *
     * @param opSeq     its sequence number on this rank.
     * @param op        its name (a constant: no copy is made).
     * @param opBytes   its size in bytes.
     * @param startTime its start, {@link System#nanoTime()}.
     */
    public void begin(final long opSeq, final String op, final long opBytes, final long startTime)
    {
        count++;
        if (0 == capacity)
        {
            return;
        }
        final int i = (int)((count - 1) % capacity);
        current = i;
        seq[i] = opSeq;
        operation[i] = op;
        bytes[i] = opBytes;
        algorithm[i] = null;
        startNs[i] = startTime;
        state[i] = RUNNING;
    }

    /**
     * Ends the current operation.
     *
     * @param algorithmName the algorithm it ran (a constant), or null.
     * @param ok            whether it completed.
     */
    public void end(final String algorithmName, final boolean ok)
    {
        if (current >= 0)
        {
            algorithm[current] = algorithmName;
            state[current] = ok ? DONE : FAILED;
            current = -1;
        }
    }

    /**
     * The history as text, oldest first, one line per operation.
     *
     * @param nowNs the time to measure "started ... ago" against ({@link System#nanoTime()}).
     * @return the lines; "(history disabled)" or "(no operation yet)" when there is nothing to show.
     */
    public String describe(final long nowNs)
    {
        if (0 == capacity)
        {
            return "(history disabled)";
        }
        final long n = count;
        if (0 == n)
        {
            return "(no operation yet)";
        }
        final StringBuilder text = new StringBuilder();
        final long first = Math.max(0, n - capacity);
        for (long k = first; k < n; k++)
        {
            final int i = (int)(k % capacity);
            if (text.length() > 0)
            {
                text.append('\n');
            }
            text.append("  #").append(seq[i]).append(' ').append(operation[i]).append(' ').append(bytes[i])
                .append(" B");
            if (null != algorithm[i])
            {
                text.append(' ').append(algorithm[i]);
            }
            final long agoUs = TimeUnit.NANOSECONDS.toMicros(nowNs - startNs[i]);
            // Three digits by hand: this runs on the failure path, where String.format's first use costs milliseconds.
            final long micros = agoUs % 1000;
            text.append(", started ").append(agoUs / 1000).append('.').append(micros < 100 ? "0" : "")
                .append(micros < 10 ? "0" : "").append(micros).append(" ms ago, ").append(stateName(state[i]));
        }
        return text.toString();
    }

    private static String stateName(final byte s)
    {
        switch (s)
        {
            case DONE:
                return "completed";
            case FAILED:
                return "FAILED";
            default:
                return "NOT COMPLETED";
        }
    }
}
