package io.verbs4j.collectives;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.verbs4j.Access;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.Verbs;
import io.verbs4j.collectives.algorithm.AdaptiveIdleStrategy;
import io.verbs4j.collectives.algorithm.CostModel;
import io.verbs4j.collectives.bootstrap.Bootstrap;
import io.verbs4j.collectives.engine.CollectiveEngine;
import io.verbs4j.collectives.engine.OpKind;
import io.verbs4j.collectives.engine.OpRequest;
import io.verbs4j.collectives.link.FlagLinkOffer;
import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.SoloLinks;
import io.verbs4j.collectives.rendezvous.AddressExchange;
import io.verbs4j.collectives.rendezvous.PrefixStore;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.spi.TransportProvider;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;

/**
 * A group of {@link #size()} ranks that run collectives together, over a full mesh of RC queue pairs (shm to ranks
 * on this host, tcp to the others, chosen per peer).
 * <pre>{@code
 * try (Communicator comm = Communicator.create(new CommunicatorContext().rank(rank).size(size).store(store)))
 * {
 *     MemoryRegion grads = comm.allocate(n * 4L);                 // registered: no copy
 *     CommBuffer g = CommBuffer.of(grads);
 *     comm.allReduce(g, g, n, DataType.FLOAT32, ReduceOp.SUM);    // in place
 *     float[] w = new float[n];
 *     comm.broadcast(CommBuffer.of(w), n, DataType.FLOAT32, 0);   // heap arrays work too (staged)
 * }
 * }</pre>
 * <b>Rules</b> (as for MPI/NCCL communicators):
 * <ul>
 *   <li>Every rank calls the same operations in the same order with matching counts, types, ops, roots and
 *       algorithm choices. A mismatch fails with {@link CollectiveException.Reason#MISMATCH} where it is detectable,
 *       or with a timeout.</li>
 *   <li>One thread at a time issues calls. Blocking calls run on the calling thread (no hand-off); {@code ...Async}
 *       calls run in issue order on the communicator's progress thread; a blocking call issued while non-blocking
 *       ones are pending waits for them first.</li>
 *   <li>Results are bit-identical on every rank, and the same from run to run for the same inputs, world size,
 *       chunk size and algorithm. With {@link Algorithm#AUTO} the algorithm can differ between runs because the
 *       cost model is measured; pin it for run-to-run reproducibility.</li>
 *   <li>A failure (a peer died or hung, abort) makes this and every later call throw {@link CollectiveException};
 *       peers' calls fail too, within the peer timeout or the operation timeout. Create a new communicator (new
 *       name) from the survivors.</li>
 *   <li>{@link #close()} is collective (it ends with a barrier, so no rank tears down while others still need it).</li>
 * </ul>
 */
public final class Communicator implements AutoCloseable
{
    private final CommunicatorContext context;
    private final int rank;
    private final int size;
    private final Links links;
    private final String[] transports;
    private final ProtectionDomain primaryPd;
    private final CollectiveEngine engine;
    private final IdleStrategy callerIdle;
    private final OpRequest blocking = new OpRequest();
    private final CollectiveHandle[] pool;
    private final OneToOneConcurrentArrayQueue<CollectiveHandle> queue;
    private final AtomicInteger owner = new AtomicInteger();
    private final AtomicLong completed = new AtomicLong();
    private final List<Device> extraDevices = new ArrayList<>();
    private ProtectionDomain soloPd;
    private long submitted;
    private int poolCursor;
    private int splits;
    private int shrinks;
    private Thread progressThread;
    private volatile boolean running;
    private volatile boolean closed;
    private volatile boolean aborted;

    private Communicator(final CommunicatorContext context, final Links links, final String[] transports,
        final ProtectionDomain primaryPd)
    {
        this.context = context;
        this.rank = context.rank();
        this.size = context.size();
        this.links = links;
        this.transports = transports;
        this.primaryPd = primaryPd;
        this.callerIdle = newIdle(context);
        this.engine = new CollectiveEngine(links, context.chunkBytes(), newIdle(context), context.opTimeoutNs(),
            primaryPd, defaultModel(transports), context.algorithm());
        this.pool = new CollectiveHandle[context.maxPending()];
        for (int i = 0; i < pool.length; i++)
        {
            pool[i] = new CollectiveHandle();
        }
        this.queue = new OneToOneConcurrentArrayQueue<>(pool.length);
    }

