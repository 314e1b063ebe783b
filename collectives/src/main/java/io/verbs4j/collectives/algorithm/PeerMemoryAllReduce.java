// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import java.nio.ByteBuffer;
import java.util.Set;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QueuePair;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.link.FlagLinks;
import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.link.PeerLink;
import io.verbs4j.collectives.link.PeerRegionMaps;
import io.verbs4j.collectives.link.VerbsLinks;
import io.verbs4j.collectives.link.VerbsPeerLink;
import io.verbs4j.collectives.topology.Partition;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.collectives.types.Reductions;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * AllReduce of ranks that share a host, by reading each other's buffers in place (single copy; Open MPI xhc and
 * NCCL's shared-memory paths work this way): every rank reduces its own slice straight from all ranks' send
 * buffers, then copies the other slices straight from their owners' receive buffers. Nothing goes through an inbox,
 * and no rank writes another's memory: on this 2-core machine a store into lines the other core holds cost several
 * times a load of them (cross-core invalidations), and the inbox protocol paid one store and one load per byte per
 * hop.
 * <p>
 * Per call, over the flag links (small messages, in order per peer):
 * <ol>
 *   <li><b>describe</b> ({@link #DESCRIPTOR_BYTES} bytes to every peer): the call's byte count and, when this rank's
 *       buffers can be mapped (regions the communicator allocated, with REMOTE_READ, contiguous, send and receive
 *       disjoint), their rkeys and addresses. Every rank sees every description, so all decide alike:
 *       if any rank's buffers cannot be mapped, {@link #run} returns false on every rank and the caller runs its
 *       usual algorithm.</li>
 *   <li><b>reduce</b> slice {@code r} ({@link Partition} of the elements): {@code recv_r = send_0 op send_1 op ...
 *       op send_(n-1)}, always in rank order, in blocks of {@link #BLOCK_BYTES}; then <b>reduced</b> to every peer.
 *       Each element's final value is computed once, on one rank, in a fixed order, and copied: every rank gets
 *       the same bits, run after run.</li>
 *   <li><b>gather</b>: after a peer's <i>reduced</i>, copy its slice from its receive buffer; then <b>done</b> to
 *       every peer, and wait for every peer's <i>done</i> before returning (until then peers may read this rank's
 *       buffers, so the caller must not touch them).</li>
 * </ol>
 * At two ranks the schedule is <b>one shot</b> instead (TensorRT-LLM's and NCCL's one-shot all-reduce): after
 * describe, each rank reduces the whole buffer, reading the other's send buffer in place, then done. The same fold
 * in the same order on both ranks gives the same bits; no result crosses between the cores, and no store lands on a
 * line the other core read, for the price of reducing twice as many elements: up to {@link #ONE_SHOT_MAX_BYTES}.
 * <p>
 * Out of place only (send and receive disjoint): in place, gathering a slice stores into lines the slice's owner
 * has just read from this rank's buffer, and each such store waits for a cross-core invalidation; measured on this
 * machine, a 1 MiB call in place took 143 µs this way against 99 µs with the ring, while out of place it took
 * 75-78 µs against 98 (and 307-365 against 619-654 µs while the two cores sat on different dies). An in-place
 * call describes its buffers as not mappable, so every rank hands it back alike.
 * <p>
 * Single-threaded (the operation's thread); allocation-free once the peers' buffers are mapped.
 */
public final class PeerMemoryAllReduce implements AutoCloseable
{
    /** The algorithm's name in messages and logs. */
    public static final String NAME = "PEER_MEMORY";
    /**
     * Bytes of a description:
     * <pre>
     *   0  byte count (8)          8  eligible (4) | unused (4)
     *  16  send buffer (32)       48  receive buffer (32): each rkey (4) | unused (4) | region address (8) |
     *                                 region length (8) | address of the buffer's first byte (8)
     * </pre>
     */
    public static final int DESCRIPTOR_BYTES = 80;
    /**
     * Largest call of two ranks that runs one shot. Measured (1 MiB, two ranks, fast mode = cores sharing a cache,
     * slow = on two dies): one shot 78-112 µs in either mode (send buffers unchanged between calls, as benchmarks
     * run them; a buffer rewritten every call pays its crossing again); two shots 72-85 fast, 287-380 slow; the ring
     * 97-128 fast, 590-654 slow. At 4 MiB one shot took 355-524 µs against two shots' 228-333 in fast mode: past the
     * second-level cache, reducing twice the elements costs more than the result's crossing saves.
     */
    static final long ONE_SHOT_MAX_BYTES = 1024 * 1024;
    /** Reduction block: the partial result stays in the first-level cache while every rank's operand is added. */
    static final int BLOCK_BYTES = 16 * 1024;

    private static final int SIGNAL_BYTES = 8;
    private static final long REDUCED = 0x5645_5242_5344_5544L;
    private static final long DONE = 0x5645_5242_5344_4F4EL;
    private static final int ELIGIBLE = 1;
    private static final int ELIGIBLE_OFFSET = 8;
    private static final int SEND_OFFSET = 16;
    private static final int RECV_OFFSET = 48;

    private final Steps steps;
    private final PeerRegionMaps maps;
    private final ProtectionDomain pd;
    private final Set<MemoryRegion> shareable;
    private final int rank;
    private final int size;
    private final ByteBuffer outMemory = ByteBuffer.allocateDirect(DESCRIPTOR_BYTES + SIGNAL_BYTES);
    private final UnsafeBuffer out = new UnsafeBuffer(outMemory);
    private final MemView descriptorView = new MemView();
    private final MemView signalView = new MemView();
    private final long[] sendAddress;
    private final long[] recvAddress;
    private final boolean[] eligible;
    private final long[] peerBytes;
    private final BufferDescription[] peerSends;
    private final BufferDescription[] peerRecvs;
    private long calls;
    private long oneShotCalls;
    private long fallbacks;

    /**
     * @param steps     primitives over the flag links (every peer must be a flag peer).
     * @param maps      the peers' regions, mapped through their verbs queue pairs.
     * @param pd        the protection domain those queue pairs belong to.
     * @param shareable regions the communicator allocated (mappable by peers); read, never changed here.
     */
    public PeerMemoryAllReduce(final Steps steps, final PeerRegionMaps maps, final ProtectionDomain pd,
        final Set<MemoryRegion> shareable)
    {
        this.steps = steps;
        this.maps = maps;
        this.pd = pd;
        this.shareable = shareable;
        this.rank = steps.links().rank();
        this.size = steps.links().size();
        this.sendAddress = new long[size];
        this.recvAddress = new long[size];
        this.eligible = new boolean[size];
        this.peerBytes = new long[size];
        this.peerSends = new BufferDescription[size];
        this.peerRecvs = new BufferDescription[size];
        for (int q = 0; q < size; q++)
        {
            peerSends[q] = new BufferDescription();
            peerRecvs[q] = new BufferDescription();
        }
        final long base = BufferUtil.address(outMemory);
        descriptorView.wrapNative(base, DESCRIPTOR_BYTES);
        signalView.wrapNative(base + DESCRIPTOR_BYTES, SIGNAL_BYTES);
    }

    /**
     * @param verbs     the communicator's verbs links (their queue pairs map the peers' regions).
     * @param flags     its flag links.
     * @param flagSteps primitives over the flag links.
     * @param shareable regions the communicator allocated.
     * @return the algorithm, or null unless every peer is a flag peer reached through queue pairs of one protection
     * domain and a description fits a flag slot.
     */
    public static PeerMemoryAllReduce over(final VerbsLinks verbs, final FlagLinks flags, final Steps flagSteps,
        final Set<MemoryRegion> shareable)
    {
        final int size = verbs.size();
        if (size < 2 || flags.flagPeerCount() != size - 1 || flagSteps.pieceBytes(DataType.INT8) < DESCRIPTOR_BYTES)
        {
            return null;
        }
        final QueuePair[] queuePairs = new QueuePair[size];
        ProtectionDomain pd = null;
        for (int q = 0; q < size; q++)
        {
            if (q == verbs.rank())
            {
                continue;
            }
            final VerbsPeerLink link = verbs.verbsLink(q);
            if (null != pd && pd != link.pd())
            {
                return null;
            }
            pd = link.pd();
            queuePairs[q] = link.queuePair();
        }
        return new PeerMemoryAllReduce(flagSteps, new PeerRegionMaps(queuePairs), pd, shareable);
    }

    /**
     * Collective: every rank calls it for the same AllReduce.
     *
     * @param send  contributions.
     * @param recv  results (may be send).
     * @param count elements (positive).
     * @param type  element type.
     * @param op    operator (AVG: sums; the caller divides after this returns).
     * @return true when done; false (on every rank alike) when some rank's buffers cannot be mapped: nothing was
     * reduced, run the usual algorithm.
     */
    public boolean run(final MemView send, final MemView recv, final long count, final DataType type,
        final ReduceOp op)
    {
        final long bytes = count * type.sizeBytes();
        describe(send, recv, bytes);
        if (!allEligible(bytes))
        {
            fallbacks++;
            return false;
        }
        calls++;
        final boolean oneShot = 2 == size && bytes <= ONE_SHOT_MAX_BYTES;
        for (int q = 0; q < size; q++)
        {
            if (q != rank)
            {
                sendAddress[q] = peerSends[q].map(maps, q, bytes);
                if (!oneShot)
                {
                    // Only two shots read the peers' receive buffers.
                    recvAddress[q] = peerRecvs[q].map(maps, q, bytes);
                }
            }
        }
        final int es = type.sizeBytes();
        if (oneShot)
        {
            // One shot: both ranks reduce everything, so no result crosses between the cores.
            reduceSlice(type, op, 0, bytes);
            oneShotCalls++;
        }
        else
        {
            twoShot(count, type, op, es);
        }
        signalAll(DONE);
        for (int i = 1; i < size; i++)
        {
            await((rank + i) % size, DONE);
        }
        return true;
    }

    private void twoShot(final long count, final DataType type, final ReduceOp op, final int es)
    {
        reduceSlice(type, op, Partition.offset(count, size, rank) * es, Partition.length(count, size, rank) * es);
        signalAll(REDUCED);
        for (int i = 1; i < size; i++)
        {
            final int q = (rank + i) % size;
            await(q, REDUCED);
            final long off = Partition.offset(count, size, q) * es;
            final long length = Partition.length(count, size, q) * es;
            if (length > 0)
            {
                UnsafeApi.copyMemory(recvAddress[q] + off, recvAddress[rank] + off, length);
            }
        }
    }

    private void describe(final MemView send, final MemView recv, final long bytes)
    {
        final boolean mine = mappable(send, bytes) && mappable(recv, bytes) && disjoint(send, recv, bytes);
        out.putLong(0, bytes);
        out.putInt(ELIGIBLE_OFFSET, mine ? ELIGIBLE : 0);
        BufferDescription.write(out, SEND_OFFSET, mine ? send : null);
        BufferDescription.write(out, RECV_OFFSET, mine ? recv : null);
        eligible[rank] = mine;
        peerBytes[rank] = bytes;
        if (mine)
        {
            sendAddress[rank] = send.nativeAddress(0);
            recvAddress[rank] = recv.nativeAddress(0);
        }
        for (int q = 0; q < size; q++)
        {
            if (q != rank)
            {
                steps.send(steps.links().link(q), descriptorView, 0, DESCRIPTOR_BYTES);
            }
        }
        for (int i = 1; i < size; i++)
        {
            final int q = (rank + i) % size;
            final PeerLink link = steps.links().link(q);
            steps.awaitMessage(link, DESCRIPTOR_BYTES);
            final long at = link.inbox().nativeAddress(link.messageOffset());
            peerBytes[q] = UnsafeApi.getLong(at);
            eligible[q] = ELIGIBLE == UnsafeApi.getInt(at + ELIGIBLE_OFFSET);
            peerSends[q].read(at + SEND_OFFSET);
            peerRecvs[q].read(at + RECV_OFFSET);
            link.release();
        }
    }

    private boolean allEligible(final long bytes)
    {
        boolean all = true;
        for (int q = 0; q < size; q++)
        {
            if (peerBytes[q] != bytes)
            {
                throw steps.waiter().failure(CollectiveException.Reason.MISMATCH, q, "rank " + q + " called " +
                    "AllReduce with " + peerBytes[q] + " bytes where this rank has " + bytes + ": the ranks called " +
                    "different counts or types");
            }
            all &= eligible[q];
        }
        return all;
    }

    private boolean mappable(final MemView view, final long bytes)
    {
        final MemoryRegion region = view.region();
        return null != region && region.isOpen() && shareable.contains(region) && view.registeredIn(pd) &&
            0 != (region.access() & Access.REMOTE_READ) && region.length() <= Integer.MAX_VALUE &&
            view.contiguousBytes(0) >= bytes;
    }

    private static boolean disjoint(final MemView send, final MemView recv, final long bytes)
    {
        final long s = send.nativeAddress(0);
        final long r = recv.nativeAddress(0);
        return s + bytes <= r || r + bytes <= s;
    }

    private void reduceSlice(final DataType type, final ReduceOp op, final long offset, final long length)
    {
        final int es = type.sizeBytes();
        for (long done = 0; done < length; done += BLOCK_BYTES)
        {
            final long n = Math.min(BLOCK_BYTES, length - done);
            final long at = offset + done;
            final long dst = recvAddress[rank] + at;
            final long elements = n / es;
            Reductions.reduce(type, op, dst, sendAddress[0] + at, sendAddress[1] + at, elements);
            for (int q = 2; q < size; q++)
            {
                Reductions.reduce(type, op, dst, dst, sendAddress[q] + at, elements);
            }
        }
    }

    private void signalAll(final long signal)
    {
        out.putLong(DESCRIPTOR_BYTES, signal);
        for (int q = 0; q < size; q++)
        {
            if (q != rank)
            {
                steps.send(steps.links().link(q), signalView, 0, SIGNAL_BYTES);
            }
        }
    }

    private void await(final int peer, final long signal)
    {
        final PeerLink link = steps.links().link(peer);
        steps.awaitMessage(link, SIGNAL_BYTES);
        final long got = UnsafeApi.getLong(link.inbox().nativeAddress(link.messageOffset()));
        link.release();
        if (got != signal)
        {
            throw steps.waiter().failure(CollectiveException.Reason.MISMATCH, peer, "rank " + peer + " sent 0x" +
                Long.toHexString(got) + " where the single-copy AllReduce expects 0x" + Long.toHexString(signal) +
                ": the ranks called different operations");
        }
    }

    /** @return calls that ran here (not handed back for buffers that cannot be mapped). */
    public long calls()
    {
        return calls;
    }

    /** @return calls of two ranks that ran one shot (each rank reducing everything). */
    public long oneShotCalls()
    {
        return oneShotCalls;
    }

    /** @return calls handed back because some rank's buffers cannot be mapped. */
    public long fallbacks()
    {
        return fallbacks;
    }

    /** Unmaps the peers' buffers. */
    public void close()
    {
        maps.close();
        BufferUtil.free(outMemory);
    }

    /** One buffer of a description (32 bytes): where a peer maps it. */
    private static final class BufferDescription
    {
        private int rkey;
        private long region;
        private long regionLength;
        private long address;

        /**
         * @param out    the description being written.
         * @param offset where the buffer's 32 bytes go.
         * @param view   the buffer, or null for zeros (not mappable).
         */
        static void write(final UnsafeBuffer out, final int offset, final MemView view)
        {
            out.putInt(offset, null == view ? 0 : view.region().rkey());
            out.putInt(offset + 4, 0);
            out.putLong(offset + 8, null == view ? 0 : view.region().address());
            out.putLong(offset + 16, null == view ? 0 : view.region().length());
            out.putLong(offset + 24, null == view ? 0 : view.iova(0));
        }

        void read(final long at)
        {
            rkey = UnsafeApi.getInt(at);
            region = UnsafeApi.getLong(at + 8);
            regionLength = UnsafeApi.getLong(at + 16);
            address = UnsafeApi.getLong(at + 24);
        }

        long map(final PeerRegionMaps maps, final int peer, final long bytes)
        {
            return maps.address(peer, rkey, region, regionLength, address, bytes);
        }
    }
}
