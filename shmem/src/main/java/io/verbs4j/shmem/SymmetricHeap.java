// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.lang.invoke.VarHandle;
import java.util.Map;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CollectivesConfiguration;
import io.verbs4j.collectives.CommBuffer;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.rendezvous.EnvRendezvous;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A symmetric heap in the NVSHMEM/OpenSHMEM model: {@link #nPes()} processing elements (PEs, the ranks of a world
 * communicator) each hold a copy of every {@link SymmetricMemory} object, and any PE reads, writes and updates any
 * other PE's copy by (object, offset, PE) without the target's participation.
 * <pre>{@code
 * try (SymmetricHeap heap = SymmetricHeap.create(new CommunicatorContext().rank(rank).size(size).store(store)))
 * {
 *     SymmetricMemory data = heap.allocate(4096);               // collective, same size everywhere
 *     SymmetricMemory flag = heap.allocate(8);
 *     int right = (heap.myPe() + 1) % heap.nPes();
 *     heap.putSignal(data, 0, payload, 0, 4096, flag, 0, 1, SignalOp.SET, right);
 *     heap.waitUntil(flag, 0, Cmp.EQ, 1);                        // my left neighbour's data is in data.local()
 *     heap.barrierAll();
 * }
 * }</pre>
 * <b>Paths.</b> Per peer the fastest one: a PE on this host whose queue pair offers direct peer memory is reached by
 * CPU loads, stores and atomics on its mapped copy (no request, no completion); any other PE by RDMA WRITE, READ and
 * atomics on the heap's queue pair to it (shm without direct access, or tcp), completed through its completion
 * queue. {@link #isDirect(int)} tells which. Mixed jobs (several hosts with several PEs each) use both.
 * <p>
 * <b>Ordering and completion</b> (the contract; the module README has the full table):
 * <ul>
 *   <li>A blocking put returns when the source may be reused, not when the data arrived. A non-blocking put
 *       ({@code putNbi}) may read the source until the next {@link #quiet()}; a non-blocking get fills its
 *       destination by the next {@link #quiet()}. Blocking gets and fetching atomics return the remote value.</li>
 *   <li>{@link #fence()} orders, per target PE, the puts, non-fetching atomics and put-with-signals issued before
 *       it before those issued after it; it waits for nothing.</li>
 *   <li>{@link #quiet()} waits until every put, atomic, put-with-signal and non-blocking get this PE issued is
 *       complete: the data is in the target's memory (visible to the target and to any PE that reads it later).</li>
 *   <li>{@link #putSignal} makes the data visible before the signal update; a PE whose {@link #waitUntil} (or
 *       {@link #signalWait}) returned because of that signal sees the data.</li>
 *   <li>{@link #barrierAll()} = quiet + barrier: every PE's earlier operations are complete and visible everywhere
 *       when it returns. {@link #syncAll()} is the barrier alone (orders this PE's local stores only).</li>
 * </ul>
 * <b>Failure.</b> A PE that dies, disconnects or closes its heap early fails the heap: every blocked call on the
 * other PEs (waits, quiet, blocking gets and atomics, barriers) throws {@link ShmemException} with
 * {@link ShmemException.Reason#PEER_FAILED} within the peer timeout (plus about a millisecond), and so does every
 * later call. Puts on the direct path to a PE that just died may still "succeed" (stores into memory nobody reads).
 * <p>
 * <b>Threading.</b> One thread at a time calls the heap (OpenSHMEM's THREAD_SERIALIZED); the calls never allocate
 * after set-up except when they throw. {@link SymmetricMemory#local()} and {@link SymmetricMemory#ptr(int)} views may
 * be used from any thread.
 */
public final class SymmetricHeap extends HeapOperations implements AutoCloseable
{
    /** Largest allocation, bytes (a copy is addressed with int indexes). */
    public static final long MAX_ALLOCATION = Integer.MAX_VALUE - 7;

    private final Communicator world;
    private final ShmemOptions options;
    // what the API runs on (connections, verbs channel, registrations, health checks) and how it is torn down
    private final HeapResources resources;
    private final HeapMesh mesh;
    private final boolean anyVerbsPeer;
    private final Waiter waiter;
    private final LocalRegistrations registrations;
    private final ShmemTeam teamWorld;

    private SymmetricHeap(final Communicator world, final boolean ownsWorld, final RendezvousStore ownedStore,
        final ShmemOptions options)
    {
        super(world.rank(), world.size(), new HeapFailure());
        this.world = world;
        this.options = options;
        this.resources = new HeapResources(world, ownsWorld, ownedStore, options, failure);
        this.waiter = resources.waiter();
        this.mesh = resources.mesh();
        this.registrations = resources.registrations();
        this.verbs = resources.verbs();
        this.anyVerbsPeer = null != verbs && verbs.hasVerbsPeers();
        this.teamWorld = new ShmemTeam(this, world, false, identity(size));
    }

    private static int[] identity(final int size)
    {
        final int[] pes = new int[size];
        for (int i = 0; i < size; i++)
        {
            pes[i] = i;
        }
        return pes;
    }

    // ---------------------------------------------------------------- creation

    /**
     * Creates a heap and its own world communicator from a communicator context (rendezvous store or exchange,
     * rank, size, timeouts, transport). Collective: every PE calls it.
     *
     * @param context the world's settings (concluded here).
     * @return the heap; closing it closes the world communicator.
     * @throws ShmemException BOOTSTRAP if the PEs could not be connected.
     */
    public static SymmetricHeap create(final CommunicatorContext context)
    {
        final Communicator world = HeapResources.createWorld(context);
        return create(world, ShmemOptions.from(context), true, null);
    }

    /**
     * Creates a heap over an existing communicator (its ranks are the PEs; it is used for the set-up exchanges,
     * barriers and teams, and stays the caller's). Collective over {@code world}.
     *
     * @param world   the world communicator.
     * @param options heap settings (concluded here).
     * @return the heap.
     * @throws ShmemException BOOTSTRAP if the PEs could not be connected.
     */
    public static SymmetricHeap create(final Communicator world, final ShmemOptions options)
    {
        return create(world, options, false, null);
    }

    /**
     * Creates a heap from the torchrun / Open MPI environment ({@link EnvRendezvous}: {@code MASTER_ADDR},
     * {@code MASTER_PORT}, {@code RANK}, {@code WORLD_SIZE}): rank 0 hosts the rendezvous store. Collective.
     *
     * @param env  the environment, e.g. {@code System.getenv()}.
     * @param name the job's name (store key prefix), the same on every PE.
     * @return the heap; closing it closes the communicator and the store connection.
     */
    public static SymmetricHeap fromEnv(final Map<String, String> env, final String name)
    {
        final EnvRendezvous rendezvous = EnvRendezvous.from(env);
        final CommunicatorContext context = new CommunicatorContext().rank(rendezvous.rank())
            .size(rendezvous.worldSize()).name(name);
        if (null == System.getProperty(CollectivesConfiguration.HOST_ADDRESS_PROP_NAME))
        {
            context.hostAddress(rendezvous.localAddress());
        }
        final RendezvousStore store = rendezvous.connect(RendezvousStore.DEFAULT_TIMEOUT);
        try
        {
            context.store(store);
            final Communicator world = HeapResources.createWorld(context);
            return create(world, ShmemOptions.from(context), true, store);
        }
        catch (final RuntimeException ex)
        {
            store.close();
            throw ex;
        }
    }

    private static SymmetricHeap create(final Communicator world, final ShmemOptions options,
        final boolean ownsWorld, final RendezvousStore store)
    {
        options.conclude();
        try
        {
            return new SymmetricHeap(world, ownsWorld, store, options);
        }
        catch (final RuntimeException ex)
        {
            throw HeapResources.setUpFailure(world, ownsWorld, ex);
        }
    }

    // ---------------------------------------------------------------- queries

    /** @return this PE's number, {@code [0, nPes())}. */
    public int myPe()
    {
        return me;
    }

    /** @return the number of PEs. */
    public int nPes()
    {
        return size;
    }

    /**
     * @param pe a PE.
     * @return true when it is reached by direct load/store (itself, or a same-host PE with peer memory).
     */
    public boolean isDirect(final int pe)
    {
        checkPe(pe);
        return pe == me || mesh.isDirect(pe);
    }

    /**
     * @param pe another PE.
     * @return the provider reaching it ({@code shm}, {@code tcp}), or null for this PE.
     */
    public String transport(final int pe)
    {
        checkPe(pe);
        return pe == me ? null : mesh.transport(pe);
    }

    /** @return the team of all PEs. */
    public ShmemTeam teamWorld()
    {
        return teamWorld;
    }

    /** @return the settings. */
    public ShmemOptions options()
    {
        return options;
    }

    /** @return true once a call failed for good (see the class comment). */
    public boolean isFailed()
    {
        return failure.isFailed();
    }

    // ---------------------------------------------------------------- memory

    /**
     * Allocates a symmetric object: the same number of bytes on every PE, zeroed. Collective (every PE calls it in
     * the same order with the same size).
     *
     * @param bytes size, 1 to {@link #MAX_ALLOCATION}; rounded up to a multiple of 8.
     * @return the object.
     * @throws IllegalArgumentException for a bad size, or when the PEs asked for different sizes.
     */
    public SymmetricMemory allocate(final long bytes)
    {
        ensureUsable();
        if (bytes < 1 || bytes > MAX_ALLOCATION)
        {
            throw new IllegalArgumentException("allocation of " + bytes + " bytes, must be in [1, " +
                MAX_ALLOCATION + "]");
        }
        final int length = (int)((bytes + 7) & ~7L);
        return SymmetricAllocator.allocate(this, world, mesh, length);
    }

    /**
     * Frees a symmetric object. Collective: a quiet and a barrier first, so no PE still accesses it.
     *
     * @param memory an object of this heap.
     */
    public void free(final SymmetricMemory memory)
    {
        checkMemory(memory);
        barrierAll();
        registrations.remove(memory);
        memory.release();
    }

    /**
     * Waits for a signal ({@code nvshmem_signal_wait_until}) with the heap's operation timeout.
     *
     * @param sig       symmetric object holding the signal word (this PE's copy is read).
     * @param sigOffset its offset, a multiple of 8.
     * @param cmp       comparison.
     * @param value     value compared with.
     * @return the signal's value that satisfied the comparison.
     * @throws ShmemException TIMEOUT, or PEER_FAILED when a PE failed.
     */
    public long signalWait(final SymmetricMemory sig, final long sigOffset, final Cmp cmp, final long value)
    {
        return waitFor(sig, sigOffset, cmp, value, options.opTimeoutNs(), "signalWait");
    }

    /**
     * @param sig       symmetric object holding the signal word.
     * @param sigOffset its offset, a multiple of 8.
     * @return this PE's signal value ({@code nvshmem_signal_fetch}), read volatile.
     */
    public long signalFetch(final SymmetricMemory sig, final long sigOffset)
    {
        checkWord(sig, sigOffset, me);
        return sig.local().getLongVolatile((int)sigOffset);
    }

    // ---------------------------------------------------------------- waiting, ordering, synchronisation

    /**
     * Waits until this PE's copy of the word satisfies {@code ivar <cmp> value} ({@code nvshmem_long_wait_until}),
     * with the heap's operation timeout.
     *
     * @param ivar   symmetric object holding the word.
     * @param offset its offset, a multiple of 8.
     * @param cmp    comparison.
     * @param value  value compared with.
     * @return the value that satisfied it.
     * @throws ShmemException TIMEOUT, or PEER_FAILED when a PE failed.
     */
    public long waitUntil(final SymmetricMemory ivar, final long offset, final Cmp cmp, final long value)
    {
        return waitFor(ivar, offset, cmp, value, options.opTimeoutNs(), "waitUntil");
    }

    /**
     * As {@link #waitUntil(SymmetricMemory, long, Cmp, long)} with an explicit timeout. When it returns, every
     * store a PE made before the update that satisfied the comparison (its puts before a fence or a put-with-signal,
     * its direct stores before a release) is visible here.
     *
     * @param ivar      symmetric object holding the word.
     * @param offset    its offset, a multiple of 8.
     * @param cmp       comparison.
     * @param value     value compared with.
     * @param timeoutNs limit.
     * @return the value that satisfied it.
     * @throws ShmemException TIMEOUT (the heap stays usable), or PEER_FAILED when a PE failed.
     */
    public long waitUntil(final SymmetricMemory ivar, final long offset, final Cmp cmp, final long value,
        final long timeoutNs)
    {
        return waitFor(ivar, offset, cmp, value, timeoutNs, "waitUntil");
    }

    private long waitFor(final SymmetricMemory ivar, final long offset, final Cmp cmp, final long value,
        final long timeoutNs, final String what)
    {
        checkWord(ivar, offset, me);
        final AtomicBuffer local = ivar.local();
        final int index = (int)offset;
        long seen = local.getLongVolatile(index);
        if (cmp.test(seen, value))
        {
            return seen;
        }
        waiter.begin(timeoutNs);
        while (true)
        {
            // polling drives the verbs path (our own requests' completions, tcp polling mode's socket reads)
            waiter.idle(anyVerbsPeer ? verbs.poll() : 0, what, -1);
            seen = local.getLongVolatile(index);
            if (cmp.test(seen, value))
            {
                return seen;
            }
        }
    }

    /**
     * Orders, per target PE, this PE's puts, non-fetching atomics and put-with-signals before the fence ahead of
     * those after it ({@code nvshmem_fence}). Waits for nothing: on the direct path it is a store-store fence, on the
     * verbs path the queue pair already places requests to one PE in posting order.
     */
    public void fence()
    {
        ensureUsable();
        VarHandle.releaseFence();
    }

    /**
     * Waits until every put, atomic, put-with-signal and non-blocking get this PE issued is complete
     * ({@code nvshmem_quiet}): the data is in the targets' memory, non-blocking gets' destinations are filled, and
     * nbi sources are free.
     *
     * @throws ShmemException on failure or after the operation timeout.
     */
    public void quiet()
    {
        ensureUsable();
        VarHandle.fullFence();
        if (null != verbs)
        {
            verbs.quiet(options.opTimeoutNs());
        }
    }

    /**
     * Quiet, then a barrier of all PEs ({@code nvshmem_barrier_all}): when it returns, every PE's earlier operations
     * are complete and visible to all.
     *
     * @throws ShmemException PEER_FAILED if a PE failed.
     */
    public void barrierAll()
    {
        teamWorld.barrier();
    }

    /**
     * A barrier of all PEs without quiet ({@code nvshmem_sync_all}): orders local stores (and direct-path puts, which
     * are stores), not the completion of verbs-path operations.
     *
     * @throws ShmemException PEER_FAILED if a PE failed.
     */
    public void syncAll()
    {
        teamWorld.sync();
    }

    /**
     * Splits a team by stride ({@code nvshmem_team_split_strided}): the members are the parent's PEs
     * {@code start, start + stride, ..., start + (size - 1) * stride}. Collective over the parent team.
     *
     * @param parent the parent team.
     * @param start  first member (parent numbering).
     * @param stride distance between members, at least 1.
     * @param size   number of members, at least 1.
     * @return the new team on its members, null on the other PEs.
     */
    public ShmemTeam teamSplitStrided(final ShmemTeam parent, final int start, final int stride, final int size)
    {
        return parent.split(start, stride, size);
    }

    // ---------------------------------------------------------------- life cycle

    /**
     * Closes the heap: quiet and a barrier (when healthy), so no PE tears down while others still access it; then
     * frees every symmetric object, the connections and, if the heap created it, the world communicator.
     * Collective. Idempotent.
     */
    public void close()
    {
        if (resources.isReleased())
        {
            return;
        }
        if (!failure.isFailed())
        {
            try
            {
                barrierAll();
            }
            catch (final ShmemException ignore)
            {
                // a peer failing at close time no longer matters to this PE
            }
        }
        resources.release();
    }

    /**
     * Abandons the heap without a barrier (not collective): frees everything; the peers see this PE as failed
     * (their blocked and later calls throw PEER_FAILED). Call it from the heap's thread. Idempotent.
     */
    public void abort()
    {
        if (resources.isReleased())
        {
            return;
        }
        failure.fail(ShmemException.Reason.CLOSED, me, "the heap was aborted", null);
        resources.release();
    }

    // ---------------------------------------------------------------- for the parts

    int primaryDevice()
    {
        return null == mesh ? 0 : mesh.primaryDevice();
    }

    void register(final SymmetricMemory memory)
    {
        registrations.add(memory);
    }

    HeapFailure failureState()
    {
        return failure;
    }

    /** Turns a communicator failure into the heap's failure and returns it (to throw). */
    ShmemException communicatorFailure(final RuntimeException ex)
    {
        if (ex instanceof ShmemException)
        {
            return (ShmemException)ex;
        }
        final int pe = ex instanceof CollectiveException ? ((CollectiveException)ex).peer() : -1;
        return failure.fail(ShmemException.Reason.PEER_FAILED, pe, "a collective step failed: " + ex.getMessage(),
            ex);
    }

    void ensureUsable()
    {
        failure.check();
    }

    static CommBuffer commBuffer(final SymmetricMemory memory, final long offset, final long bytes)
    {
        return CommBuffer.of(memory.region(memory.heap().primaryDevice()), offset, bytes);
    }
}
