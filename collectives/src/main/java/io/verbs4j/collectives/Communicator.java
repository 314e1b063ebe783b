// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.util.Map;
import java.util.Objects;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.algorithm.CostModel;
import io.verbs4j.collectives.engine.CollectiveEngine;
import io.verbs4j.collectives.engine.OpRequest;
import io.verbs4j.collectives.rendezvous.EnvRendezvous;
import io.verbs4j.collectives.rendezvous.FileStore;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

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
 *   <li>One thread at a time issues calls. Blocking calls run on the calling thread (no hand-off); non-blocking
 *       ones ({@link #async()}, {@link #submit}) run in issue order on the communicator's progress thread; a blocking
 *       call issued while non-blocking ones are pending waits for them first. A {@link CollectiveOp} describes a
 *       call once for any number of {@link #run}s.</li>
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
    private final String[] transports;
    private final CollectiveEngine engine;
    private final AsyncRunner runner;
    private final AsyncCollectives async;
    private final CommunicatorResources resources;
    private final CollectiveOp scratch = new CollectiveOp();
    private int splits;
    private int shrinks;

    /** Built by {@link CommunicatorAssembly}, which wires the parts. */
    Communicator(final CommunicatorContext context, final String[] transports, final CollectiveEngine engine,
        final AsyncRunner runner, final CommunicatorResources resources)
    {
        this.context = context;
        this.rank = context.rank();
        this.size = context.size();
        this.transports = transports;
        this.engine = engine;
        this.runner = runner;
        this.resources = resources;
        this.async = new AsyncCollectives(runner);
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
        return CommunicatorCreation.create(context);
    }

    /**
     * Creates a communicator from the launcher's environment in one call, as PyTorch's {@code init_process_group()}
     * does: {@code fromEnvironment(System.getenv(), new CommunicatorContext())}. Collective: every rank calls it.
     * <pre>{@code
     * // torchrun --nproc-per-node 4 ..., mpirun -np 4 -x MASTER_ADDR -x MASTER_PORT java ..., or a shell loop
     * try (Communicator comm = Communicator.fromEnvironment())
     * {
     *     comm.allReduce(grads, grads, n, DataType.FLOAT32, ReduceOp.SUM);
     * }
     * }</pre>
     *
     * @return the communicator; closing it also closes the store it opened.
     * @throws IllegalArgumentException naming the variable that is missing or malformed.
     * @throws CollectiveException with reason BOOTSTRAP if the ranks could not be connected.
     * @see #fromEnvironment(Map, CommunicatorContext)
     */
    public static Communicator fromEnvironment()
    {
        return fromEnvironment(System.getenv(), new CommunicatorContext());
    }

    /**
     * Creates a communicator from launcher variables. Collective: every rank calls it.
     * <ul>
     *   <li>Rank and size: {@code RANK} and {@code WORLD_SIZE} (torchrun, or set by hand), else Open MPI's
     *       {@code OMPI_COMM_WORLD_RANK} and {@code OMPI_COMM_WORLD_SIZE}.</li>
     *   <li>Store: {@code VERBS4J_INIT_METHOD}, a URL as torch's {@code init_method}: {@code env://} (the default)
     *       reads {@code MASTER_ADDR} and {@code MASTER_PORT}, where rank 0 hosts a TCP store
     *       ({@link EnvRendezvous}); {@code tcp://host:port} names that address directly; {@code file:///dir} uses a
     *       directory every rank can see ({@link FileStore}).</li>
     *   <li>Host address (where this rank's tcp links listen): with a TCP store, the local address of the route to
     *       the master, the interface torchrun and NCCL would pick; unless
     *       {@value CollectivesConfiguration#HOST_ADDRESS_PROP_NAME} is set or the context already names an address
     *       other than the default. With {@code file://}, set the address for jobs across hosts.</li>
     * </ul>
     * The other settings come from the context (name, transport, timeouts, ...).
     *
     * @param env     the environment, e.g. {@code System.getenv()}.
     * @param context settings; rank, size, store and possibly the host address are set here, then concluded.
     * @return the communicator; closing it also closes the store it opened (on rank 0 that stops the TCP store,
     *         so {@link #shrink()} must run before).
     * @throws IllegalArgumentException naming the variable that is missing or malformed.
     * @throws CollectiveException with reason BOOTSTRAP if the ranks could not be connected.
     */
    public static Communicator fromEnvironment(final Map<String, String> env, final CommunicatorContext context)
    {
        return CommunicatorCreation.fromEnvironment(env, context);
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
        Objects.requireNonNull(override, "override");
        return engine.allReduceAlgorithm(override, bytes);
    }

    /**
     * Allocates memory registered with the communicator's (main) protection domain, for zero-copy buffers. It stays
     * valid until the communicator is closed (close it earlier to free it). On a communicator that mixes transports,
     * links of the other transport copy it through their staging slots when sending.
     * <p>
     * The region is registered with REMOTE_READ as well: ranks on the same host read AllReduce buffers allocated
     * here in place (single copy, {@link CommunicatorContext#peerMemoryMinBytes}), as NCCL's registered buffers
     * and MPI windows are read by their peers. Only this communicator's ranks have queue pairs to this domain.
     *
     * @param bytes length (over 2 GiB works).
     * @return the region.
     */
    public MemoryRegion allocate(final long bytes)
    {
        runner.ensureOpen();
        final MemoryRegion region = resources.pd().allocate(bytes, Access.LOCAL_WRITE | Access.REMOTE_READ);
        engine.share(region);
        return region;
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
     * @param algorithm algorithm, or AUTO (null also means AUTO).
     */
    public void allReduce(final CommBuffer send, final CommBuffer recv, final long count, final DataType type,
        final ReduceOp op, final Algorithm algorithm)
    {
        run(scratch.allReduce(send, recv, count, type, op).algorithm(algorithm));
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
        run(scratch.allReduceFused(buffers, counts, type, op));
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
        run(scratch.broadcast(buffer, count, type, root));
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
        run(scratch.reduce(send, recv, count, type, op, root));
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
        run(scratch.allGather(send, recv, countPerRank, type));
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
        run(scratch.reduceScatter(send, recv, countPerRank, type, op));
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
        run(scratch.allToAll(send, recv, countPerRank, type));
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
        run(scratch.gather(send, recv, countPerRank, type, root));
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
        run(scratch.scatter(send, recv, countPerRank, type, root));
    }

    /** Barrier: returns once every rank has entered it. */
    public void barrier()
    {
        run(scratch.barrier());
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
        run(scratch.send(buffer, count, type, peer));
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
        run(scratch.recv(buffer, count, type, peer));
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
        run(scratch.sendRecv(send, sendCount, to, recv, recvCount, from, type));
    }

    // ---------------------------------------------------------------- descriptors and non-blocking operations

    /**
     * Runs an operation on this thread (after the pending non-blocking ones). The descriptor is copied first: it may
     * be changed as soon as this returns.
     *
     * @param op the operation.
     * @throws IllegalArgumentException for bad arguments (the communicator stays usable).
     * @throws CollectiveException      if the operation failed (the communicator is failed).
     */
    public void run(final CollectiveOp op)
    {
        Objects.requireNonNull(op, "op");
        final OpRequest r = op.copyTo(runner.blockingRequest());
        if (op == scratch)
        {
            scratch.forget();
        }
        runner.runBlocking(r);
    }

    /**
     * Queues an operation for the progress thread (see {@link #async()}); the descriptor is copied and may be
     * reused at once.
     *
     * @param op the operation.
     * @return its handle.
     */
    public CollectiveHandle submit(final CollectiveOp op)
    {
        Objects.requireNonNull(op, "op");
        return async.submit(op);
    }

    /** @return the non-blocking forms of the operations, run in issue order on the progress thread. */
    public AsyncCollectives async()
    {
        return async;
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
        return CommunicatorCreation.split(this, colour, key);
    }

    /**
     * After a failure, builds a communicator of the surviving ranks, renumbered in rank order (NCCL's
     * {@code ncclCommShrink}, ULFM's {@code MPI_Comm_shrink}). Collective among the survivors: each calls it once
     * per failure. They agree on who is alive through the rendezvous store (the failure closed the connections;
     * see {@link ShrinkAgreement}): a rank that failed, or that does not call within twice the peer timeout, is left
     * out. Works on a healthy communicator too (then every rank must call it), and after this one was closed or
     * aborted (it only needs the settings and the failure it saw); this communicator is not changed: close it. The
     * survivors keep this communicator's cost model (and so its algorithm choices per size) instead of calibrating
     * again.
     *
     * @return the survivors' communicator (of size 1 when this rank is the only one left).
     * @throws IllegalStateException if the communicator was not created from a rendezvous store (a split one, or
     *                               one bootstrapped from an engine's own exchange).
     * @throws CollectiveException   BOOTSTRAP if this rank was left out or the survivors could not connect.
     */
    public Communicator shrink()
    {
        return CommunicatorCreation.shrink(this);
    }

    /** @return true once a call failed (then every later call throws). */
    public boolean isFailed()
    {
        return null != engine.failure() || runner.isAborted();
    }

    /** @return the first failure, or null. */
    public CollectiveException failure()
    {
        return engine.failure();
    }

    /**
     * This rank's last collectives, oldest first: sequence number, operation, size, algorithm, how long ago each
     * started and whether it completed (the last {@code verbs4j.collectives.history} operations, 32 by default).
     * Compare it across ranks to see which rank did not reach or did not finish a call; it is also logged when the
     * communicator fails. Any thread; read while an operation runs it is a best-effort snapshot.
     *
     * @return the history as text, one line per operation.
     */
    public String history()
    {
        return engine.observer().history();
    }

    /**
     * Aborts: a running call (on any thread) fails with {@link CollectiveException.Reason#ABORTED}, pending
     * non-blocking calls fail, the connections are closed so that peers fail at once, and the resources are freed.
     * May be called from any thread; idempotent. Not collective.
     */
    public void abort()
    {
        if (runner.isAborted() || runner.isClosed())
        {
            return;
        }
        runner.abort();
        resources.breakLinks(null == engine.failure() ? rank : engine.failure().peer());
        resources.close();
    }

    /**
     * Closes the communicator: waits for pending non-blocking calls, runs a final barrier (when healthy) so that no
     * rank tears down while others still need it, then frees the connections, memory from {@link #allocate}, the
     * devices and the store {@link #fromEnvironment} opened. Idempotent.
     */
    public void close()
    {
        resources.closeStat();
        if (runner.isClosed())
        {
            resources.closeOwnedStore();
            return;
        }
        try
        {
            if (!isFailed() && size > 1)
            {
                run(scratch.closingBarrier());
            }
        }
        catch (final RuntimeException ignore)
        {
            // a failing peer at close time is not this rank's problem any more
        }
        runner.close();
        try
        {
            resources.close();
        }
        finally
        {
            resources.closeOwnedStore();
        }
    }

    /** @return the engine, for {@link CommunicatorAssembly} and {@link CommunicatorCreation}. */
    CollectiveEngine engine()
    {
        return engine;
    }

    /** @return the settings, for {@link CommunicatorCreation}. */
    CommunicatorContext context()
    {
        return context;
    }

    /** @return the provider of each peer's link (null for this rank), for the creation report. */
    String[] transports()
    {
        return transports;
    }

    /** @return what this communicator owns and frees (for {@link CommunicatorAssembly} on a failed set-up too). */
    CommunicatorResources resources()
    {
        return resources;
    }

    /** @return the number of the next split of this communicator (its sub-communicators' names). */
    int nextSplit()
    {
        return splits++;
    }

    /** @return the number of the next shrink of this communicator (its survivors' names). */
    int nextShrink()
    {
        return shrinks++;
    }
}
