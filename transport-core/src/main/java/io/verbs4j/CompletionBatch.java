// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * Caller-owned storage for polled completions, struct-of-arrays so that polling allocates nothing: after
 * {@link CompletionQueue#poll(CompletionBatch)} returned {@code n}, entries {@code 0..n-1} are valid.
 * Not thread-safe.
 */
public final class CompletionBatch implements CompletionHandler
{
    private final long[] wrIds;
    private final int[] statuses;
    private final int[] opcodes;
    private final int[] byteLengths;
    private final int[] immediates;
    private final int[] flags;
    private final int[] qpNumbers;
    private int size;

    /**
     * @param capacity most completions one poll returns.
     */
    public CompletionBatch(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        wrIds = new long[capacity];
        statuses = new int[capacity];
        opcodes = new int[capacity];
        byteLengths = new int[capacity];
        immediates = new int[capacity];
        flags = new int[capacity];
        qpNumbers = new int[capacity];
    }

    /** @return most completions held. */
    public int capacity()
    {
        return wrIds.length;
    }

    /** @return completions held since the last {@link #clear()}. */
    public int size()
    {
        return size;
    }

    /** Forgets the completions held. */
    public void clear()
    {
        size = 0;
    }

    /** {@inheritDoc} */
    public void onCompletion(
        final long wrId,
        final int status,
        final int opcode,
        final int byteLength,
        final int immediateData,
        final int flags,
        final int qpNumber)
    {
        final int i = size++;
        wrIds[i] = wrId;
        statuses[i] = status;
        opcodes[i] = opcode;
        byteLengths[i] = byteLength;
        immediates[i] = immediateData;
        this.flags[i] = flags;
        qpNumbers[i] = qpNumber;
    }

    /**
     * @param i index.
     * @return the correlation id.
     */
    public long wrId(final int i)
    {
        return wrIds[i];
    }

    /**
     * @param i index.
     * @return the {@link WcStatus}.
     */
    public int status(final int i)
    {
        return statuses[i];
    }

    /**
     * @param i index.
     * @return the {@link Opcode}.
     */
    public int opcode(final int i)
    {
        return opcodes[i];
    }

    /**
     * @param i index.
     * @return bytes transferred.
     */
    public int byteLength(final int i)
    {
        return byteLengths[i];
    }

    /**
     * @param i index.
     * @return immediate data.
     */
    public int immediateData(final int i)
    {
        return immediates[i];
    }

    /**
     * @param i index.
     * @return completion flags.
     */
    public int flags(final int i)
    {
        return flags[i];
    }

    /**
     * @param i index.
     * @return queue-pair number.
     */
    public int qpNumber(final int i)
    {
        return qpNumbers[i];
    }
}
