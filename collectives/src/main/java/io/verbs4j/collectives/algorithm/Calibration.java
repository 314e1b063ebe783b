// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.topology.RingTopology;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.collectives.types.Reductions;
import org.agrona.UnsafeApi;

/**
 * Measures the {@link CostModel} at communicator creation, on the ring the algorithms use:
 * <pre>
 *   warm-up     : WARMUP_LAPS laps of an 8-byte token around the ring (and of a full slot)
 *   latency     : LAPS laps of the token; alpha = median lap time / n          (measured at ring position 0)
 *   bandwidth   : BW_LAPS laps of one full slot; beta = (median lap / n − alpha) / slot bytes (the default of
 *                 the transport if that is implausibly small: noise on a loaded machine)
 *   reduction   : position 0 times a float32 SUM over one slot, best of 5: gamma
 *   distribute  : position 0 sends (alpha, beta, gamma) around the ring, so every rank has the same model
 * </pre>
 */
public final class Calibration
{
    private static final int WARMUP_LAPS = 20;
    private static final int LAPS = 41;
    private static final int BW_LAPS = 9;
    private static final int PARAMS_BYTES = 24;
    /** Fastest link believed (50 GB/s): a faster measurement is noise, and the transport's default is used. */
    private static final double MIN_BETA_NS_PER_BYTE = 0.02;

    private final Steps steps;
    private final int size;
    private final boolean initiator;
    private final PeerLink left;
    private final PeerLink right;

    /**
     * @param steps primitives.
     * @param ring  the ring.
     */
    public Calibration(final Steps steps, final RingTopology ring)
    {
        this.steps = steps;
        final int rank = steps.links().rank();
        this.size = ring.size();
        this.initiator = 0 == ring.positionOf(rank);
        this.left = steps.links().link(ring.left(rank));
        this.right = steps.links().link(ring.right(rank));
    }

    /**
     * @param buffer registered scratch of at least one slot.
     * @param slotBytes slot size.
     * @param fallback  the transport's default figures, used where a measurement is implausible.
     * @return the model, identical on every rank.
     */
    public CostModel run(final MemView buffer, final int slotBytes, final CostModel fallback)
    {
        laps(buffer, 8, WARMUP_LAPS);
        laps(buffer, slotBytes, 3);
        final long latencyNs = laps(buffer, 8, LAPS);
        final long bandwidthNs = laps(buffer, slotBytes, BW_LAPS);
        final long base = buffer.nativeAddress(0);
        if (initiator)
        {
            final double alpha = (double)latencyNs / size;
            final double measuredBeta = ((double)bandwidthNs / size - alpha) / slotBytes;
            final double beta = measuredBeta < MIN_BETA_NS_PER_BYTE ? fallback.betaNsPerByte() : measuredBeta;
            final int count = slotBytes / 8;
            for (int i = 0; i < 200; i++)
            {
                Reductions.reduce(DataType.FLOAT32, ReduceOp.SUM, base, base + 4096, 1024);
            }
            long best = Long.MAX_VALUE;
            for (int i = 0; i < 5; i++)
            {
                final long start = System.nanoTime();
                Reductions.reduce(DataType.FLOAT32, ReduceOp.SUM, base, base + (long)count * 4, count);
                best = Math.min(best, System.nanoTime() - start);
            }
            final double gamma = Math.max(0.001, (double)best / (count * 4L));
            UnsafeApi.putDouble(base, alpha);
            UnsafeApi.putDouble(base + 8, beta);
            UnsafeApi.putDouble(base + 16, gamma);
            steps.send(right, buffer, 0, PARAMS_BYTES);
            steps.recvCopy(left, buffer, 0, PARAMS_BYTES);
        }
        else
        {
            steps.recvCopy(left, buffer, 0, PARAMS_BYTES);
            steps.send(right, buffer, 0, PARAMS_BYTES);
        }
        steps.awaitSendsComplete();
        return new CostModel(UnsafeApi.getDouble(base), UnsafeApi.getDouble(base + 8),
            UnsafeApi.getDouble(base + 16), true);
    }

    /** @return the median lap time. */
    private long laps(final MemView buffer, final int bytes, final int laps)
    {
        final long[] times = new long[laps];
        for (int lap = 0; lap < laps; lap++)
        {
            final long start = System.nanoTime();
            if (initiator)
            {
                steps.send(right, buffer, 0, bytes);
                steps.recvCopy(left, buffer, 0, bytes);
            }
            else
            {
                steps.recvCopy(left, buffer, 0, bytes);
                steps.send(right, buffer, 0, bytes);
            }
            times[lap] = System.nanoTime() - start;
        }
        java.util.Arrays.sort(times);
        return times[laps / 2];
    }
}
