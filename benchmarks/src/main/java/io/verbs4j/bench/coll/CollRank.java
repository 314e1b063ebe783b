// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CollectiveHandle;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.algorithm.ChoiceTable;
import io.verbs4j.collectives.measure.CallBatch;
import io.verbs4j.collectives.measure.TimedRun;
import io.verbs4j.collectives.measure.Warmup;
import io.verbs4j.collectives.measure.WarmupResult;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.function.LongUnaryOperator;

/**
 * One rank of a {@code verbs4j coll} run: the same code whether ranks are threads or processes. Every rank creates
 * the communicator, allocates a send and a receive region of the largest size (registered: zero copy, like device
 * buffers in nccl-tests) and, for each type, operator and root:
 * <ol>
 *   <li>per size and placement, just before its row: warm-up ({@link CollSettings#warmupPolicy()}: until the
 *       per-call time is stable, at least {@code -w} calls; or exactly {@code -w} calls with {@code --warmup-exact}),
 *       rank 0 deciding for all ranks ({@link Warmup}), so no row is measured before its own warm-up ended;</li>
 *   <li>then {@code -n} timed calls (blocking, or non-blocking issued in windows of {@link #ASYNC_WINDOW} and
 *       awaited) after the warm-up's own exchange ({@link Warmup#time}), timed again (up to
 *       {@link Warmup#MAX_TIMED_ATTEMPTS} times) while a rank's JIT compiled during them (unless
 *       {@code --warmup-exact}), this rank's mean time per call; the ranks all-gather their means and
 *       the time column is their mean ({@code -a 1}, nccl-tests' default), min (2), max (3) or rank 0's (0);</li>
 *   <li>with {@code -c 1}: outputs poisoned, inputs filled with {@link DataPattern}, one more call, every rank
 *       counts its wrong elements, the counts are summed.</li>
 * </ol>
 * Rank 0 prints the table and writes the JSON rows.
 */
public final class CollRank
{
    /** Non-blocking calls in flight at most ({@code --async}). */
    public static final int ASYNC_WINDOW = 64;
    private static final String COMM_NAME = "verbs4j-coll";
    /** {@code -S 1}: nccl-tests' row timestamp. */
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

    private final CollSettings s;
    private final int rank;
    private final int n;
    private final PrintWriter out;
    private final DataPattern pattern = new DataPattern();
    private final CollectiveHandle[] window;
    private final double[] myTime = new double[1];
    private final double[] allTimes;
    private final long[] myWrong = new long[1];
    private final long[] allWrong;
    private Collective coll;
    private Communicator comm;
    private MemoryRegion sendRegion;
    private MemoryRegion recvRegion;
    private PrintWriter json;
    private long wrongTotal;
    private int issued;
    private final long[] pids;
    private double busBwSum;
    private int busBwCount;
    private final Duration awaitTimeout;
    private Warmup warmup;
    private final WarmupSummary warmups = new WarmupSummary();

    private CollRank(final CollSettings settings, final int rank, final int size, final PrintWriter out)
    {
        this.s = settings;
        this.rank = rank;
        this.n = size;
        this.out = out;
        this.window = new CollectiveHandle[Math.max(1, Math.min(ASYNC_WINDOW, settings.iters))];
        this.allTimes = new double[size];
        this.allWrong = new long[size];
        this.pids = new long[size];
        this.awaitTimeout = Duration.ofSeconds(settings.timeoutSeconds);
    }

    /**
     * Runs one rank to the end of the table.
     *
     * @param settings the run.
     * @param rank     this rank.
     * @param size     number of ranks (must equal {@code settings.ranks}).
     * @param store    rendezvous store shared by the ranks.
     * @param out      where rank 0 prints the table (ignored on other ranks).
     * @return wrong elements over the whole table (the same on every rank).
     * @throws IOException if the JSON file cannot be written.
     */
    public static long run(final CollSettings settings, final int rank, final int size, final RendezvousStore store,
        final PrintWriter out) throws IOException
    {
        return new CollRank(settings, rank, size, 0 == rank ? out : null).run(store);
    }

