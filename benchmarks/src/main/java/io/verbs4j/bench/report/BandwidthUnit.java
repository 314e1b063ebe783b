// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.report;

/**
 * The unit of a perftest bandwidth table, as perftest prints it: {@code MiB/sec} (2^20 bytes per second, the default
 * of {@code ib_write_bw} and friends) or {@code Gb/sec} (1e9 bits per second, {@code --report_gbits}).
 */
public enum BandwidthUnit
{
    /** perftest's default: 2^20 bytes per second. */
    MIB_PER_SEC("MiB/sec", "MiB/sec = 2^20 B/s", 1e9 / (1 << 20)),
    /** perftest's {@code --report_gbits}: 1e9 bits per second. */
    GBIT_PER_SEC("Gb/sec", "Gb/sec = 1e9 bit/s", 8);

    private final String label;
    private final String definition;
    private final double perGBps;

    BandwidthUnit(final String label, final String definition, final double perGBps)
    {
        this.label = label;
        this.definition = definition;
        this.perGBps = perGBps;
    }

    /** @return the unit as in perftest's column header, e.g. {@code MiB/sec}. */
    public String label()
    {
        return label;
    }

    /** @return what the unit is, for a table's banner, e.g. {@code MiB/sec = 2^20 B/s}. */
    public String definition()
    {
        return definition;
    }

    /**
     * Converts a bandwidth.
     *
     * @param gigabytesPerSecond bytes per second / 1e9.
     * @return the same bandwidth in this unit.
     */
    public double fromGBps(final double gigabytesPerSecond)
    {
        return gigabytesPerSecond * perGBps;
    }
}