    /**
     * Creates a communicator: rendezvous, connections, calibration. Collective: every rank calls it.
     *
     * @param context settings (concluded here).
     * @return the communicator.
     * @throws CollectiveException with reason BOOTSTRAP if the ranks could not be connected.
     * @throws IllegalArgumentException for bad settings.
     */
    public static Communicator create(final CommunicatorContext context)
    {
        context.conclude();
        return create(context, context.newExchange());
    }

    private static Communicator create(final CommunicatorContext context, final AddressExchange exchange)
    {
        if (1 == context.size())
        {
            return new Communicator(context, new SoloLinks(), new String[1], null);
        }
        final Bootstrap.Settings settings = new Bootstrap.Settings();
        settings.rank = context.rank();
        settings.size = context.size();
        settings.slots = context.slots();
        settings.slotBytes = context.chunkBytes();
        settings.transport = context.transport();
        settings.hostAddress = context.hostAddress();
        settings.timeout = Duration.ofNanos(context.bootstrapTimeoutNs());
        settings.peerTimeoutNs = context.peerTimeoutNs();
        settings.deviceProperties = context.deviceProperties();
        settings.progressThread = context.deviceProgressThread();
        final Bootstrap.Result result = Bootstrap.run(settings, exchange);
        final Communicator communicator = new Communicator(context, result.links, result.transports, result.primaryPd);
        try
        {
            communicator.engine.enableFlagLinks(new FlagLinkOffer(context.flagLinks(), context.flagSlots(),
                context.flagSlotBytes(), context.flagMaxBytes()), newIdle(context));
        }
        catch (final RuntimeException ex)
        {
            communicator.closeResources();
            throw ex;
        }
        if (context.calibrate())
        {
            try
            {
                communicator.engine.calibrate();
            }
            catch (final RuntimeException ex)
            {
                communicator.closeResources();
                throw ex;
            }
        }
        return communicator;
    }

    private static IdleStrategy newIdle(final CommunicatorContext context)
    {
        if (context.idleSpins() >= Integer.MAX_VALUE)
        {
            // busy-poll: nothing to learn
            return new BackoffIdleStrategy(context.idleSpins(), context.idleYields(), context.idleMinParkNs(),
                context.idleMaxParkNs());
        }
        return new AdaptiveIdleStrategy(context.idleSpins(), context.idleYields(), context.idleMinParkNs(),
            context.idleMaxParkNs());
    }

    private static CostModel defaultModel(final String[] transports)
    {
        String slowest = "shm";
        for (final String transport : transports)
        {
            if (null != transport && !"shm".equals(transport))
            {
                slowest = transport;
            }
        }
        return CostModel.defaults(slowest);
    }

    /** @return this rank. */
    public int rank()
    {
        return rank;
    }

    /** @return number of ranks. */
    public int size()
    {
        return size;
    }

    /** @return the communicator's name (its store key prefix). */
    public String name()
    {
        return context.name();
    }

    /**
     * @param peer another rank.
     * @return the provider its link uses ({@code shm}, {@code tcp}).
     */
    public String transport(final int peer)
    {
        return transports[peer];
    }

    /**
     * @return the largest operation, in bytes, that runs over flag links (direct peer memory to the ranks on this
     * host), or -1 when this communicator has none (one rank, no peer on this host, or turned off).
     */
    public long flagLinkMaxBytes()
    {
        return engine.flagLinkMaxBytes();
    }

    /** @return the cost model the algorithm selector uses (measured or default). */
    public CostModel costModel()
    {
        return engine.selector().model();
    }

    /**
     * @param bytes    message size.
     * @param override {@link Algorithm#AUTO} or a pinned algorithm.
     * @return the AllReduce algorithm a call of that size would run.
     */
    public Algorithm allReduceAlgorithm(final long bytes, final Algorithm override)
    {
        return engine.allReduceAlgorithm(override, bytes);
    }