    private long run(final RendezvousStore store) throws IOException
    {
        final CommunicatorContext context = new CommunicatorContext().rank(rank).size(n).store(store).name(COMM_NAME)
            .transport(CollNames.transport(s.transport)).algorithm(s.algorithm)
            .opTimeout(Duration.ofSeconds(s.timeoutSeconds)).bootstrapTimeout(Duration.ofSeconds(s.timeoutSeconds))
            .maxPending(window.length);
        if (null != s.hostAddress)
        {
            context.hostAddress(s.hostAddress);
        }
        if (s.busyPoll)
        {
            context.idle(Long.MAX_VALUE, 0, 1, 1);
        }
        final long regionBytes = Math.max(8, maxBytes());
        try (Communicator c = Communicator.create(context))
        {
            comm = c;
            warmup = Warmup.over(comm, s.warmupPolicy());
            sendRegion = comm.allocate(regionBytes);
            recvRegion = comm.allocate(regionBytes);
            final long[] pid = {ProcessHandle.current().pid()};
            comm.allGather(CommBuffer.of(pid), CommBuffer.of(pids), 1, DataType.INT64);
            if (null != out)
            {
                if (null != s.json)
                {
                    json = new PrintWriter(Files.newBufferedWriter(Path.of(s.json), StandardCharsets.UTF_8));
                }
            }
            try
            {
                long wrong = 0;
                for (final Collective collective : s.collectives)
                {
                    coll = collective;
                    busBwSum = 0;
                    busBwCount = 0;
                    wrongTotal = 0;
                    warmups.reset();
                    if (null != out)
                    {
                        header(context);
                    }
                    for (final DataType type : Collective.BARRIER == coll ? s.types.subList(0, 1) : s.types)
                    {
                        for (final ReduceOp op : s.opsFor(coll, type))
                        {
                            for (final int root : s.roots(coll))
                            {
                                table(type, op, root);
                            }
                        }
                    }
                    if (null != out)
                    {
                        footer();
                    }
                    wrong += wrongTotal;
                }
                wrongTotal = wrong;
            }
            finally
            {
                if (null != json)
                {
                    json.close();
                }
            }
        }
        return wrongTotal;
    }

    private long maxBytes()
    {
        long max = 0;
        for (final Collective collective : s.collectives)
        {
            for (final DataType type : s.types)
            {
                for (final long size : s.sweep(collective))
                {
                    final int es = type.sizeBytes();
                    final long count = collective.count(size, es, n);
                    max = Math.max(max, collective.sizeBytes(count, es, n));
                }
            }
        }
        return (max + 7) & ~7L;
    }

    // ---------------------------------------------------------------- one table: a type, an operator, a root

    private void table(final DataType type, final ReduceOp op, final int root)
    {
        final int es = type.sizeBytes();
        for (int cycle = 0; cycle < s.runCycles; cycle++)
        {
            for (final long size : s.sweep(coll))
            {
                row(type, op, root, es, size);
            }
        }
    }

    private void row(final DataType type, final ReduceOp op, final int root, final int es, final long size)
    {
        final long count = coll.count(size, es, n);
        final StringBuilder row = new StringBuilder(NcclTestsFormat.preamble(
            coll.sizeBytes(count, es, n), count, CollNames.ncclName(type),
            null == op ? "none" : CollNames.opName(op), root));
        for (final boolean inPlace : new boolean[] {false, true})
        {
            if (!supported(inPlace))
            {
                row.append(NcclTestsFormat.nullBody());
                continue;
            }
            row.append(measure(inPlace, count, type, op, root));
        }
        if (null != out)
        {
            out.println(s.timestamps ? TIMESTAMP.format(LocalDateTime.now()) + " " + row : row);
            out.flush();
        }
    }

    private void calls(final Layout layout, final long count, final DataType type, final ReduceOp op, final int root,
        final long calls)
    {
        for (long i = 0; i < calls; i++)
        {
            call(layout, count, type, op, root);
        }
        drain();
    }

    private boolean supported(final boolean inPlace)
    {
        return inPlace ? coll.hasInPlace() : coll.hasOutOfPlace();
    }

    private String measure(final boolean inPlace, final long count, final DataType type, final ReduceOp op,
        final int root)
    {
        final int es = type.sizeBytes();
        final Layout layout = layout(inPlace, count, es, root);
        // Warm-up and timing run the same method: a timed loop of its own would start in the interpreter (its
        // first row measured 3-10 us per 8-byte call where the warmed-up loop took 0.4).
        final CallBatch batch = calls -> calls(layout, count, type, op, root, calls);
        final WarmupResult warm = warmup.run(batch);
        warmups.note(warm, coll.sizeBytes(count, es, n), inPlace);
        final TimedRun timed = warmup.time(batch, s.iters);
        warmups.noteTimed(timed);
        myTime[0] = timed.elapsedNs() / 1e3 / s.iters;
        comm.allGather(CommBuffer.of(myTime), CommBuffer.of(allTimes), 1, DataType.FLOAT64);
        double sum = 0;
        double min = Double.MAX_VALUE;
        double max = 0;
        for (final double t : allTimes)
        {
            sum += t;
            min = Math.min(min, t);
            max = Math.max(max, t);
        }
        final double mean = sum / n;
        final double timeUs = 0 == s.average ? allTimes[0] : (2 == s.average ? min : (3 == s.average ? max : mean));

        long wrong = -1;
        if (s.check)
        {
            fill(layout, count, type, op, root);
            comm.barrier();
            call(layout, count, type, op, root);
            drain();
            myWrong[0] = verify(layout, count, type, op, root);
            comm.allGather(CommBuffer.of(myWrong), CommBuffer.of(allWrong), 1, DataType.INT64);
            wrong = 0;
            for (final long w : allWrong)
            {
                wrong += w;
            }
            wrongTotal += wrong;
        }

        final long bytes = coll.algBytes(count, es, n);
        final double algBw = timeUs > 0 ? bytes / 1e3 / timeUs : 0;
        final double busBw = algBw * coll.busBwFactor(n);
        busBwSum += busBw;
        busBwCount++;
        if (null != json)
        {
            json(inPlace, count, type, op, root, timeUs, mean, min, max, algBw, busBw, wrong, warm, timed);
        }
        return NcclTestsFormat.body(timeUs, algBw, busBw, wrong);
    }

