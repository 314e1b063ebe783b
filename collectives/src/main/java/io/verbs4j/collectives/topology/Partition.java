// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.topology;

/**
 * Splits {@code count} elements into {@code parts} contiguous chunks whose lengths differ by at most one: the first
 * {@code count % parts} chunks get one extra element. Works for any count, including 0, 1 and counts smaller than
 * {@code parts} (trailing chunks are then empty). Pure, allocation-free.
 */
public final class Partition
{
    private Partition()
    {
    }

    /**
     * First element of a chunk.
     *
     * @param count total number of elements, not negative.
     * @param parts number of chunks, at least 1.
     * @param index chunk index in {@code [0, parts)}.
     * @return the chunk's starting element index.
     * @throws IllegalArgumentException if an argument is out of range.
     */
    public static long offset(final long count, final int parts, final int index)
    {
        validate(count, parts, index);
        final long base = count / parts;
        final long remainder = count % parts;
        return index * base + Math.min(index, remainder);
    }

    /**
     * Number of elements in a chunk.
     *
     * @param count total number of elements, not negative.
     * @param parts number of chunks, at least 1.
     * @param index chunk index in {@code [0, parts)}.
     * @return {@code count / parts}, plus one for the first {@code count % parts} chunks.
     * @throws IllegalArgumentException if an argument is out of range.
     */
    public static long length(final long count, final int parts, final int index)
    {
        validate(count, parts, index);
        return count / parts + (index < count % parts ? 1 : 0);
    }

    private static void validate(final long count, final int parts, final int index)
    {
        if (count < 0 || parts < 1 || index < 0 || index >= parts)
        {
            throw new IllegalArgumentException("need count >= 0, parts >= 1 and 0 <= index < parts but got count=" +
                count + ", parts=" + parts + ", index=" + index);
        }
    }
}