    /**
     * Allocates memory registered with the communicator's (main) protection domain, for zero-copy buffers. It stays
     * valid until the communicator is closed (close it earlier to free it). On a communicator that mixes transports,
     * links of the other transport copy it through their staging slots when sending.
     *
     * @param bytes length (over 2 GiB works).
     * @return the region.
     */
    public MemoryRegion allocate(final long bytes)
    {
        ensureOpen();
        return pd().allocate(bytes, Access.LOCAL_WRITE);
    }

    private synchronized ProtectionDomain pd()
    {
        if (null != primaryPd)
        {
            return primaryPd;
        }
        if (extraDevices.isEmpty())
        {
            String name = context.transport();
            if (name.isEmpty())
            {
                for (final TransportProvider provider : Verbs.providers())
                {
                    if (null == provider.unavailableReason())
                    {
                        name = provider.name();
                        break;
                    }
                }
            }
            extraDevices.add(Verbs.open(name));
        }
        if (null == soloPd)
        {
            soloPd = extraDevices.get(0).allocateProtectionDomain();
        }
        return soloPd;
    }

    // ---------------------------------------------------------------- blocking operations

    /**
     * AllReduce: {@code recv[i] = send_0[i] op send_1[i] op ... op send_{n-1}[i]} on every rank.
     *
     * @param send  contributions ({@code count} elements).
     * @param recv  results; may be the same buffer as send (in place).
     * @param count elements (0 is a no-op).
     * @param type  element type.
     * @param op    operator (bitwise ops need an integer type).
     */
    public void allReduce(final CommBuffer send, final CommBuffer recv, final long count, final DataType type,
        final ReduceOp op)
    {
        allReduce(send, recv, count, type, op, Algorithm.AUTO);
    }

    /**
     * AllReduce with a pinned algorithm (every rank must pass the same).
     *
     * @param send      contributions.
     * @param recv      results (may be send).
     * @param count     elements.
     * @param type      element type.
     * @param op        operator.
     * @param algorithm algorithm, or AUTO.
     */
    public void allReduce(final CommBuffer send, final CommBuffer recv, final long count, final DataType type,
        final ReduceOp op, final Algorithm algorithm)
    {
        final OpRequest r = blocking.set(OpKind.ALL_REDUCE, send, recv, count, type, op, 0);
        r.algorithm = algorithm;
        runBlocking(r);
    }

    /**
     * AllReduce of several buffers in one operation (DDP bucket, Horovod tensor fusion), in place: the buffers are
     * packed into a fusion buffer, reduced once, and unpacked.
     *
     * @param buffers the buffers.
     * @param counts  elements of each.
     * @param type    element type of all.
     * @param op      operator.
     */
    public void allReduceFused(final CommBuffer[] buffers, final long[] counts, final DataType type,
        final ReduceOp op)
    {
        runBlocking(fused(blocking, buffers, counts, type, op));
    }

    /**
     * Broadcast: the root's buffer is copied into every rank's buffer.
     *
     * @param buffer data at the root, result elsewhere.
     * @param count  elements.
     * @param type   element type.
     * @param root   the root.
     */
    public void broadcast(final CommBuffer buffer, final long count, final DataType type, final int root)
    {
        runBlocking(blocking.set(OpKind.BROADCAST, buffer, buffer, count, type, null, root));
    }

    /**
     * Reduce: like AllReduce, but only the root receives the result.
     *
     * @param send  contributions.
     * @param recv  result at the root (may be send; ignored and may be null elsewhere).
     * @param count elements.
     * @param type  element type.
     * @param op    operator.
     * @param root  the root.
     */
    public void reduce(final CommBuffer send, final CommBuffer recv, final long count, final DataType type,
        final ReduceOp op, final int root)
    {
        runBlocking(blocking.set(OpKind.REDUCE, send, recv, count, type, op, root));
    }

