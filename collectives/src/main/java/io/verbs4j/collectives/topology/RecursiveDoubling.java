// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.topology;

/**
 * Peer schedule for recursive doubling (latency-optimal AllReduce) and recursive halving-doubling
 * (Rabenseifner: reduce-scatter by halving, then all-gather by doubling) for any world size.
 *
 * <p>Non-power-of-two sizes use the usual fold: let {@code p} be the largest power of two not above {@code size}
 * and {@code extra = size - p}. Among ranks {@code 0 .. 2*extra-1}, each even rank is {@link Role#FOLDED}: before
 * the exchange it sends its whole buffer to the odd rank above it ({@link Role#PROXY}), which reduces it in, and
 * after the exchange it receives the final result back. Proxies and the ranks from {@code 2*extra} up
 * ({@link Role#CORE}) form the {@code p} participants, renumbered as virtual ranks {@code 0..p-1} (proxy
 * {@code 2i+1} → {@code i}, core rank {@code r} → {@code r - extra}).
 *
 * <p>Step sequence for one participant:
 * <pre>
 *   fold      : FOLDED sends to PROXY; PROXY reduces it in            (only if size is not a power of two)
 *   steps 0..log2(p)-1 : exchange with {@link #doublingPeer(int, int)}, distance 1, 2, 4, ...
 *                        (halving-doubling: {@link #halvingPeer(int, int)}, distance p/2, p/4, ..., 1,
 *                         keeping the half {@link #keepsLowerHalf(int, int)} says, then the same peers reversed)
 *   unfold    : PROXY sends the result to its FOLDED partner
 * </pre>
 *
 * <p>Immutable and thread-safe; queries are allocation-free.
 */
public final class RecursiveDoubling
{
    /** What a rank does in the fold/unfold phases. */
    public enum Role
    {
        /** Sits out the exchange: gives its data to a proxy first, gets the result back last. */
        FOLDED,
        /** Participates and also stands in for one folded rank. */
        PROXY,
        /** Participates with only its own data. */
        CORE
    }

    /** Returned for "no peer" (a folded rank during the exchange steps, a core rank's fold partner). */
    public static final int NONE = -1;

    private final int size;
    private final int powerOfTwo;
    private final int extra;
    private final int steps;

    /**
     * Builds the schedule.
     *
     * @param size number of ranks, at least 1.
     * @throws IllegalArgumentException if size is below 1.
     */
    public RecursiveDoubling(final int size)
    {
        if (size < 1)
        {
            throw new IllegalArgumentException("world size must be >= 1 but was " + size);
        }
        this.size = size;
        this.powerOfTwo = Integer.highestOneBit(size);
        this.extra = size - powerOfTwo;
        this.steps = Integer.numberOfTrailingZeros(powerOfTwo);
    }

    /**
     * Number of ranks.
     *
     * @return the world size.
     */
    public int size()
    {
        return size;
    }

    /**
     * Number of ranks taking part in the exchange steps.
     *
     * @return the largest power of two not above the size.
     */
    public int participants()
    {
        return powerOfTwo;
    }

    /**
     * Number of exchange steps.
     *
     * @return {@code log2(participants())}, 0 for one participant.
     */
    public int steps()
    {
        return steps;
    }

    /**
     * The rank's role in fold/unfold.
     *
     * @param rank a rank in {@code [0, size)}.
     * @return FOLDED, PROXY or CORE.
     */
    public Role role(final int rank)
    {
        checkRank(rank);
        if (rank < 2 * extra)
        {
            return 0 == (rank & 1) ? Role.FOLDED : Role.PROXY;
        }
        return Role.CORE;
    }

    /**
     * The partner in fold/unfold.
     *
     * @param rank a rank in {@code [0, size)}.
     * @return the proxy of a folded rank, the folded rank of a proxy, or {@link #NONE} for a core rank.
     */
    public int foldPartner(final int rank)
    {
        checkRank(rank);
        return rank < 2 * extra ? rank ^ 1 : NONE;
    }

    /**
     * Virtual rank used during the exchange steps.
     *
     * @param rank a rank in {@code [0, size)}.
     * @return the virtual rank in {@code [0, participants())}, or {@link #NONE} for a folded rank.
     */
    public int virtualRank(final int rank)
    {
        checkRank(rank);
        if (rank < 2 * extra)
        {
            return 0 == (rank & 1) ? NONE : rank >> 1;
        }
        return rank - extra;
    }

    /**
     * Real rank behind a virtual rank.
     *
     * @param virtualRank a virtual rank in {@code [0, participants())}.
     * @return the participating rank.
     */
    public int realRank(final int virtualRank)
    {
        if (virtualRank < 0 || virtualRank >= powerOfTwo)
        {
            throw new IllegalArgumentException("virtual rank " + virtualRank + " outside [0, " + powerOfTwo + ")");
        }
        return virtualRank < extra ? 2 * virtualRank + 1 : virtualRank + extra;
    }

    /**
     * Peer for recursive doubling step {@code step} (distance {@code 2^step}).
     *
     * @param rank a rank in {@code [0, size)}.
     * @param step a step in {@code [0, steps())}.
     * @return the real rank to exchange with, or {@link #NONE} for a folded rank.
     */
    public int doublingPeer(final int rank, final int step)
    {
        checkStep(step);
        final int virtual = virtualRank(rank);
        return NONE == virtual ? NONE : realRank(virtual ^ (1 << step));
    }

    /**
     * Peer for recursive halving step {@code step} (distance {@code participants() / 2^(step+1)}). The all-gather
     * that follows uses the same peers in reverse order.
     *
     * @param rank a rank in {@code [0, size)}.
     * @param step a step in {@code [0, steps())}.
     * @return the real rank to exchange with, or {@link #NONE} for a folded rank.
     */
    public int halvingPeer(final int rank, final int step)
    {
        checkStep(step);
        final int virtual = virtualRank(rank);
        return NONE == virtual ? NONE : realRank(virtual ^ (powerOfTwo >> (step + 1)));
    }

    /**
     * In halving step {@code step}, whether this rank keeps (reduces into) the lower half of its current block and
     * sends the upper half to {@link #halvingPeer}. After all steps a participant owns block number
     * {@code virtualRank} of {@code participants()} equal blocks.
     *
     * @param rank a participating rank.
     * @param step a step in {@code [0, steps())}.
     * @return true to keep the lower half.
     */
    public boolean keepsLowerHalf(final int rank, final int step)
    {
        checkStep(step);
        final int virtual = virtualRank(rank);
        if (NONE == virtual)
        {
            throw new IllegalArgumentException("rank " + rank + " is folded and takes no part in halving steps");
        }
        return 0 == (virtual & (powerOfTwo >> (step + 1)));
    }

    private void checkRank(final int rank)
    {
        if (rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank " + rank + " outside [0, " + size + ")");
        }
    }

    private void checkStep(final int step)
    {
        if (step < 0 || step >= steps)
        {
            throw new IllegalArgumentException("step " + step + " outside [0, " + steps + ")");
        }
    }
}
