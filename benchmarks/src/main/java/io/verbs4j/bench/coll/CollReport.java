// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.algorithm.ChoiceTable;
import io.verbs4j.collectives.measure.TimedRun;
import io.verbs4j.collectives.measure.WarmupResult;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.util.List;
import java.util.Locale;

/**
 * What rank 0 of a {@code coll} run prints: each table's header and footer in nccl-tests' format (with verbs4j's
 * lines about links, warm-up and algorithm choice), and each row as a JSON line when {@code --json} is given. The rows
 * themselves are formatted by {@link NcclTestsFormat}.
 */
final class CollReport
{
    private final CollSettings s;
    private final int n;
    private final PrintWriter out;
    private final PrintWriter json;
    private final Communicator comm;
    private final long[] pids;

    /**
     * @param settings the run.
     * @param size     number of ranks.
     * @param out      where the tables go.
     * @param json     where JSON rows go, or null.
     * @param comm     the communicator (links, cost model, algorithm choice).
     * @param pids     every rank's process id.
     */
    CollReport(final CollSettings settings, final int size, final PrintWriter out, final PrintWriter json,
        final Communicator comm, final long[] pids)
    {
        this.s = settings;
        this.n = size;
        this.out = out;
        this.json = json;
        this.comm = comm;
        this.pids = pids;
    }

    /**
     * Prints a table's header: the run, the ranks and their links, the warm-up and the cost model, the columns.
     *
     * @param coll    the collective of the table.
     * @param context the communicator's settings.
     */
    void header(final Collective coll, final CommunicatorContext context)
    {
        final List<Long> sweep = s.sweep(coll);
        out.printf(Locale.ROOT, "# verbs4j coll %s (%s)%n", coll.label(), Collective.BARRIER == coll ?
            "nccl-tests format; barrier is not in nccl-tests: time only" : "nccl-tests " + coll.ncclTestsBinary() +
            " format");
        out.printf(Locale.ROOT, "# nRanks %d (%s) transport: %s algo: %s minBytes %d maxBytes %d step: %s " +
            "warmup iters: %d iters: %d mode: %s validation: %d time: %s%n", n,
            s.threads ? "threads" : s.env ? "processes, env bootstrap" : "processes",
            s.transport, CollNames.algorithmName(s.algorithm), s.sizes.isEmpty() ? s.minBytes : sweep.get(0),
            s.sizes.isEmpty() ? s.maxBytes : sweep.get(sweep.size() - 1),
            !s.sizes.isEmpty() ? "list" : (s.stepFactor > 1 ? s.stepFactor + "(factor)" : s.stepBytes + "(bytes)"),
            s.warmup, s.iters, s.async && Collective.SENDRECV != coll ? "async" : "blocking",
            s.check ? 1 : 0, averageName(s.average));
        out.printf(Locale.ROOT, "# idle: %s; device progress thread: %s | JDK %s | %d CPUs%s%n",
            s.busyPoll ? "busy-poll (spin)" : String.format(Locale.ROOT, "spin %d, yield %d, park %d-%d us",
                context.idleSpins(), context.idleYields(), context.idleMinParkNs() / 1000,
                context.idleMaxParkNs() / 1000),
            context.deviceProgressThread() ? "on" : "off", System.getProperty("java.version"),
            Runtime.getRuntime().availableProcessors(), null == System.getenv("VERBS4J_BOUND_CPU") ?
                " (ranks unbound)" : " (rank 0 bound to CPU " + System.getenv("VERBS4J_BOUND_CPU") +
                ", each rank to a core of its own)");
        out.println("#");
        out.println("# Using ranks");
        final String host = hostName();
        for (int r = 0; r < n; r++)
        {
            // with --env the ranks run on hosts this rank does not know the names of
            out.printf(Locale.ROOT, "#  Rank %2d Pid %7d on %10s %s%n", r, pids[r], s.env && r > 0 ? "-" : host,
                s.threads ? "thread verbs4j-rank-" + r : "process");
        }
        final StringBuilder links = new StringBuilder();
        for (int peer = 1; peer < n; peer++)
        {
            links.append(' ').append(peer).append(':').append(comm.transport(peer));
        }
        out.println("# Rank 0 links (peer:provider):" + (links.length() == 0 ? " none" : links));
        out.println(comm.flagLinkMaxBytes() < 0 ? "# Flag links: none" :
            "# Flag links (direct peer memory, same host) for operations up to " + comm.flagLinkMaxBytes() + " B");
        if (s.async && Collective.SENDRECV == coll)
        {
            out.println("# sendrecv has no non-blocking form: blocking calls");
        }
        if (s.runCycles > 1 || s.timestamps)
        {
            out.println("#" + (s.runCycles > 1 ? " every size runs " + s.runCycles + " times (-N)" : "") +
                (s.timestamps ? " rows start with the time they were measured (-S 1)" : ""));
        }
        out.println("# Warm-up: " + s.warmupPolicy().describe() + ", just before each size and placement" +
            (s.warmupExact ? " (--warmup-exact)" : "; rank 0 decides for all ranks"));
        out.println("# Cost model: " + comm.costModel().describe());
        if (Collective.ALLREDUCE == coll)
        {
            out.println("# AllReduce choice (" + CollNames.algorithmName(s.algorithm) + ", " + n + " ranks): " +
                ChoiceTable.of(bytes -> comm.allReduceAlgorithm(bytes, Algorithm.AUTO), CollSettings.MAX_BYTES)
                    .format(CollNames::algorithmName));
        }
        out.println("#");
        for (final String line : NcclTestsFormat.columnHeader())
        {
            out.println(line);
        }
        out.flush();
    }

