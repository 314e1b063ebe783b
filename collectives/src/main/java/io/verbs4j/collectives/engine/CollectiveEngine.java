// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.collectives.Algorithm;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.algorithm.AlgorithmSelector;
import io.verbs4j.collectives.algorithm.Calibration;
import io.verbs4j.collectives.algorithm.CostModel;
import io.verbs4j.collectives.algorithm.PeerMemoryAllReduce;
import io.verbs4j.collectives.algorithm.Steps;
import io.verbs4j.collectives.algorithm.Waiter;
import io.verbs4j.collectives.link.FlagLinkOffer;
import io.verbs4j.collectives.link.FlagLinks;
import io.verbs4j.collectives.link.Links;
import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.link.VerbsLinks;
import io.verbs4j.collectives.observe.OpObserver;
import io.verbs4j.collectives.topology.RingTopology;
import org.agrona.concurrent.IdleStrategy;

/**
 * Runs operations on the calling thread: validates the arguments, binds the user's buffers to {@link MemView}s
 * (registered regions and direct buffers in place, heap arrays through {@link Scratch}), picks the algorithm, runs
 * it, waits until no send still reads a user buffer, and divides for AVG. Algorithms are built once per
 * communicator; a call allocates nothing. The operations themselves are in {@code AllReduceCollectives},
 * {@code BlockCollectives} and {@code PointToPoint}; this class owns what they share: the link and algorithm sets,
 * the selector, the operation's clock and observer, and the first failure.
 * <p>
 * The first failure breaks every link (so peers fail at once instead of at their timeouts) and is kept: every later
 * call throws {@link CollectiveException.Reason#FAILED_EARLIER}. One thread at a time (the caller guarantees it).
 */
public final class CollectiveEngine implements AutoCloseable
{
    private final Links links;
    private final int rank;
    private final int size;
    private final int slotBytes;
    private final Waiter waiter;
    private final Steps steps;
    private final Scratch scratch;
    private final Algorithm defaultAlgorithm;
    private final RingTopology ring;
    private final AlgorithmSet large;
    private final long opTimeoutNs;
    private AlgorithmSet small;
    private long smallMaxBytes = -1;
    private FlagLinks flagLinks;
    /** Regions {@code Communicator.allocate} made: the ones peers on this host may map. */
    private final Set<MemoryRegion> shareable = ConcurrentHashMap.newKeySet();
    private PeerMemoryAllReduce peerMemory;
    private long peerMemoryMinBytes = -1;
    private final BufferBinder buffers;
    private final BlockCollectives blocks;
    private final AllReduceCollectives allReduces;
    private final PointToPoint pointToPoint;
    private AlgorithmSelector selector;
    private CollectiveException failure;
    private OpObserver observer = OpObserver.none();
    private long stallWarnNs;
    private long opSeq;
    private long opStartNs;

    /**
     * @param links            the links (for one rank: a link set with no peers).
     * @param slotBytes        the links' slot size.
     * @param idle             back-off of the running thread.
     * @param opTimeoutNs      operation timeout.
     * @param scratchPd        protection domain of the work memory (null for one rank).
     * @param model            initial cost model.
     * @param defaultAlgorithm the communicator's algorithm setting.
     */
    public CollectiveEngine(final Links links, final int slotBytes, final IdleStrategy idle, final long opTimeoutNs,
        final ProtectionDomain scratchPd, final CostModel model, final Algorithm defaultAlgorithm)
    {
        this.links = links;
        this.rank = links.rank();
        this.size = links.size();
        this.slotBytes = slotBytes;
        this.opTimeoutNs = opTimeoutNs;
        this.waiter = new Waiter(links, idle, opTimeoutNs);
        this.scratch = new Scratch(scratchPd);
        this.defaultAlgorithm = defaultAlgorithm;
        this.ring = RingTopology.identity(size);
        this.selector = new AlgorithmSelector(model, size, slotBytes);
        this.large = size > 1 ? new AlgorithmSet(waiter, slotBytes, ring) : null;
        this.steps = size > 1 ? large.steps : new Steps(waiter, slotBytes);
        this.buffers = new BufferBinder(scratch);
        this.blocks = new BlockCollectives(this, buffers, scratch, defaultAlgorithm);
        this.allReduces = new AllReduceCollectives(this, buffers, scratch, defaultAlgorithm);
        this.pointToPoint = new PointToPoint(this, buffers, steps, links);
    }