    // ---------------------------------------------------------------- buffers

    /** Where a call's send and receive buffers are: in the send or the receive region, at an offset. */
    private static final class Layout
    {
        MemoryRegion sendRegion;
        long sendOffset;
        long sendBytes;
        MemoryRegion recvRegion;
        long recvOffset;
        long recvBytes;
        CommBuffer send;
        CommBuffer recv;
    }

    private Layout layout(final boolean inPlace, final long count, final int es, final int root)
    {
        final long b = count * es;
        final long all = b * n;
        final Layout l = new Layout();
        l.recvRegion = recvRegion;
        l.sendRegion = inPlace ? recvRegion : sendRegion;
        switch (coll)
        {
            case ALLGATHER:
            case GATHER:
                l.sendBytes = b;
                l.sendOffset = inPlace ? rank * b : 0;
                l.recvBytes = all;
                break;
            case REDUCESCATTER:
            case SCATTER:
                l.sendBytes = all;
                l.recvBytes = b;
                l.recvOffset = inPlace ? rank * b : 0;
                break;
            case ALLTOALL:
                l.sendBytes = all;
                l.recvBytes = all;
                break;
            default:
                l.sendBytes = b;
                l.recvBytes = b;
                break;
        }
        l.send = CommBuffer.of(l.sendRegion, l.sendOffset, Math.max(l.sendBytes, 8));
        l.recv = CommBuffer.of(l.recvRegion, l.recvOffset, Math.max(l.recvBytes, 8));
        return l;
    }

    // ---------------------------------------------------------------- calls

    private void call(final Layout l, final long count, final DataType type, final ReduceOp op, final int root)
    {
        if (s.async && Collective.SENDRECV != coll)
        {
            callAsync(l, count, type, op, root);
            return;
        }
        switch (coll)
        {
            case ALLREDUCE:
                comm.allReduce(l.send, l.recv, count, type, op);
                break;
            case BROADCAST:
                comm.broadcast(l.recv, count, type, root);
                break;
            case REDUCE:
                comm.reduce(l.send, l.recv, count, type, op, root);
                break;
            case ALLGATHER:
                comm.allGather(l.send, l.recv, count, type);
                break;
            case REDUCESCATTER:
                comm.reduceScatter(l.send, l.recv, count, type, op);
                break;
            case ALLTOALL:
                comm.allToAll(l.send, l.recv, count, type);
                break;
            case GATHER:
                comm.gather(l.send, l.recv, count, type, root);
                break;
            case SCATTER:
                comm.scatter(l.send, l.recv, count, type, root);
                break;
            case BARRIER:
                comm.barrier();
                break;
            default:
                comm.sendRecv(l.send, count, (rank + 1) % n, l.recv, count, (rank - 1 + n) % n, type);
                break;
        }
    }

    private void callAsync(final Layout l, final long count, final DataType type, final ReduceOp op, final int root)
    {
        final int slot = issued++ % window.length;
        if (null != window[slot])
        {
            awaitSlot(slot);
        }
        final CollectiveHandle h;
        switch (coll)
        {
            case ALLREDUCE:
                h = comm.async().allReduce(l.send, l.recv, count, type, op);
                break;
            case BROADCAST:
                h = comm.async().broadcast(l.recv, count, type, root);
                break;
            case REDUCE:
                h = comm.async().reduce(l.send, l.recv, count, type, op, root);
                break;
            case ALLGATHER:
                h = comm.async().allGather(l.send, l.recv, count, type);
                break;
            case REDUCESCATTER:
                h = comm.async().reduceScatter(l.send, l.recv, count, type, op);
                break;
            case ALLTOALL:
                h = comm.async().allToAll(l.send, l.recv, count, type);
                break;
            case GATHER:
                h = comm.async().gather(l.send, l.recv, count, type, root);
                break;
            case SCATTER:
                h = comm.async().scatter(l.send, l.recv, count, type, root);
                break;
            default:
                h = comm.async().barrier();
                break;
        }
        window[slot] = h;
    }