    /**
     * Prints a table's footer: nccl-tests' summary lines, the warm-up summary, AllReduce's algorithm by size.
     *
     * @param coll       the collective of the table.
     * @param wrongTotal wrong elements in the table.
     * @param busBwAvg   average bus bandwidth of its rows (0 for none).
     * @param warmups    the table's warm-up outcomes.
     */
    void footer(final Collective coll, final long wrongTotal, final double busBwAvg, final WarmupSummary warmups)
    {
        for (final String line : NcclTestsFormat.footer(wrongTotal, busBwAvg))
        {
            if ("#".equals(line))
            {
                out.println(warmups.line(s.warmupExact));
            }
            if ("#".equals(line) && Collective.ALLREDUCE == coll)
            {
                out.println("# AllReduce algorithm by size (" + CollNames.algorithmName(s.algorithm) + "): " +
                    algorithms(coll));
            }
            out.println(line);
        }
        out.flush();
    }

    private String algorithms(final Collective coll)
    {
        final StringBuilder text = new StringBuilder();
        Algorithm previous = null;
        long first = -1;
        long last = -1;
        for (final long size : s.sweep(coll))
        {
            final long bytes = coll.sizeBytes(coll.count(size, 4, n), 4, n);
            final Algorithm algorithm = comm.allReduceAlgorithm(bytes, Algorithm.AUTO);
            if (algorithm != previous && null != previous)
            {
                appendRange(text, first, last, previous);
                first = -1;
            }
            if (-1 == first)
            {
                first = size;
            }
            last = size;
            previous = algorithm;
        }
        if (null != previous)
        {
            appendRange(text, first, last, previous);
        }
        return text.toString();
    }

    private static void appendRange(final StringBuilder text, final long first, final long last,
        final Algorithm algorithm)
    {
        text.append(text.length() == 0 ? "" : ", ").append(first);
        if (last != first)
        {
            text.append("..").append(last);
        }
        text.append(" B ").append(CollNames.algorithmName(algorithm));
    }

    /** @return true if rows go to a JSON file too ({@code --json}). */
    boolean hasJson()
    {
        return null != json;
    }

    /**
     * Writes a row as a JSON line (with {@code --json}).
     *
     * @param coll    the collective.
     * @param inPlace in-place placement.
     * @param count   elements.
     * @param type    element type.
     * @param op      operator, or null.
     * @param root    root rank.
     * @param timeUs  the row's time (by the {@code -a} aggregation).
     * @param mean    mean over the ranks.
     * @param min     fastest rank.
     * @param max     slowest rank.
     * @param rank0   rank 0's time.
     * @param algBw   algorithm bandwidth.
     * @param busBw   bus bandwidth.
     * @param wrong   wrong elements, or negative when not checked.
     * @param warm    the row's warm-up.
     * @param timed   the row's timing attempts.
     */
    void json(final Collective coll, final boolean inPlace, final long count, final DataType type, final ReduceOp op,
        final int root, final double timeUs, final double mean, final double min, final double max, final double rank0,
        final double algBw, final double busBw, final long wrong, final WarmupResult warm, final TimedRun timed)
    {
        final int es = type.sizeBytes();
        json.printf(Locale.ROOT, "{\"collective\":\"%s\",\"ranks\":%d,\"launch\":\"%s\",\"transport\":\"%s\"," +
                "\"algo\":\"%s\",\"mode\":\"%s\",\"busy_poll\":%b,\"cpus\":%d," +
                "\"placement\":\"%s\",\"size_bytes\":%d," +
                "\"count\":%d,\"type\":\"%s\",\"redop\":\"%s\",\"root\":%d,\"warmup\":%d,\"warmup_exact\":%b," +
                "\"warmup_calls\":%d,\"warmup_s\":%s,\"warmup_outcome\":\"%s\",\"iters\":%d,\"timed_attempts\":%d," +
                "\"time_agg\":\"%s\",\"time_us\":%s,\"time_us_mean\":%s,\"time_us_min\":%s,\"time_us_max\":%s," +
                "\"time_us_rank0\":%s,\"algbw_GBps\":%s,\"busbw_GBps\":%s,\"wrong\":%s}%n",
            coll.label(), n, s.threads ? "threads" : s.env ? "processes, env bootstrap" : "processes", s.transport,
            CollNames.algorithmName(s.algorithm), s.async && Collective.SENDRECV != coll ? "async" : "blocking",
            s.busyPoll, Runtime.getRuntime().availableProcessors(), inPlace ? "in-place" : "out-of-place",
            coll.sizeBytes(count, es, n), count,
            type.name().toLowerCase(Locale.ROOT), null == op ? "none" : CollNames.opName(op), root, s.warmup,
            s.warmupExact, warm.calls(), num(warm.elapsedNs() / 1e9), warm.outcome(), s.iters,
            timed.attempts(), averageName(s.average), num(timeUs), num(mean), num(min), num(max), num(rank0),
            num(algBw), num(busBw), wrong < 0 ? "null" : Long.toString(wrong));
        json.flush();
    }

    private static String num(final double value)
    {
        return Double.isFinite(value) ? Double.toString(value) : "null";
    }

    /**
     * @param average {@code -a} value.
     * @return its description for the header.
     */
    static String averageName(final int average)
    {
        switch (average)
        {
            case 0:
                return "rank0";
            case 2:
                return "min";
            case 3:
                return "max";
            default:
                return "mean";
        }
    }

    private static String hostName()
    {
        final String env = System.getenv("HOSTNAME");
        if (null != env && !env.isEmpty())
        {
            return env;
        }
        try
        {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final IOException ex)
        {
            return "localhost";
        }
    }
}