    /**
     * AllGather: rank r's {@code countPerRank} elements land at element {@code r * countPerRank} of every recv.
     *
     * @param send         this rank's elements (may be recv at offset r * block: in place).
     * @param recv         {@code size * countPerRank} elements.
     * @param countPerRank elements per rank.
     * @param type         element type.
     */
    public void allGather(final CommBuffer send, final CommBuffer recv, final long countPerRank, final DataType type)
    {
        runBlocking(blocking.set(OpKind.ALL_GATHER, send, recv, countPerRank, type, null, 0));
    }

    /**
     * ReduceScatter: block r (of {@code size} blocks of {@code countPerRank}) reduced over all ranks lands in rank
     * r's recv.
     *
     * @param send         {@code size * countPerRank} elements.
     * @param recv         {@code countPerRank} elements.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param op           operator.
     */
    public void reduceScatter(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final ReduceOp op)
    {
        runBlocking(blocking.set(OpKind.REDUCE_SCATTER, send, recv, countPerRank, type, op, 0));
    }

    /**
     * AllToAll: block j of rank i's send lands in block i of rank j's recv.
     *
     * @param send         {@code size * countPerRank} elements.
     * @param recv         {@code size * countPerRank} elements (may be send: staged).
     * @param countPerRank elements per block.
     * @param type         element type.
     */
    public void allToAll(final CommBuffer send, final CommBuffer recv, final long countPerRank, final DataType type)
    {
        runBlocking(blocking.set(OpKind.ALL_TO_ALL, send, recv, countPerRank, type, null, 0));
    }

    /**
     * Gather: every rank's block lands at block r of the root's recv.
     *
     * @param send         this rank's block.
     * @param recv         {@code size * countPerRank} elements at the root (null elsewhere is fine).
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param root         the root.
     */
    public void gather(final CommBuffer send, final CommBuffer recv, final long countPerRank, final DataType type,
        final int root)
    {
        runBlocking(blocking.set(OpKind.GATHER, send, recv, countPerRank, type, null, root));
    }

    /**
     * Scatter: block r of the root's send lands in rank r's recv.
     *
     * @param send         {@code size * countPerRank} elements at the root (null elsewhere is fine).
     * @param recv         this rank's block.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param root         the root.
     */
    public void scatter(final CommBuffer send, final CommBuffer recv, final long countPerRank, final DataType type,
        final int root)
    {
        runBlocking(blocking.set(OpKind.SCATTER, send, recv, countPerRank, type, null, root));
    }

    /** Barrier: returns once every rank has entered it. */
    public void barrier()
    {
        runBlocking(blocking.set(OpKind.BARRIER, null, null, 0, null, null, 0));
    }

    /**
     * Point-to-point send; the peer must call {@link #recv} with the same count and type. Blocks until the data is
     * handed over (beyond the credit window that means until the peer receives it): two ranks sending large messages
     * to each other must use {@link #sendRecv}.
     *
     * @param buffer data.
     * @param count  elements.
     * @param type   element type.
     * @param peer   destination rank.
     */
    public void send(final CommBuffer buffer, final long count, final DataType type, final int peer)
    {
        runBlocking(blocking.set(OpKind.SEND, buffer, null, count, type, null, peer));
    }

    /**
     * Point-to-point receive of what {@code peer} sends with {@link #send}.
     *
     * @param buffer destination.
     * @param count  elements.
     * @param type   element type.
     * @param peer   source rank.
     */
    public void recv(final CommBuffer buffer, final long count, final DataType type, final int peer)
    {
        runBlocking(blocking.set(OpKind.RECV, null, buffer, count, type, null, peer));
    }

    /**
     * Sends to one peer while receiving from another (or the same) without deadlock (a fused send/recv group).
     *
     * @param send      data to send.
     * @param sendCount elements to send.
     * @param to        destination.
     * @param recv      destination buffer.
     * @param recvCount elements to receive.
     * @param from      source.
     * @param type      element type.
     */
    public void sendRecv(final CommBuffer send, final long sendCount, final int to, final CommBuffer recv,
        final long recvCount, final int from, final DataType type)
    {
        final OpRequest r = blocking.set(OpKind.SEND_RECV, send, recv, sendCount, type, null, to);
        r.recvCount = recvCount;
        r.peer2 = from;
        runBlocking(r);
    }

