// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.Algorithm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * Which algorithm a selector picks for every message size, as contiguous byte ranges: what a tool prints so that a
 * reader sees the cost model's decisions (and an implausible model shows as an implausible table). Built by probing
 * the selector from 1 B to a maximum in steps of 1/{@link #PROBES_PER_DOUBLING} of the size and bisecting every step
 * whose ends differ to the exact byte where the choice changes, as often as it changes there. An algorithm that wins
 * only strictly inside one step, with the same algorithm at both ends, is not seen (the cost terms that round up to
 * whole pieces make such islands possible, but not 1/8 of a size wide). Immutable.
 * <pre>{@code
 * ChoiceTable t = ChoiceTable.of(bytes -> comm.allReduceAlgorithm(bytes, Algorithm.AUTO), 1L << 30);
 * t.format(Algorithm::name);   // "1 B-2047 B RECURSIVE_DOUBLING, 2 KiB-1 GiB RING"
 * }</pre>
 */
public final class ChoiceTable
{
    /** One range of sizes with one algorithm. */
    public record Range(long fromBytes, long toBytes, Algorithm algorithm)
    {
    }

    /** Probes per doubling of the size: each probe is 1/8 above the last (1 B steps up to 8 B). */
    static final int PROBES_PER_DOUBLING = 8;

    private final List<Range> ranges;

    private ChoiceTable(final List<Range> ranges)
    {
        this.ranges = Collections.unmodifiableList(ranges);
    }

    /**
     * @param chooser  the algorithm for a size in bytes.
     * @param maxBytes largest size of the table, at least 1.
     * @return the table from 1 B to {@code maxBytes}.
     */
    public static ChoiceTable of(final LongFunction<Algorithm> chooser, final long maxBytes)
    {
        if (maxBytes < 1)
        {
            throw new IllegalArgumentException("maxBytes must be >= 1: " + maxBytes);
        }
        final List<Range> ranges = new ArrayList<>();
        long from = 1;
        Algorithm current = chooser.apply(1);
        long probe = 1;
        while (probe < maxBytes)
        {
            final long next = Math.min(maxBytes, probe + Math.max(1, probe / PROBES_PER_DOUBLING));
            long lo = probe;
            while (chooser.apply(next) != current)
            {
                // a size in (lo, next] where the choice leaves current: bisect to the byte
                long hi = next;
                while (hi - lo > 1)
                {
                    final long mid = lo + (hi - lo) / 2;
                    if (chooser.apply(mid) == current)
                    {
                        lo = mid;
                    }
                    else
                    {
                        hi = mid;
                    }
                }
                ranges.add(new Range(from, lo, current));
                from = hi;
                current = chooser.apply(hi);
                lo = hi;
            }
            probe = next;
        }
        ranges.add(new Range(from, maxBytes, current));
        return new ChoiceTable(ranges);
    }

    /** @return the ranges, in size order, covering 1 B to the maximum without gaps. */
    public List<Range> ranges()
    {
        return ranges;
    }

    /**
     * @param bytes a size within the table.
     * @return the algorithm of its range.
     */
    public Algorithm algorithmFor(final long bytes)
    {
        for (final Range range : ranges)
        {
            if (bytes >= range.fromBytes() && bytes <= range.toBytes())
            {
                return range.algorithm();
            }
        }
        throw new IllegalArgumentException("outside the table: " + bytes);
    }

    /**
     * @param name the printed name of an algorithm.
     * @return e.g. {@code 1 B-2047 B rd, 2 KiB-767 KiB hd, 768 KiB-1 GiB ring}.
     */
    public String format(final Function<Algorithm, String> name)
    {
        final StringBuilder text = new StringBuilder();
        for (final Range range : ranges)
        {
            text.append(text.length() == 0 ? "" : ", ").append(size(range.fromBytes())).append('-')
                .append(size(range.toBytes())).append(' ').append(name.apply(range.algorithm()));
        }
        return text.toString();
    }

    /** {@inheritDoc} */
    @Override
    public String toString()
    {
        return format(Algorithm::name);
    }

    /**
     * @param bytes a size.
     * @return {@code N GiB}, {@code N MiB} or {@code N KiB} when exact, else {@code N B}.
     */
    public static String size(final long bytes)
    {
        if (bytes >= 1L << 30 && 0 == bytes % (1L << 30))
        {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20 && 0 == bytes % (1L << 20))
        {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1L << 10 && 0 == bytes % (1L << 10))
        {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }
}
