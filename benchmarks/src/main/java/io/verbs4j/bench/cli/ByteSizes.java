// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Message sizes on the command line: a number of bytes with an optional binary suffix ({@code K}, {@code KiB},
 * {@code KB} = 1024; likewise {@code M}, {@code G}), case-insensitive, in comma-separated lists.
 */
public final class ByteSizes
{
    /** Largest size accepted anywhere: 1 GiB. */
    public static final long MAX_BYTES = 1L << 30;

    /** perftest {@code -a}: every power of two from 2 B to 8 MiB. */
    public static final int ALL_MIN_EXPONENT = 1;
    /** perftest {@code -a}: the largest exponent (2^23 = 8 MiB). */
    public static final int ALL_MAX_EXPONENT = 23;

    private ByteSizes()
    {
    }

    /**
     * Parses one size.
     *
     * @param text e.g. {@code 8}, {@code 64K}, {@code 4MiB}.
     * @return bytes, 1..{@link #MAX_BYTES}.
     * @throws IllegalArgumentException with a user-facing message if malformed or out of range.
     */
    public static int parse(final String text)
    {
        final String trimmed = text.trim().toUpperCase(Locale.ROOT);
        int end = 0;
        while (end < trimmed.length() && Character.isDigit(trimmed.charAt(end)))
        {
            end++;
        }
        if (0 == end || end > 12)
        {
            throw new IllegalArgumentException("invalid size '" + text + "' (expected e.g. 8, 64K, 4M)");
        }
        final long multiplier = switch (trimmed.substring(end))
        {
            case "", "B" -> 1L;
            case "K", "KB", "KIB" -> 1L << 10;
            case "M", "MB", "MIB" -> 1L << 20;
            case "G", "GB", "GIB" -> 1L << 30;
            default -> throw new IllegalArgumentException("invalid size suffix in '" + text + "' (use K, M or G)");
        };
        final long bytes = Long.parseLong(trimmed.substring(0, end)) * multiplier;
        if (bytes < 1 || bytes > MAX_BYTES)
        {
            throw new IllegalArgumentException("size '" + text + "' out of range (1 B .. 1 GiB)");
        }
        return (int)bytes;
    }

    /**
     * Parses a comma-separated list.
     *
     * @param list e.g. {@code 8,4K,1M}.
     * @return the sizes in the given order.
     * @throws IllegalArgumentException if any entry is invalid or the list is empty.
     */
    public static List<Integer> parseList(final String list)
    {
        final List<Integer> sizes = new ArrayList<>();
        for (final String item : list.split(","))
        {
            if (!item.isBlank())
            {
                sizes.add(parse(item));
            }
        }
        if (sizes.isEmpty())
        {
            throw new IllegalArgumentException("empty size list");
        }
        return sizes;
    }

    /**
     * perftest's {@code -a} sweep.
     *
     * @return 2, 4, ..., 8388608.
     */
    public static List<Integer> all()
    {
        final List<Integer> sizes = new ArrayList<>();
        for (int e = ALL_MIN_EXPONENT; e <= ALL_MAX_EXPONENT; e++)
        {
            sizes.add(1 << e);
        }
        return sizes;
    }
}