    // ---------------------------------------------------------------- non-blocking operations

    /**
     * Non-blocking {@link #allReduce(CommBuffer, CommBuffer, long, DataType, ReduceOp)}.
     *
     * @param send  contributions.
     * @param recv  results.
     * @param count elements.
     * @param type  element type.
     * @param op    operator.
     * @return the handle.
     */
    public CollectiveHandle allReduceAsync(final CommBuffer send, final CommBuffer recv, final long count,
        final DataType type, final ReduceOp op)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.ALL_REDUCE, send, recv, count, type, op, 0);
        return submit(h);
    }

    /**
     * Non-blocking {@link #allReduceFused}.
     *
     * @param buffers buffers.
     * @param counts  counts.
     * @param type    element type.
     * @param op      operator.
     * @return the handle.
     */
    public CollectiveHandle allReduceFusedAsync(final CommBuffer[] buffers, final long[] counts, final DataType type,
        final ReduceOp op)
    {
        final CollectiveHandle h = acquireHandle();
        fused(h.request, buffers, counts, type, op);
        return submit(h);
    }

    /**
     * Non-blocking {@link #broadcast}.
     *
     * @param buffer data.
     * @param count  elements.
     * @param type   element type.
     * @param root   root.
     * @return the handle.
     */
    public CollectiveHandle broadcastAsync(final CommBuffer buffer, final long count, final DataType type,
        final int root)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.BROADCAST, buffer, buffer, count, type, null, root);
        return submit(h);
    }

    /**
     * Non-blocking {@link #reduce}.
     *
     * @param send  contributions.
     * @param recv  result at root.
     * @param count elements.
     * @param type  element type.
     * @param op    operator.
     * @param root  root.
     * @return the handle.
     */
    public CollectiveHandle reduceAsync(final CommBuffer send, final CommBuffer recv, final long count,
        final DataType type, final ReduceOp op, final int root)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.REDUCE, send, recv, count, type, op, root);
        return submit(h);
    }

    /**
     * Non-blocking {@link #allGather}.
     *
     * @param send         this rank's block.
     * @param recv         all blocks.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @return the handle.
     */
    public CollectiveHandle allGatherAsync(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.ALL_GATHER, send, recv, countPerRank, type, null, 0);
        return submit(h);
    }

    /**
     * Non-blocking {@link #reduceScatter}.
     *
     * @param send         all blocks.
     * @param recv         this rank's block.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param op           operator.
     * @return the handle.
     */
    public CollectiveHandle reduceScatterAsync(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final ReduceOp op)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.REDUCE_SCATTER, send, recv, countPerRank, type, op, 0);
        return submit(h);
    }

    /**
     * Non-blocking {@link #allToAll}.
     *
     * @param send         blocks.
     * @param recv         blocks.
     * @param countPerRank elements per block.
     * @param type         element type.
     * @return the handle.
     */
    public CollectiveHandle allToAllAsync(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.ALL_TO_ALL, send, recv, countPerRank, type, null, 0);
        return submit(h);
    }

    /**
     * Non-blocking {@link #gather}.
     *
     * @param send         block.
     * @param recv         blocks at root.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param root         root.
     * @return the handle.
     */
    public CollectiveHandle gatherAsync(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final int root)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.GATHER, send, recv, countPerRank, type, null, root);
        return submit(h);
    }

    /**
     * Non-blocking {@link #scatter}.
     *
     * @param send         blocks at root.
     * @param recv         block.
     * @param countPerRank elements per rank.
     * @param type         element type.
     * @param root         root.
     * @return the handle.
     */
    public CollectiveHandle scatterAsync(final CommBuffer send, final CommBuffer recv, final long countPerRank,
        final DataType type, final int root)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.SCATTER, send, recv, countPerRank, type, null, root);
        return submit(h);
    }

    /** @return the handle of a non-blocking {@link #barrier()}. */
    public CollectiveHandle barrierAsync()
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.BARRIER, null, null, 0, null, null, 0);
        return submit(h);
    }

    /**
     * Non-blocking {@link #send}.
     *
     * @param buffer data.
     * @param count  elements.
     * @param type   element type.
     * @param peer   destination.
     * @return the handle.
     */
    public CollectiveHandle sendAsync(final CommBuffer buffer, final long count, final DataType type, final int peer)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.SEND, buffer, null, count, type, null, peer);
        return submit(h);
    }

    /**
     * Non-blocking {@link #recv}.
     *
     * @param buffer destination.
     * @param count  elements.
     * @param type   element type.
     * @param peer   source.
     * @return the handle.
     */
    public CollectiveHandle recvAsync(final CommBuffer buffer, final long count, final DataType type, final int peer)
    {
        final CollectiveHandle h = acquireHandle();
        h.request.set(OpKind.RECV, null, buffer, count, type, null, peer);
        return submit(h);
    }

    // ---------------------------------------------------------------- split, failure, close

    /**
     * Splits into sub-communicators (MPI_Comm_split): ranks passing the same non-negative colour form one, ordered
     * by key (then by rank here). Collective over this communicator. The sub-communicators have their own
     * connections and settings copied from this one.
     *
     * @param colour group; negative means "in none" (returns null).
     * @param key    order within the group.
     * @return the sub-communicator, or null for a negative colour.
     */
    public Communicator split(final int colour, final int key)
    {
        final long[] mine = {colour, key};
        final long[] all = new long[2 * size];
        allGather(CommBuffer.of(mine), CommBuffer.of(all), 2, DataType.INT64);
        final List<Integer> members = new ArrayList<>();
        if (colour >= 0)
        {
            for (int q = 0; q < size; q++)
            {
                if (all[2 * q] == colour)
                {
                    members.add(q);
                }
            }
            members.sort((a, b) -> all[2 * a + 1] != all[2 * b + 1] ? Long.compare(all[2 * a + 1], all[2 * b + 1]) :
                Integer.compare(a, b));
        }
        final int[] group = members.stream().mapToInt(Integer::intValue).toArray();
        final ParentExchange exchange = new ParentExchange(this, group);
        final String name = context.name() + "/split" + (splits++) + "/" + colour;
        if (group.length < 2)
        {
            // not in a group that bootstraps: still take part in the two exchanges the others run over us
            exchange.allGather(0, 1, new byte[0], Duration.ofNanos(context.bootstrapTimeoutNs()));
            exchange.allGather(0, 1, new byte[0], Duration.ofNanos(context.bootstrapTimeoutNs()));
            if (colour < 0)
            {
                return null;
            }
        }
        int newRank = 0;
        while (group[newRank] != rank)
        {
            newRank++;
        }
        final CommunicatorContext sub = context.derive(newRank, group.length, exchange, name);
        sub.conclude();
        return create(sub, exchange);
    }

    /**
     * After a failure, builds a communicator of the surviving ranks, renumbered in rank order (NCCL's
     * {@code ncclCommShrink}, ULFM's {@code MPI_Comm_shrink}). Collective among the survivors: each calls it once
     * per failure. They agree on who is alive through the rendezvous store (the failure closed the connections;
     * see {@link ShrinkAgreement}): a rank that failed, or that does not call within twice the peer timeout, is left
     * out. Works on a healthy communicator too (then every rank must call it), and after this one was closed or
     * aborted (it only needs the settings and the failure it saw); this communicator is not changed: close it.
     *
     * @return the survivors' communicator (of size 1 when this rank is the only one left).
     * @throws IllegalStateException if the communicator was not created from a rendezvous store (a split one, or
     *                               one bootstrapped from an engine's own exchange).
     * @throws CollectiveException   BOOTSTRAP if this rank was left out or the survivors could not connect.
     */
    public Communicator shrink()
    {
        final RendezvousStore store = context.store();
        if (null == store)
        {
            throw new IllegalStateException("shrink needs a communicator created from a rendezvous store (this one " +
                "was bootstrapped through an address exchange); create a new communicator instead");
        }
        final boolean[] knownFailed = new boolean[size];
        final CollectiveException failure = engine.failure();
        if (null != failure && failure.peer() >= 0 && failure.peer() != rank)
        {
            knownFailed[failure.peer()] = true;
        }
        final String name = context.name() + "/shrink" + (shrinks++);
        final int[] members = ShrinkAgreement.agree(new PrefixStore("verbs4j-shrink/" + name, store), rank, size,
            knownFailed, 2 * context.peerTimeoutNs(), Duration.ofNanos(context.bootstrapTimeoutNs()));
        int newRank = 0;
        while (members[newRank] != rank)
        {
            newRank++;
        }
        final CommunicatorContext survivors = context.deriveOnStore(newRank, members.length, name);
        survivors.conclude();
        return create(survivors);
    }

    /** @return true once a call failed (then every later call throws). */
    public boolean isFailed()
    {
        return null != engine.failure() || aborted;
    }

    /** @return the first failure, or null. */
    public CollectiveException failure()
    {
        return engine.failure();
    }

    /**
     * Aborts: a running call (on any thread) fails with {@link CollectiveException.Reason#ABORTED}, pending
     * non-blocking calls fail, the connections are closed so that peers fail at once, and the resources are freed.
     * May be called from any thread; idempotent. Not collective.
     */
    public void abort()
    {
        if (aborted || closed)
        {
            return;
        }
        aborted = true;
        engine.requestAbort();
        stopProgressThread();
        final long deadline = System.nanoTime() + Math.max(TimeUnit.SECONDS.toNanos(5), context.opTimeoutNs());
        while (!owner.compareAndSet(0, 1))
        {
            if (System.nanoTime() - deadline > 0)
            {
                break;
            }
            LockSupport.parkNanos(100_000);
        }
        links.breakAll(null == engine.failure() ? rank : engine.failure().peer());
        failQueued(new CollectiveException(CollectiveException.Reason.ABORTED, rank, -1,
            "rank " + rank + ": communicator aborted before this call ran", null));
        closed = true;
        closeResources();
    }

    /**
     * Closes the communicator: waits for pending non-blocking calls, runs a final barrier (when healthy) so that no
     * rank tears down while others still need it, then frees the connections, memory from {@link #allocate} and the
     * devices. Idempotent.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            if (!isFailed() && size > 1)
            {
                barrier();
            }
        }
        catch (final RuntimeException ignore)
        {
            // a failing peer at close time is not this rank's problem any more
        }
        closed = true;
        stopProgressThread();
        failQueued(new CollectiveException(CollectiveException.Reason.ABORTED, rank, -1,
            "rank " + rank + ": communicator closed before this call ran", null));
        closeResources();
    }

    private void closeResources()
    {
        try
        {
            engine.close();
        }
        finally
        {
            try
            {
                links.close();
            }
            finally
            {
                for (final Device device : extraDevices)
                {
                    device.close();
                }
            }
        }
    }

    // ---------------------------------------------------------------- internals

    private static OpRequest fused(final OpRequest r, final CommBuffer[] buffers, final long[] counts,
        final DataType type, final ReduceOp op)
    {
        r.set(OpKind.ALL_REDUCE_FUSED, null, null, 0, type, op, 0);
        r.fused = buffers;
        r.fusedCounts = counts;
        return r;
    }

    private void runBlocking(final OpRequest r)
    {
        ensureOpen();
        drainAsync();
        if (!owner.compareAndSet(0, 1))
        {
            r.clear();
            throw new IllegalStateException("communicator rank " + rank + " is used by two threads at once " +
                "(or was aborted); issue calls from one thread");
        }
        try
        {
            engine.execute(r);
        }
        finally
        {
            r.clear();
            owner.set(0);
        }
    }

    private void drainAsync()
    {
        if (submitted == completed.get())
        {
            return;
        }
        callerIdle.reset();
        while (submitted != completed.get())
        {
            callerIdle.idle();
        }
    }

    private CollectiveHandle acquireHandle()
    {
        ensureOpen();
        for (int i = 0; i < pool.length; i++)
        {
            final CollectiveHandle h = pool[poolCursor];
            poolCursor = poolCursor + 1 == pool.length ? 0 : poolCursor + 1;
            if (h.isFree())
            {
                return h;
            }
        }
        throw new IllegalStateException("all " + pool.length + " non-blocking handles are in use: await them " +
            "(or raise maxPending)");
    }

    private CollectiveHandle submit(final CollectiveHandle h)
    {
        h.markPending();
        if (null == progressThread)
        {
            startProgressThread();
        }
        submitted++;
        if (!queue.offer(h))
        {
            submitted--;
            h.complete(new IllegalStateException("submission queue full"));
            return h;
        }
        LockSupport.unpark(progressThread);
        return h;
    }

    private void startProgressThread()
    {
        running = true;
        final IdleStrategy idle = new BackoffIdleStrategy(context.idleSpins(), context.idleYields(),
            context.idleMinParkNs(), TimeUnit.MILLISECONDS.toNanos(1));
        progressThread = new Thread(() -> progressLoop(idle), "verbs4j-collectives-r" + rank + "-" + context.name());
        progressThread.setDaemon(true);
        progressThread.start();
    }

    private void progressLoop(final IdleStrategy idle)
    {
        while (running)
        {
            final CollectiveHandle h = queue.poll();
            if (null == h)
            {
                idle.idle();
                continue;
            }
            idle.reset();
            while (!owner.compareAndSet(0, 1))
            {
                if (!running)
                {
                    h.complete(new CollectiveException(CollectiveException.Reason.ABORTED, rank, -1,
                        "rank " + rank + ": communicator aborted before this call ran", null));
                    completed.incrementAndGet();
                    return;
                }
                Thread.yield();
            }
            RuntimeException error = null;
            try
            {
                engine.execute(h.request);
            }
            catch (final RuntimeException ex)
            {
                error = ex;
            }
            finally
            {
                owner.set(0);
            }
            h.complete(error);
            completed.incrementAndGet();
        }
    }

    private void stopProgressThread()
    {
        final Thread thread = progressThread;
        if (null == thread)
        {
            return;
        }
        if (!aborted)
        {
            final long deadline = System.nanoTime() + context.opTimeoutNs() + TimeUnit.SECONDS.toNanos(1);
            while (submitted != completed.get() && System.nanoTime() - deadline < 0)
            {
                LockSupport.parkNanos(100_000);
            }
        }
        running = false;
        LockSupport.unpark(thread);
        try
        {
            thread.join(TimeUnit.NANOSECONDS.toMillis(context.opTimeoutNs()) + 1000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void failQueued(final CollectiveException error)
    {
        CollectiveHandle h;
        while (null != (h = queue.poll()))
        {
            h.complete(error);
            completed.incrementAndGet();
        }
    }

    private void ensureOpen()
    {
        if (aborted)
        {
            throw new CollectiveException(CollectiveException.Reason.ABORTED, rank, -1,
                "rank " + rank + ": the communicator was aborted", engine.failure());
        }
        if (closed)
        {
            throw new IllegalStateException("communicator rank " + rank + " is closed");
        }
    }

    /** The sub-communicator bootstrap's all-gather, run over the parent communicator. */
    private static final class ParentExchange implements AddressExchange
    {
        private final Communicator parent;
        private final int[] group;

        ParentExchange(final Communicator parent, final int[] group)
        {
            this.parent = parent;
            this.group = group;
        }

        /** {@inheritDoc} */
        public byte[][] allGather(final int rank, final int size, final byte[] mine, final Duration timeout)
        {
            final int n = parent.size();
            final int[] lengths = new int[n];
            parent.allGather(CommBuffer.of(new int[]{mine.length}), CommBuffer.of(lengths), 1, DataType.INT32);
            int max = 0;
            for (final int length : lengths)
            {
                max = Math.max(max, length);
            }
            final byte[] padded = java.util.Arrays.copyOf(mine, max);
            final byte[] all = new byte[max * n];
            parent.allGather(CommBuffer.of(padded), CommBuffer.of(all), max, DataType.INT8);
            final byte[][] result = new byte[group.length][];
            for (int i = 0; i < group.length; i++)
            {
                result[i] = java.util.Arrays.copyOfRange(all, group[i] * max, group[i] * max + lengths[group[i]]);
            }
            return result;
        }
    }
}
