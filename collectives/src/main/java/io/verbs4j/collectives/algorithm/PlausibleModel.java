// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import java.util.Locale;

/**
 * Turns calibration figures into a {@link CostModel} that can be trusted to pick algorithms: a figure outside the
 * plausible range of its transport is a measurement artefact (a machine too loaded to measure, a preempted rank) and
 * is replaced by the transport's default, with a note saying so. One demo run measured alpha = 1.4 ms on shm (a
 * hop is 1-5 us there); that figure picked the algorithms of the whole run.
 * <pre>
 *   figure   accepted range                                   why
 *   alpha    [MIN_ALPHA_NS, default alpha x MAX_ALPHA_FACTOR]  below: a clock artefact; above: preemption, not a link
 *   beta     [MIN_BETA_NS_PER_BYTE, MAX_BETA_NS_PER_BYTE]      50 GB/s is faster than memory; 10 MB/s is no link
 *   gamma    [MIN_GAMMA_NS_PER_BYTE, MAX_GAMMA_NS_PER_BYTE]    a float sum runs at 0.1-20 GB/s per core
 * </pre>
 * Deterministic: every rank that applies it to the same figures gets the same model and note.
 */
public final class PlausibleModel
{
    /** Shortest plausible hop, ns. */
    public static final double MIN_ALPHA_NS = 50;
    /** Longest plausible hop, as a multiple of the transport's default. */
    public static final double MAX_ALPHA_FACTOR = 20;
    /** Fastest plausible link: 50 GB/s. */
    public static final double MIN_BETA_NS_PER_BYTE = 0.02;
    /** Slowest plausible link: 10 MB/s. */
    public static final double MAX_BETA_NS_PER_BYTE = 100;
    /** Fastest plausible reduction: 1 TB/s. */
    public static final double MIN_GAMMA_NS_PER_BYTE = 0.001;
    /** Slowest plausible reduction: 100 MB/s. */
    public static final double MAX_GAMMA_NS_PER_BYTE = 10;

    private PlausibleModel()
    {
    }

    /**
     * @param alphaNs       measured per-hop latency.
     * @param betaNsPerByte measured per-byte link time.
     * @param gammaNsPerByte measured per-byte reduction time.
     * @param fallback      the transport's defaults.
     * @param method        how the figures were measured, for the note.
     * @return a measured model whose implausible figures are the defaults, the note naming them.
     */
    public static CostModel of(final double alphaNs, final double betaNsPerByte, final double gammaNsPerByte,
        final CostModel fallback, final String method)
    {
        final StringBuilder note = new StringBuilder(method);
        final double alpha = pick("alpha", alphaNs, MIN_ALPHA_NS, fallback.alphaNs() * MAX_ALPHA_FACTOR,
            fallback.alphaNs(), "ns", note);
        final double beta = pick("beta", betaNsPerByte, MIN_BETA_NS_PER_BYTE, MAX_BETA_NS_PER_BYTE,
            fallback.betaNsPerByte(), "ns/B", note);
        final double gamma = pick("gamma", gammaNsPerByte, MIN_GAMMA_NS_PER_BYTE, MAX_GAMMA_NS_PER_BYTE,
            fallback.gammaNsPerByte(), "ns/B", note);
        return new CostModel(alpha, beta, gamma, true, note.toString());
    }

    private static double pick(final String name, final double measured, final double min, final double max,
        final double fallback, final String unit, final StringBuilder note)
    {
        if (measured >= min && measured <= max)
        {
            return measured;
        }
        note.append("; ").append(name).append(' ').append(num(measured)).append(' ').append(unit)
            .append(" implausible (outside ").append(num(min)).append("..").append(num(max)).append("), default ")
            .append(num(fallback)).append(" used");
        return fallback;
    }

    /** @return whole numbers between 1 and 10^7 without decimals, others with 3 significant digits. */
    private static String num(final double value)
    {
        final double magnitude = Math.abs(value);
        if (magnitude >= 1 && magnitude < 1e7)
        {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        return String.format(Locale.ROOT, "%.3g", value);
    }
}