    /**
     * Sets up flag links to the peers on this host (collective: every rank calls it once, after creation and before
     * any operation) and from then on runs every operation of at most {@link FlagLinkOffer#maxBytes()} bytes over
     * them. Does nothing for one rank, for links that are not verbs links, or when no peer shares the host.
     *
     * @param offer this rank's flag-link settings (must match the other ranks').
     * @param idle  back-off for waits on the flag links (a fresh instance).
     * @return true when some peer is reached through a flag link.
     */
    public boolean enableFlagLinks(final FlagLinkOffer offer, final IdleStrategy idle)
    {
        if (size < 2 || !(links instanceof VerbsLinks) || null != small)
        {
            return false;
        }
        waiter.begin(OpKind.SETUP.label(), FlagLinkOffer.LENGTH, null, null, null);
        try
        {
            flagLinks = FlagLinks.establish((VerbsLinks)links, steps, offer);
        }
        catch (final CollectiveException ex)
        {
            fail(ex);
            throw ex;
        }
        if (null == flagLinks)
        {
            return false;
        }
        final Waiter flagWaiter = new Waiter(flagLinks, idle, opTimeoutNs);
        flagWaiter.stallWarning(stallWarnNs);
        // Both waiters keep the heartbeats going, so a timeout names the silent rank whatever links it ran on.
        waiter.watch(flagLinks.heartbeats());
        flagWaiter.watch(flagLinks.heartbeats());
        small = new AlgorithmSet(flagWaiter, offer.layout().slotBytes(), ring);
        smallMaxBytes = offer.maxBytes();
        return true;
    }

    /**
     * Turns on the single-copy AllReduce among ranks that all share a host ({@link PeerMemoryAllReduce}) for
     * {@link Algorithm#AUTO} calls of at least {@code minBytes} (collective: every rank calls it with the same value,
     * after {@link #enableFlagLinks}). Does nothing without flag links to every peer.
     *
     * @param minBytes smallest call in bytes; negative: never.
     * @return true when it is on.
     */
    public boolean enablePeerMemory(final long minBytes)
    {
        if (minBytes < 0 || null == small || null != peerMemory || !(links instanceof VerbsLinks))
        {
            return false;
        }
        peerMemory = PeerMemoryAllReduce.over((VerbsLinks)links, flagLinks, small.steps, shareable);
        peerMemoryMinBytes = minBytes;
        return null != peerMemory;
    }

    /**
     * Lets peers on this host map a region for single-copy operations (any thread; regions closed since are
     * forgotten here).
     *
     * @param region a region of the communicator's protection domain, registered with REMOTE_READ.
     */
    public void share(final MemoryRegion region)
    {
        shareable.removeIf(r -> !r.isOpen());
        shareable.add(region);
    }

    /** @return the single-copy AllReduce, or null when it is off (tests, diagnostics). */
    public PeerMemoryAllReduce peerMemory()
    {
        return peerMemory;
    }

    /** @return the smallest AllReduce in bytes that runs single-copy, once {@link #peerMemory()} is on. */
    long peerMemoryMinBytes()
    {
        return peerMemoryMinBytes;
    }

    /** @return the largest operation in bytes that runs over flag links, or -1 when there are none. */
    public long flagLinkMaxBytes()
    {
        return smallMaxBytes;
    }

    /** @return the peers reached through flag links (0 when there are none). */
    public int flagLinkPeers()
    {
        return null != flagLinks && null != small ? flagLinks.flagPeerCount() : 0;
    }