    /** Awaits every call still in flight, oldest first. */
    private void drain()
    {
        for (int i = 0; i < window.length; i++)
        {
            final int slot = (issued + i) % window.length;
            if (null != window[slot])
            {
                awaitSlot(slot);
            }
        }
        issued = 0;
    }

    private void awaitSlot(final int slot)
    {
        final CollectiveHandle handle = window[slot];
        window[slot] = null;
        if (!handle.await(awaitTimeout))
        {
            throw new CollectiveException(CollectiveException.Reason.TIMEOUT, rank, -1,
                "rank " + rank + ": a non-blocking " + coll.label() + " did not finish within " +
                awaitTimeout.toSeconds() + " s", null);
        }
    }

    // ---------------------------------------------------------------- correctness check

    private void fill(final Layout l, final long count, final DataType type, final ReduceOp op, final int root)
    {
        final int es = type.sizeBytes();
        pattern.poison(l.recvRegion, l.recvOffset, l.recvBytes);
        final long sendCount = l.sendBytes / es;
        final LongUnaryOperator input;
        switch (coll)
        {
            case ALLREDUCE:
            case REDUCE:
            case REDUCESCATTER:
                input = j -> DataPattern.reduceInput(op, type, n, rank, j);
                break;
            case BROADCAST:
                if (rank != root)
                {
                    return;
                }
                input = j -> DataPattern.block(root, j);
                break;
            case ALLTOALL:
                input = j -> DataPattern.allToAll(rank, (int)(j / count), j % count);
                break;
            case SCATTER:
                if (rank != root)
                {
                    return;
                }
                input = j -> DataPattern.scatter(root, (int)(j / count), j % count);
                break;
            case BARRIER:
                return;
            default:
                input = j -> DataPattern.block(rank, j);
                break;
        }
        pattern.write(l.sendRegion, l.sendOffset, sendCount, type, input);
    }

    private long verify(final Layout l, final long count, final DataType type, final ReduceOp op, final int root)
    {
        final LongUnaryOperator expected;
        switch (coll)
        {
            case ALLREDUCE:
                expected = j -> DataPattern.reduceExpected(op, type, n, j);
                break;
            case REDUCE:
                if (rank != root)
                {
                    return 0;
                }
                expected = j -> DataPattern.reduceExpected(op, type, n, j);
                break;
            case REDUCESCATTER:
                expected = j -> DataPattern.reduceExpected(op, type, n, rank * count + j);
                break;
            case BROADCAST:
                expected = j -> DataPattern.block(root, j);
                break;
            case ALLGATHER:
                expected = j -> DataPattern.block((int)(j / count), j % count);
                break;
            case GATHER:
                if (rank != root)
                {
                    return 0;
                }
                expected = j -> DataPattern.block((int)(j / count), j % count);
                break;
            case ALLTOALL:
                expected = j -> DataPattern.allToAll((int)(j / count), rank, j % count);
                break;
            case SCATTER:
                expected = j -> DataPattern.scatter(root, rank, j);
                break;
            case BARRIER:
                return 0;
            default:
                expected = j -> DataPattern.block((rank - 1 + n) % n, j);
                break;
        }
        return pattern.countWrong(l.recvRegion, l.recvOffset, l.recvBytes / type.sizeBytes(), type, expected);
    }

    // ---------------------------------------------------------------- output (rank 0)

    private void header(final CommunicatorContext context)
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

    private void footer()
    {
        for (final String line : NcclTestsFormat.footer(wrongTotal, busBwCount > 0 ? busBwSum / busBwCount : 0))
        {
            if ("#".equals(line))
            {
                out.println(warmups.line(s.warmupExact));
            }
            if ("#".equals(line) && Collective.ALLREDUCE == coll)
            {
                out.println("# AllReduce algorithm by size (" + CollNames.algorithmName(s.algorithm) + "): " +
                    algorithms());
            }
            out.println(line);
        }
        out.flush();
    }

    private String algorithms()
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

    private void json(final boolean inPlace, final long count, final DataType type, final ReduceOp op, final int root,
        final double timeUs, final double mean, final double min, final double max, final double algBw,
        final double busBw, final long wrong, final WarmupResult warm, final TimedRun timed)
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
            timed.attempts(), averageName(s.average), num(timeUs), num(mean), num(min), num(max), num(allTimes[0]),
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
    public static String averageName(final int average)
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
