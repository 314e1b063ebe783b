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

import java.util.Locale;

/**
 * Measures the {@link CostModel} at communicator creation, on the ring the algorithms use. Position 0 of the ring
 * (the initiator) times and decides; the others forward.
 * <pre>
 *   warm-up     : laps of an 8-byte token until at least WARMUP_MIN_LAPS laps and WARMUP_MIN_NS have passed
 *                 (capped at WARMUP_CAP_NS); the token carries the initiator's "another lap" flag, so every rank
 *                 stops after the same lap. Then WARMUP_SLOT_LAPS laps of a full slot. A cold path measured alpha
 *                 many times its steady value (the JIT had not compiled it).
 *   latency     : LATENCY_ROUNDS rounds of LATENCY_LAPS laps of the token; alpha = min over rounds of the round's
 *                 median lap / n ({@link MinOfMedians}: a preempted lap or a busy round does not move it)
 *   bandwidth   : BW_ROUNDS rounds of BW_LAPS laps of one full slot; beta = (estimate / n - alpha) / slot bytes
 *   reduction   : the initiator warms a float32 SUM up, then takes the best of GAMMA_REPEATS over one slot: gamma
 *   check       : {@link PlausibleModel} replaces an implausible figure by the transport's default, with a note
 *   distribute  : the initiator sends the raw figures and its defaults around the ring; every rank applies the
 *                 same check to them, so every rank has the same model (and picks the same algorithms)
 * </pre>
 */
public final class Calibration
{
    /** Least warm-up laps of the token. */
    static final int WARMUP_MIN_LAPS = 2_000;
    /** Least warm-up time. */
    static final long WARMUP_MIN_NS = 50_000_000L;
    /** Longest warm-up: on a loaded machine the calibration still ends promptly. */
    static final long WARMUP_CAP_NS = 1_000_000_000L;
    /** Warm-up laps of a full slot. */
    static final int WARMUP_SLOT_LAPS = 8;
    /** Rounds of token laps. */
    static final int LATENCY_ROUNDS = 7;
    /** Token laps per round. */
    static final int LATENCY_LAPS = 41;
    /** Rounds of slot laps. */
    static final int BW_ROUNDS = 5;
    /** Slot laps per round. */
    static final int BW_LAPS = 5;
    /** Untimed reductions before gamma is timed. */
    static final int GAMMA_WARMUP = 2_000;
    /** Timed reductions (the best counts). */
    static final int GAMMA_REPEATS = 9;
    /** Bytes of the distributed figures: 3 raw measured, 3 defaults. */
    private static final int PARAMS_BYTES = 48;
    private static final int TOKEN_BYTES = 8;
    private static final long MORE = 1;
    private static final long LAST = 0;
    private static final long LAST_CAPPED = 2;