    private AlgorithmSet set(final long bytes)
    {
        return null != small && bytes <= smallMaxBytes ? small : large;
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

    /** @return the selector (and its model). */
    public AlgorithmSelector selector()
    {
        return selector;
    }

    /** @return the first failure, or null. */
    public CollectiveException failure()
    {
        return failure;
    }

    /** Asks the running or next operation to fail with ABORTED (any thread). */
    public void requestAbort()
    {
        waiter.requestAbort();
        final AlgorithmSet flag = small;
        if (null != flag)
        {
            flag.waiter.requestAbort();
        }
    }

    /**
     * @param override the caller's algorithm (AUTO: the communicator's default, then the model).
     * @param bytes    message size.
     * @return what an AllReduce of that size runs.
     */
    public Algorithm allReduceAlgorithm(final Algorithm override, final long bytes)
    {
        return selector.allReduce(Algorithm.AUTO != override ? override : defaultAlgorithm, bytes);
    }

    /**
     * Installs a cost model measured before (by the communicator this one was shrunk from), instead of calibrating.
     * Every rank must install the same model, as after a calibration: algorithm choices must agree.
     *
     * @param model the model.
     */
    public void useModel(final CostModel model)
    {
        selector = new AlgorithmSelector(model, size, slotBytes);
    }

    /**
     * Measures the cost model on the ring and installs it (collective: every rank calls it at creation).
     */
    public void calibrate()
    {
        if (size < 2)
        {
            return;
        }
        waiter.begin(OpKind.CALIBRATE.label(), slotBytes, null, null, null);
        try
        {
            final CostModel model = new Calibration(steps, ring).run(scratch.view(Scratch.WORK, slotBytes),
                slotBytes, selector.model());
            selector = new AlgorithmSelector(model, size, slotBytes);
        }
        catch (final CollectiveException ex)
        {
            fail(ex);
            throw ex;
        }
    }

    /**
     * Checks a request's arguments without running it (what {@link #execute} checks first); any thread.
     *
     * @param r the arguments.
     * @throws IllegalArgumentException naming the bad argument.
     */
    public void validate(final OpRequest r)
    {
        Validation.check(r, rank, size);
    }

    /**
     * Runs one operation to completion.
     *
     * @param r the arguments.
     * @throws IllegalArgumentException for bad arguments (the communicator stays usable).
     * @throws CollectiveException      if the operation failed (the communicator is failed).
     */
    public void execute(final OpRequest r)
    {
        Validation.check(r, rank, size);
        if (null != failure)
        {
            throw new CollectiveException(CollectiveException.Reason.FAILED_EARLIER, rank, failure.peer(),
                "rank " + rank + ": " + r.kind.label() + " refused: the communicator failed earlier: " +
                failure.getMessage(), failure);
        }
        opStartNs = System.nanoTime();
        opSeq = observer.begin(r.kind.label(), bytesOf(r), opStartNs);
        try
        {
            if (waiter.abortRequested())
            {
                waiter.begin(r.kind.label(), opSeq, opStartNs, 0, null, null, null);
                throw waiter.failure(CollectiveException.Reason.ABORTED, -1, "communicator aborted");
            }
            dispatch(r);
            if (size > 1)
            {
                steps.awaitSendsComplete();
                if (null != small)
                {
                    small.steps.awaitSendsComplete();
                }
            }
            observer.completed(allReduces.algorithmOf(r));
        }
        catch (final CollectiveException ex)
        {
            fail(ex);
            observer.failed(allReduces.algorithmOf(r), ex);
            throw ex;
        }
        catch (final RuntimeException ex)
        {
            final CollectiveException wrapped = new CollectiveException(CollectiveException.Reason.INTERNAL, rank, -1,
                "rank " + rank + ": " + r.kind.label() + " failed unexpectedly: " + ex, ex);
            fail(wrapped);
            observer.failed(allReduces.algorithmOf(r), wrapped);
            throw wrapped;
        }
    }

    /**
     * Sets after how long a waiting operation is reported as stalled (once, while it goes on waiting).
     *
     * @param ns threshold, 0 for none.
     */
    public void stallWarning(final long ns)
    {
        stallWarnNs = ns;
        waiter.stallWarning(ns);
        if (null != small)
        {
            small.waiter.stallWarning(ns);
        }
    }

    /**
     * Sets who watches the operations (history, Flight Recorder events, failure log); by default nobody.
     *
     * @param observer the observer.
     */
    public void observer(final OpObserver observer)
    {
        this.observer = observer;
    }

    /** @return who watches the operations. */
    public OpObserver observer()
    {
        return observer;
    }

    private static long bytesOf(final OpRequest r)
    {
        if (null == r.type)
        {
            return 0;
        }
        if (OpKind.ALL_REDUCE_FUSED == r.kind && null != r.fusedCounts)
        {
            long count = 0;
            for (final long c : r.fusedCounts)
            {
                count += c;
            }
            return count * r.type.sizeBytes();
        }
        return r.count * r.type.sizeBytes();
    }

    private void fail(final CollectiveException ex)
    {
        if (null == failure)
        {
            failure = ex;
            (null != flagLinks ? flagLinks : links).breakAll(ex.peer());
        }
    }

    /**
     * Before the final barrier of {@code close()} runs over the flag links, tells each flag-link peer on its verbs
     * link too that this rank leaves. A peer inside an operation above the flag-link size waits on its verbs link
     * and never looks at the flag link: without this it would wait for its timeout (and this rank's barrier with
     * it), with it the peer finds the leave message where it expected data and fails at once with PEER_LEFT. A
     * peer that is closing as well never reads it (its barrier runs over the flag links). Best effort: a link
     * without credit is skipped, and the barrier follows as before.
     */
    private void announceLeaveOnVerbs()
    {
        for (int peer = 0; peer < size; peer++)
        {
            if (peer != rank && flagLinks.isFlagPeer(peer))
            {
                final PeerLink link = links.link(peer);
                if (!link.isFailed())
                {
                    link.trySend(null, 0, PeerLink.LEAVE);
                }
            }
        }
    }

    private void dispatch(final OpRequest r)
    {
        switch (r.kind)
        {
            case ALL_REDUCE:
                allReduces.allReduce(r);
                break;
            case ALL_REDUCE_FUSED:
                allReduces.allReduceFused(r);
                break;
            case BROADCAST:
                blocks.broadcast(r);
                break;
            case REDUCE:
                blocks.reduce(r);
                break;
            case ALL_GATHER:
                blocks.allGather(r);
                break;
            case REDUCE_SCATTER:
                blocks.reduceScatter(r);
                break;
            case ALL_TO_ALL:
                blocks.allToAll(r);
                break;
            case GATHER:
                blocks.gather(r);
                break;
            case SCATTER:
                blocks.scatter(r);
                break;
            case BARRIER:
                if (size > 1)
                {
                    final AlgorithmSet s = set(0);
                    s.waiter.begin(r.kind.label(), opSeq, opStartNs, 0, null, null, null);
                    if (r.leaving && s == small)
                    {
                        announceLeaveOnVerbs();
                    }
                    s.barrier.run(r.leaving);
                }
                else
                {
                    waiter.begin(r.kind.label(), opSeq, opStartNs, 0, null, null, null);
                }
                break;
            case SEND:
            case RECV:
            case SEND_RECV:
                pointToPoint.run(r);
                break;
            default:
                throw new IllegalArgumentException("not an operation: " + r.kind);
        }
    }

    /**
     * Starts the clock of an operation in the set its size selects.
     *
     * @return that set (null for one rank).
     */
    AlgorithmSet begin(final OpRequest r, final long bytes, final Object detailA, final Object detailB,
        final Object detailC)
    {
        final AlgorithmSet s = size > 1 ? set(bytes) : null;
        (null != s ? s.waiter : waiter).begin(r.kind.label(), opSeq, opStartNs, bytes, detailA, detailB, detailC);
        return s;
    }

    /** Starts the clock of an operation on the communicator's links whatever its size (point-to-point). */
    void beginOnLinks(final OpRequest r, final long bytes, final Object detailA, final Object detailB,
        final Object detailC)
    {
        waiter.begin(r.kind.label(), opSeq, opStartNs, bytes, detailA, detailB, detailC);
    }

    /** Starts the clock of an operation on the flag links whatever its size (the single-copy AllReduce). */
    void beginOnFlagLinks(final OpRequest r, final long bytes, final Object detailA, final Object detailB,
        final Object detailC)
    {
        small.waiter.begin(r.kind.label(), opSeq, opStartNs, bytes, detailA, detailB, detailC);
    }

    /** Frees the work memory (the links are closed by their owner). */
    public void close()
    {
        try
        {
            if (null != peerMemory)
            {
                peerMemory.close();
            }
            if (null != flagLinks)
            {
                flagLinks.close();
            }
        }
        finally
        {
            scratch.close();
        }
    }
}
