// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.Algorithm;

/**
 * Alpha-beta(-gamma) cost model of the collectives: {@code alpha} = time of one message hop, {@code beta} = time per
 * byte on a link, {@code gamma} = time per byte of a local reduction. Either measured at communicator creation
 * ({@link Calibration}) and then identical on every rank, or taken from {@link #defaults(String)}. Immutable.
 */
public final class CostModel
{
    private final double alphaNs;
    private final double betaNsPerByte;
    private final double gammaNsPerByte;
    private final boolean measured;
    private final String note;

    /**
     * @param alphaNs        per-hop latency.
     * @param betaNsPerByte  per-byte link time.
     * @param gammaNsPerByte per-byte reduction time.
     * @param measured       whether calibrated.
     */
    public CostModel(final double alphaNs, final double betaNsPerByte, final double gammaNsPerByte,
        final boolean measured)
    {
        this(alphaNs, betaNsPerByte, gammaNsPerByte, measured, "");
    }

    /**
     * @param alphaNs        per-hop latency.
     * @param betaNsPerByte  per-byte link time.
     * @param gammaNsPerByte per-byte reduction time.
     * @param measured       whether calibrated.
     * @param note           how the figures were obtained (which were replaced by defaults and why); may be empty.
     */
    public CostModel(final double alphaNs, final double betaNsPerByte, final double gammaNsPerByte,
        final boolean measured, final String note)
    {
        this.alphaNs = alphaNs;
        this.betaNsPerByte = betaNsPerByte;
        this.gammaNsPerByte = gammaNsPerByte;
        this.measured = measured;
        this.note = null == note ? "" : note;
    }

    /**
     * Built-in figures per transport, used without calibration (the slowest transport in use counts).
     *
     * @param transport provider name.
     * @return a model.
     */
    public static CostModel defaults(final String transport)
    {
        if ("shm".equals(transport))
        {
            return new CostModel(2_000, 1.0 / 5.0, 1.0 / 4.0, false, "built-in figures of shm");
        }
        return new CostModel(20_000, 1.0 / 2.0, 1.0 / 4.0, false, "built-in figures of " + transport);
    }

    /** @return per-hop latency, ns. */
    public double alphaNs()
    {
        return alphaNs;
    }

    /** @return per-byte link time, ns. */
    public double betaNsPerByte()
    {
        return betaNsPerByte;
    }

    /** @return per-byte reduction time, ns. */
    public double gammaNsPerByte()
    {
        return gammaNsPerByte;
    }

    /** @return whether the figures were measured. */
    public boolean measured()
    {
        return measured;
    }

    /** @return how the figures were obtained, e.g. the calibration method and any figure replaced by a default. */
    public String note()
    {
        return note;
    }

    /**
     * Predicted AllReduce time.
     *
     * @param algorithm  a concrete algorithm.
     * @param bytes      message size.
     * @param size       ranks.
     * @param chunkBytes slot size.
     * @return nanoseconds.
     */
    public double allReduceNs(final Algorithm algorithm, final long bytes, final int size, final int chunkBytes)
    {
        if (size < 2)
        {
            return 0;
        }
        final double s = bytes;
        final int p = Integer.highestOneBit(size);
        final int log = Integer.numberOfTrailingZeros(p);
        final int fold = p == size ? 0 : 1;
        switch (algorithm)
        {
            case RING:
            {
                final double rounds = Math.max(1, Math.ceil(s / ((double)size * chunkBytes)));
                return 2.0 * (size - 1) * rounds * alphaNs + 2.0 * (size - 1) / size * s * betaNsPerByte +
                    (double)(size - 1) / size * s * gammaNsPerByte;
            }
            case TREE:
            {
                final int depth = 32 - Integer.numberOfLeadingZeros(size);
                final double pieces = Math.max(1, Math.ceil(s / 2.0 / chunkBytes));
                return (2.0 * depth + 2.0 * pieces) * alphaNs + 2.0 * s * betaNsPerByte + s * gammaNsPerByte;
            }
            case RECURSIVE_DOUBLING:
            {
                final double pieces = Math.max(1, Math.ceil(s / chunkBytes));
                return (log + 2.0 * fold) * (pieces * alphaNs + s * betaNsPerByte) + (log + fold) * s * gammaNsPerByte;
            }
            case HALVING_DOUBLING:
            {
                final double pieces = Math.max(1, Math.ceil(s / p / chunkBytes));
                return (2.0 * log * pieces + 2.0 * fold * Math.max(1, Math.ceil(s / chunkBytes))) * alphaNs +
                    (2.0 * s * (p - 1) / p + 2.0 * fold * s) * betaNsPerByte +
                    (s * (p - 1) / p + fold * s) * gammaNsPerByte;
            }
            case ONE_SHOT:
            {
                final double pieces = Math.max(1, Math.ceil(s / chunkBytes));
                return pieces * alphaNs + (size - 1) * s * (betaNsPerByte + gammaNsPerByte);
            }
            default:
                throw new IllegalArgumentException("no cost for " + algorithm);
        }
    }

    /**
     * Predicted Broadcast (or Reduce) time.
     *
     * @param chain      true for the chain, false for the binary tree.
     * @param bytes      message size.
     * @param size       ranks.
     * @param chunkBytes slot size.
     * @return nanoseconds.
     */
    public double rootedNs(final boolean chain, final long bytes, final int size, final int chunkBytes)
    {
        final double pieces = Math.max(1, Math.ceil((double)bytes / chunkBytes));
        final double piece = Math.min(bytes, chunkBytes);
        if (chain)
        {
            return (size - 1 + pieces - 1) * (alphaNs + piece * betaNsPerByte);
        }
        final int depth = 31 - Integer.numberOfLeadingZeros(size);
        return (depth + 2 * (pieces - 1)) * (alphaNs + piece * betaNsPerByte) + depth * alphaNs;
    }

    /**
     * The model for people: what each term costs and where the figures come from, e.g. {@code alpha 6.6 us per
     * message, beta 0.100 ns/B (10.05 GB/s), gamma 0.100 ns/B to reduce (measured: ...)}.
     *
     * @return one line, no class name and no braces.
     */
    public String describe()
    {
        return String.format(java.util.Locale.ROOT,
            "alpha %.1f us per message, beta %.3f ns/B (%.2f GB/s), gamma %.3f ns/B to reduce (%s%s)",
            alphaNs / 1000.0, betaNsPerByte, 1.0 / Math.max(1e-9, betaNsPerByte), gammaNsPerByte,
            measured ? "measured" : "defaults", note.isEmpty() ? "" : ": " + note);
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return String.format(java.util.Locale.ROOT,
            "CostModel{alpha=%.0f ns, beta=%.3f ns/B (%.2f GB/s), gamma=%.3f ns/B, %s%s}",
            alphaNs, betaNsPerByte, 1.0 / Math.max(1e-9, betaNsPerByte), gammaNsPerByte,
            measured ? "measured" : "defaults", note.isEmpty() ? "" : ": " + note);
    }
}