    private final Steps steps;
    private final int size;
    private final boolean initiator;
    private final PeerLink left;
    private final PeerLink right;
    private boolean warmupCapped;

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
     * @param slotBytes slot size (at least {@code PARAMS_BYTES}).
     * @param fallback  the transport's default figures, used where a measurement is implausible.
     * @return the model, identical on every rank.
     */
    public CostModel run(final MemView buffer, final int slotBytes, final CostModel fallback)
    {
        final long base = buffer.nativeAddress(0);
        final int warmupLaps = warmUp(buffer, base);
        laps(buffer, slotBytes, WARMUP_SLOT_LAPS);
        final double latencyNs = MinOfMedians.estimate(laps(buffer, TOKEN_BYTES, LATENCY_ROUNDS * LATENCY_LAPS),
            LATENCY_LAPS);
        final double bandwidthNs = MinOfMedians.estimate(laps(buffer, slotBytes, BW_ROUNDS * BW_LAPS), BW_LAPS);
        if (initiator)
        {
            final double alpha = latencyNs / size;
            final double beta = (bandwidthNs / size - alpha) / slotBytes;
            // the reduction uses the slot as scratch: before the figures are written into it
            final double gamma = gamma(base, slotBytes);
            UnsafeApi.putDouble(base, alpha);
            UnsafeApi.putDouble(base + 8, beta);
            UnsafeApi.putDouble(base + 16, gamma);
            UnsafeApi.putDouble(base + 24, fallback.alphaNs());
            UnsafeApi.putDouble(base + 32, fallback.betaNsPerByte());
            UnsafeApi.putDouble(base + 40, fallback.gammaNsPerByte());
            steps.send(right, buffer, 0, PARAMS_BYTES);
            steps.recvCopy(left, buffer, 0, PARAMS_BYTES);
        }
        else
        {
            steps.recvCopy(left, buffer, 0, PARAMS_BYTES);
            steps.send(right, buffer, 0, PARAMS_BYTES);
        }
        steps.awaitSendsComplete();
        final CostModel defaults = new CostModel(UnsafeApi.getDouble(base + 24), UnsafeApi.getDouble(base + 32),
            UnsafeApi.getDouble(base + 40), false);
        // every rank forwarded the same warm-up laps, so the note is the same everywhere too
        final String method = String.format(Locale.ROOT, "warm-up %d token laps%s, alpha min of %d round medians " +
            "(%d laps each), beta of %d (%d laps)", warmupLaps, warmupCapped ? " (cut at 1 s: a slow or loaded " +
            "machine)" : "", LATENCY_ROUNDS, LATENCY_LAPS, BW_ROUNDS, BW_LAPS);
        return PlausibleModel.of(UnsafeApi.getDouble(base), UnsafeApi.getDouble(base + 8),
            UnsafeApi.getDouble(base + 16), defaults, method);
    }

    /**
     * Token laps until the initiator has seen enough (laps and time) or the cap: it writes MORE, LAST or LAST_CAPPED
     * into the token, the others read it after receiving, so all stop after the same lap and know whether the cap
     * ended it.
     *
     * @return laps run.
     */
    private int warmUp(final MemView buffer, final long base)
    {
        final long startNs = System.nanoTime();
        int laps = 0;
        long flag = MORE;
        while (MORE == flag)
        {
            if (initiator)
            {
                final long elapsedNs = System.nanoTime() - startNs;
                final boolean enough = laps + 1 >= WARMUP_MIN_LAPS && elapsedNs >= WARMUP_MIN_NS;
                flag = enough ? LAST : (elapsedNs >= WARMUP_CAP_NS ? LAST_CAPPED : MORE);
                UnsafeApi.putLong(base, flag);
                steps.send(right, buffer, 0, TOKEN_BYTES);
                steps.recvCopy(left, buffer, 0, TOKEN_BYTES);
            }
            else
            {
                steps.recvCopy(left, buffer, 0, TOKEN_BYTES);
                flag = UnsafeApi.getLong(base);
                steps.send(right, buffer, 0, TOKEN_BYTES);
            }
            laps++;
        }
        warmupCapped = LAST_CAPPED == flag;
        return laps;
    }

    /** @return the best time per byte of a float32 SUM over one slot, after a warm-up (initiator only). */
    private static double gamma(final long base, final int slotBytes)
    {
        // count floats into the first half of the slot from the second; the warm-up uses a short prefix of it.
        // Zeros, not what the laps left: denormal or NaN operands would time the slow path of the FPU.
        for (long offset = 0; offset + 8 <= slotBytes; offset += 8)
        {
            UnsafeApi.putLong(base + offset, 0L);
        }
        final int count = slotBytes / 8;
        for (int i = 0; i < GAMMA_WARMUP; i++)
        {
            Reductions.reduce(DataType.FLOAT32, ReduceOp.SUM, base, base + (long)count * 4, Math.min(count, 512));
        }
        long best = Long.MAX_VALUE;
        for (int i = 0; i < GAMMA_REPEATS; i++)
        {
            final long start = System.nanoTime();
            Reductions.reduce(DataType.FLOAT32, ReduceOp.SUM, base, base + (long)count * 4, count);
            best = Math.min(best, System.nanoTime() - start);
        }
        return (double)best / (count * 4L);
    }

    /** @return each lap's time, in order. */
    private long[] laps(final MemView buffer, final int bytes, final int laps)
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
        return times;
    }
}
