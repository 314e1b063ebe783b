// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import java.util.Locale;

/**
 * The collectives {@code verbs4j coll} measures, with nccl-tests' accounting for each: how a swept size becomes
 * element counts, and the bus-bandwidth factor ({@code NVIDIA/nccl-tests:doc/PERFORMANCE.md}).
 * <p>
 * For a swept size {@code S} bytes, element size {@code e} and {@code n} ranks:
 * <pre>
 *   collective      count column (per call)   send elements   recv elements   algbw base (bytes)   busbw factor
 *   allreduce       S/e                        count           count           count*e              2(n-1)/n
 *   broadcast       S/e                        count (root)    count           count*e              1
 *   reduce          S/e                        count           count (root)    count*e              1
 *   allgather       S/e/n  (per rank)          count           n*count         n*count*e            (n-1)/n
 *   reducescatter   S/e/n  (per rank)          n*count         count           n*count*e            (n-1)/n
 *   alltoall        S/e/n  (per block)         n*count         n*count         n*count*e            (n-1)/n
 *   gather          S/e/n  (per rank)          count           n*count (root)  n*count*e            (n-1)/n
 *   scatter         S/e/n  (per rank)          n*count (root)  count           n*count*e            (n-1)/n
 *   sendrecv        S/e                        count           count           count*e              1
 *   barrier         0                          -               -               0                    0
 * </pre>
 * The size column is {@code max(send, recv)} bytes, so a size not divisible by {@code n * e} is rounded down as
 * nccl-tests does. {@code barrier} is not in nccl-tests; it is reported with size 0 (time only).
 */
public enum Collective
{
    /** {@code Communicator.allReduce}. */
    ALLREDUCE("allreduce", "all_reduce", false, true, false),
    /** {@code Communicator.broadcast} (one buffer: in place only). */
    BROADCAST("broadcast", "broadcast", true, false, false),
    /** {@code Communicator.reduce}. */
    REDUCE("reduce", "reduce", true, true, false),
    /** {@code Communicator.allGather}. */
    ALLGATHER("allgather", "all_gather", false, false, true),
    /** {@code Communicator.reduceScatter}. */
    REDUCESCATTER("reducescatter", "reduce_scatter", false, true, true),
    /** {@code Communicator.allToAll}. */
    ALLTOALL("alltoall", "alltoall", false, false, true),
    /** {@code Communicator.gather}. */
    GATHER("gather", "gather", true, false, true),
    /** {@code Communicator.scatter}. */
    SCATTER("scatter", "scatter", true, false, true),
    /** {@code Communicator.barrier} (no data; not in nccl-tests). */
    BARRIER("barrier", "barrier", false, false, false),
    /** {@code Communicator.sendRecv}: every rank sends to rank+1 and receives from rank-1 (a ring shift). */
    SENDRECV("sendrecv", "sendrecv", false, false, false);

    private final String label;
    private final String ncclTestsName;
    private final boolean rooted;
    private final boolean reduction;
    private final boolean perRank;

    Collective(final String label, final String ncclTestsName, final boolean rooted, final boolean reduction,
        final boolean perRank)
    {
        this.label = label;
        this.ncclTestsName = ncclTestsName;
        this.rooted = rooted;
        this.reduction = reduction;
        this.perRank = perRank;
    }

    /** @return the command-line name, e.g. {@code allreduce}. */
    public String label()
    {
        return label;
    }

    /** @return the nccl-tests binary this corresponds to, e.g. {@code all_reduce_perf}. */
    public String ncclTestsBinary()
    {
        return ncclTestsName + "_perf";
    }

    /** @return true if the collective has a root ({@code -r} applies). */
    public boolean rooted()
    {
        return rooted;
    }

    /** @return true if the collective reduces ({@code -o} applies). */
    public boolean reduction()
    {
        return reduction;
    }

    /** @return true if the count column is per rank (or per block) rather than the whole buffer. */
    public boolean perRank()
    {
        return perRank;
    }

    /** @return true if the API has an out-of-place form (broadcast has one buffer; barrier has none). */
    public boolean hasOutOfPlace()
    {
        return this != BROADCAST;
    }

    /** @return true if the API has an in-place form. */
    public boolean hasInPlace()
    {
        return this != BARRIER;
    }

    /**
     * The count column: elements per call argument, as nccl-tests' {@code paramcount}.
     *
     * @param bytes       swept size.
     * @param elementSize bytes per element.
     * @param ranks       world size.
     * @return the count.
     */
    public long count(final long bytes, final int elementSize, final int ranks)
    {
        if (this == BARRIER)
        {
            return 0;
        }
        final long elements = bytes / elementSize;
        return perRank ? elements / ranks : elements;
    }

    /**
     * The size column: {@code max(send, recv)} bytes for a count.
     *
     * @param count       the count column.
     * @param elementSize bytes per element.
     * @param ranks       world size.
     * @return bytes.
     */
    public long sizeBytes(final long count, final int elementSize, final int ranks)
    {
        return (perRank ? count * ranks : count) * elementSize;
    }

    /**
     * Bytes that define algbw (nccl-tests' {@code baseBw} numerator).
     *
     * @param count       the count column.
     * @param elementSize bytes per element.
     * @param ranks       world size.
     * @return bytes.
     */
    public long algBytes(final long count, final int elementSize, final int ranks)
    {
        return sizeBytes(count, elementSize, ranks);
    }

    /**
     * busbw = algbw × this factor (nccl-tests' {@code *GetBw}).
     *
     * @param ranks world size.
     * @return the factor.
     */
    public double busBwFactor(final int ranks)
    {
        switch (this)
        {
            case ALLREDUCE:
                return 2.0 * (ranks - 1) / ranks;
            case ALLGATHER:
            case REDUCESCATTER:
            case ALLTOALL:
            case GATHER:
            case SCATTER:
                return (double)(ranks - 1) / ranks;
            case BARRIER:
                return 0;
            default:
                return 1;
        }
    }

    /**
     * Parses a collective name: {@code allreduce}, {@code all_reduce}, {@code all_reduce_perf}, {@code all-reduce}
     * are all accepted (case-insensitive).
     *
     * @param text the name.
     * @return the collective.
     * @throws IllegalArgumentException listing the valid names.
     */
    public static Collective parse(final String text)
    {
        String name = text.trim().toLowerCase(Locale.ROOT);
        if (name.endsWith("_perf"))
        {
            name = name.substring(0, name.length() - "_perf".length());
        }
        name = name.replace("_", "").replace("-", "");
        for (final Collective collective : values())
        {
            if (collective.label.equals(name))
            {
                return collective;
            }
        }
        throw new IllegalArgumentException("unknown collective '" + text + "'; use one of " + names());
    }

    /** @return the command-line names, separated by '|'. */
    public static String names()
    {
        final StringBuilder names = new StringBuilder();
        for (final Collective collective : values())
        {
            names.append(names.length() == 0 ? "" : "|").append(collective.label);
        }
        return names.toString();
    }
}
