// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.measure.WarmupPolicy;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@code verbs4j coll} run, validated: what every rank needs to run its part of the table. Built by
 * {@link io.verbs4j.bench.cli.CollCommand}; {@link #toArgs()} turns it back into the command line a rank process is
 * started with, so threads and processes run exactly the same settings.
 */
public final class CollSettings
{
    /** Largest swept size: 1 GiB (the size column, i.e. the larger of the send and receive buffers). */
    public static final long MAX_BYTES = 1L << 30;

    /** The collectives, one table each, in order. */
    public List<Collective> collectives = List.of(Collective.ALLREDUCE);
    /** {@code -b}. */
    public long minBytes = 8;
    /** {@code -e}. */
    public long maxBytes = 4L << 20;
    /** {@code -f}: multiply by this between sizes (0: use {@link #stepBytes}). */
    public long stepFactor = 2;
    /** {@code -i}: add this between sizes when {@link #stepFactor} is 0. */
    public long stepBytes;
    /** Explicit sizes (overrides the sweep when not empty). */
    public List<Long> sizes = new ArrayList<>();
    /** {@code -g}: number of ranks. */
    public int ranks = 2;
    /** {@code --transport}: shm, tcp or auto. */
    public String transport = "shm";
    /** {@code --algo}. */
    public Algorithm algorithm = Algorithm.AUTO;
    /** {@code -d}. */
    public List<DataType> types = List.of(DataType.FLOAT32);
    /** {@code -o}; empty: every operator the type supports. */
    public List<ReduceOp> ops = List.of(ReduceOp.SUM);
    /** {@code -r}; -1: every rank in turn. */
    public int root;
    /** {@code -w}: least warm-up calls per size and placement (the exact count with {@link #warmupExact}). */
    public long warmup = WarmupPolicy.DEFAULT_MIN_CALLS;
    /** {@code --warmup-exact}: exactly {@link #warmup} calls, no time minimum, no stability rule. */
    public boolean warmupExact;
    /** {@code -n} (times {@code -m}). */
    public int iters = 100;
    /** {@code -N}: how many times every size runs, rows printed each time. */
    public int runCycles = 1;
    /** {@code -S 1}: rows start with the time they were measured. */
    public boolean timestamps;
    /** {@code --threads}: ranks as threads of this JVM instead of processes. */
    public boolean threads;
    /** {@code --async}: non-blocking calls awaited in windows, instead of blocking calls. */
    public boolean async;
    /** {@code -c}: check every row. */
    public boolean check = true;
    /** {@code -a}: how the per-rank times become the time column, as nccl-tests: 0 rank 0, 1 mean, 2 min, 3 max. */
    public int average = 1;
    /** {@code --json}: JSON-lines file for the rows (null: none). */
    public String json;
    /** {@code --busy-poll}: waiting threads spin instead of spin-yield-park. */
    public boolean busyPoll;
    /** Processes mode: one core per rank process (taskset), when there are enough cores. */
    public boolean bindToCores = true;
    /** {@code --timeout}: limit per collective call and for the bootstrap, in seconds. */
    public int timeoutSeconds = 60;
    /**
     * {@code --env}: this process is one rank of a job started by another launcher (torchrun-style variables),
     * not the parent of the ranks. Not part of {@link #toArgs()}: rank processes never start more ranks.
     */
    public boolean env;
    /** Address this rank's tcp links listen on (null: the communicator's default, loopback). */
    public String hostAddress;

    /**
     * The sizes this run sweeps, as nccl-tests: from {@code -b} to {@code -e}, times {@code -f} or plus {@code -i}.
     *
     * @param collective the collective ({@code barrier} has one row, size 0).
     * @return the sizes in bytes.
     */
    public List<Long> sweep(final Collective collective)
    {
        if (!sizes.isEmpty())
        {
            return sizes;
        }
        final List<Long> sweep = new ArrayList<>();
        if (Collective.BARRIER == collective)
        {
            sweep.add(0L);
            return sweep;
        }
        for (long size = minBytes; size <= maxBytes; size = stepFactor > 1 ? size * stepFactor : size + stepBytes)
        {
            sweep.add(size);
            if (stepFactor <= 1 && stepBytes <= 0)
            {
                break;
            }
        }
        return sweep;
    }

    /**
     * @return the warm-up every size and placement gets: until stable with at least {@link #warmup} calls, or
     * exactly {@link #warmup} calls.
     */
    public WarmupPolicy warmupPolicy()
    {
        return warmupExact ? WarmupPolicy.exactly(warmup) : WarmupPolicy.untilStable().withMinCalls(warmup);
    }

    /**
     * The roots one row set covers.
     *
     * @param collective the collective.
     * @return {@code [root]}, every rank for {@code -r all}, or {@code [-1]} for collectives without a root.
     */
    public int[] roots(final Collective collective)
    {
        if (!collective.rooted())
        {
            return new int[] {-1};
        }
        if (root >= 0)
        {
            return new int[] {root};
        }
        final int[] all = new int[ranks];
        for (int r = 0; r < ranks; r++)
        {
            all[r] = r;
        }
        return all;
    }

    /**
     * The operators a type runs with.
     *
     * @param collective the collective.
     * @param type       the type.
     * @return {@code [null]} for collectives that do not reduce; the chosen operators the type supports otherwise.
     */
    public List<ReduceOp> opsFor(final Collective collective, final DataType type)
    {
        final List<ReduceOp> result = new ArrayList<>();
        if (!collective.reduction())
        {
            result.add(null);
            return result;
        }
        for (final ReduceOp op : ops.isEmpty() ? List.of(ReduceOp.values()) : ops)
        {
            if (op.supports(type))
            {
                result.add(op);
            }
        }
        return result;
    }

    /**
     * The command line of a rank process ({@code coll <collective> ... --rank-process}).
     *
     * @return the arguments after the tool name.
     */
    public List<String> toArgs()
    {
        final List<String> args = new ArrayList<>();
        final StringBuilder names = new StringBuilder();
        for (final Collective collective : collectives)
        {
            names.append(names.length() == 0 ? "" : ",").append(collective.label());
        }
        args.add(names.toString());
        add(args, "-b", minBytes);
        add(args, "-e", maxBytes);
        if (stepFactor > 1)
        {
            add(args, "-f", stepFactor);
        }
        if (stepBytes > 0)
        {
            add(args, "-i", stepBytes);
        }
        if (!sizes.isEmpty())
        {
            final StringBuilder list = new StringBuilder();
            for (final long size : sizes)
            {
                list.append(list.length() == 0 ? "" : ",").append(size);
            }
            args.add("--sizes");
            args.add(list.toString());
        }
        add(args, "-g", ranks);
        args.add("--transport");
        args.add(transport);
        args.add("--algo");
        args.add(CollNames.algorithmName(algorithm));
        final StringBuilder typeList = new StringBuilder();
        for (final DataType type : types)
        {
            typeList.append(typeList.length() == 0 ? "" : ",").append(type.name().toLowerCase(java.util.Locale.ROOT));
        }
        args.add("-d");
        args.add(typeList.toString());
        args.add("-o");
        if (ops.isEmpty())
        {
            args.add("all");
        }
        else
        {
            final StringBuilder opList = new StringBuilder();
            for (final ReduceOp op : ops)
            {
                opList.append(opList.length() == 0 ? "" : ",").append(CollNames.opName(op));
            }
            args.add(opList.toString());
        }
        args.add("-r");
        args.add(root < 0 ? "all" : Integer.toString(root));
        add(args, "-w", warmup);
        if (warmupExact)
        {
            args.add("--warmup-exact");
        }
        add(args, "-n", iters);
        if (runCycles > 1)
        {
            add(args, "-N", runCycles);
        }
        if (timestamps)
        {
            add(args, "-S", 1);
        }
        args.add(async ? "--async" : "--blocking");
        add(args, "-c", check ? 1 : 0);
        add(args, "-a", average);
        if (null != json)
        {
            args.add("--json");
            args.add(json);
        }
        if (busyPoll)
        {
            args.add("--busy-poll");
        }
        add(args, "--timeout", timeoutSeconds);
        return args;
    }

    private static void add(final List<String> args, final String name, final long value)
    {
        args.add(name);
        args.add(Long.toString(value));
    }
}
