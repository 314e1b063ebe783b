// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CollectiveHandle;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.measure.CallBatch;
import io.verbs4j.collectives.measure.TimedRun;
import io.verbs4j.collectives.measure.Warmup;
import io.verbs4j.collectives.measure.WarmupResult;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
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
    private CollReport report;
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
                report = new CollReport(s, n, out, json, comm, pids);
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
                    if (null != report)
                    {
                        report.header(coll, context);
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
                    if (null != report)
                    {
                        report.footer(coll, wrongTotal, busBwCount > 0 ? busBwSum / busBwCount : 0, warmups);
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
        if (null != report && report.hasJson())
        {
            report.json(coll, inPlace, count, type, op, root, timeUs, mean, min, max, allTimes[0], algBw, busBw, wrong,
                warm, timed);
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
}
