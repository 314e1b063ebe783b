// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.spi;

/**
 * The two perftest test shapes.
 */
public enum TestKind
{
    /** Ping-pong: one message each way per iteration; reported as half the round trip (perftest {@code *_lat}). */
    LATENCY("lat", "Latency"),

    /** One-way stream in windows acknowledged by the responder (perftest {@code *_bw}, osu_bw windowing). */
    BANDWIDTH("bw", "BW");

    private final String shortName;
    private final String title;

    TestKind(final String shortName, final String title)
    {
        this.shortName = shortName;
        this.title = title;
    }

    /**
     * The name used on the command line and in JSON output.
     *
     * @return {@code lat} or {@code bw}.
     */
    public String shortName()
    {
        return shortName;
    }

    /**
     * The word used in the perftest banner ("... Latency Test", "... BW Test").
     *
     * @return the title word.
     */
    public String title()
    {
        return title;
    }

    /**
     * Looks a kind up by {@link #shortName()}.
     *
     * @param shortName {@code lat} or {@code bw}, case-insensitive.
     * @return the kind.
     * @throws IllegalArgumentException for any other name.
     */
    public static TestKind ofShortName(final String shortName)
    {
        for (final TestKind kind : values())
        {
            if (kind.shortName.equalsIgnoreCase(shortName))
            {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown test '" + shortName + "' (expected lat or bw)");
    }
}
