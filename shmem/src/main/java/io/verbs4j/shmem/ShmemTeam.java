// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * A team: an ordered subset of a heap's PEs ({@code nvshmem_team_t}), numbered {@code 0..nPes()-1}, with its own
 * barrier and collectives on symmetric objects. The world team comes from {@link SymmetricHeap#teamWorld()}; others
 * from {@link #split(int, int, int)}. A team is a communicator of its members (a split of the parent's), so its
 * collectives are the collectives module's algorithms (bit-identical results on every member); one-sided calls
 * still take world PE numbers ({@link #worldPe(int)} translates).
 * <p>
 * Collective calls: every member calls them in the same order with the same arguments. Threading as the heap's.
 * Failures are the heap's: a member that dies fails the team's calls (and the heap) with
 * {@link ShmemException.Reason#PEER_FAILED}.
 */
public final class ShmemTeam implements AutoCloseable
{
    private final SymmetricHeap heap;
    private final Communicator comm;
    private final boolean owned;
    private final int[] worldPes;

    ShmemTeam(final SymmetricHeap heap, final Communicator comm, final boolean owned, final int[] worldPes)
    {
        this.heap = heap;
        this.comm = comm;
        this.owned = owned;
        this.worldPes = worldPes;
    }

    /** @return this PE's number in the team. */
    public int myPe()
    {
        return comm.rank();
    }

    /** @return the number of members. */
    public int nPes()
    {
        return worldPes.length;
    }

    /**
     * @param teamPe a member's number in this team.
     * @return its world PE number (for the heap's one-sided calls).
     */
    public int worldPe(final int teamPe)
    {
        return worldPes[teamPe];
    }

    /**
     * Splits by stride ({@code nvshmem_team_split_strided}). Collective over this team.
     *
     * @param start  first member, in this team's numbering.
     * @param stride distance between members, at least 1.
     * @param size   members, at least 1, all inside this team.
     * @return the new team on its members, null on the others.
     * @throws IllegalArgumentException if the members do not fit in this team.
     */
    public ShmemTeam split(final int start, final int stride, final int size)
    {
        heap.ensureUsable();
        if (start < 0 || stride < 1 || size < 1 || start + (long)(size - 1) * stride >= nPes())
        {
            throw new IllegalArgumentException("team of " + size + " members from " + start + " by " + stride +
                " does not fit in a team of " + nPes());
        }
        final int mine = myPe();
        final boolean member = mine >= start && 0 == (mine - start) % stride && (mine - start) / stride < size;
        final int[] members = new int[size];
        for (int i = 0; i < size; i++)
        {
            members[i] = worldPes[start + i * stride];
        }
        final Communicator sub;
        try
        {
            sub = comm.split(member ? 0 : -1, member ? (mine - start) / stride : 0);
        }
        catch (final RuntimeException ex)
        {
            throw heap.communicatorFailure(ex);
        }
        return member ? new ShmemTeam(heap, sub, true, members) : null;
    }

    /**
     * Quiet, then a barrier of the members ({@code nvshmem_team_barrier}): when it
     * returns, the members' earlier operations are complete and visible.
     */
    public void barrier()
    {
        heap.quiet();
        sync();
    }

    /** A barrier of the members without quiet ({@code nvshmem_team_sync}). */
    public void sync()
    {
        heap.ensureUsable();
        try
        {
            comm.barrier();
        }
        catch (final RuntimeException ex)
        {
            throw heap.communicatorFailure(ex);
        }
    }

    /**
     * Broadcast ({@code nvshmem_broadcastmem}): the root's {@code bytes} at {@code srcOffset} of {@code src} land at
     * {@code destOffset} of {@code dest} on every member, the root included. Returns when this member's part is
     * done (its dest filled, or, at the root, its data sent).
     *
     * @param dest       symmetric destination.
     * @param destOffset offset in it.
     * @param src        symmetric source (read at the root only).
     * @param srcOffset  offset in it.
     * @param bytes      bytes.
     * @param root       the root, in this team's numbering.
     */
    public void broadcast(final SymmetricMemory dest, final long destOffset, final SymmetricMemory src,
        final long srcOffset, final long bytes, final int root)
    {
        checkRange(dest, destOffset, bytes);
        checkRange(src, srcOffset, bytes);
        if (root < 0 || root >= nPes())
        {
            throw new IllegalArgumentException("root " + root + " is not in [0, " + nPes() + ")");
        }
        if (myPe() == root && (dest != src || destOffset != srcOffset) && bytes > 0)
        {
            dest.local().putBytes((int)destOffset, src.local(), (int)srcOffset, (int)bytes);
        }
        try
        {
            comm.broadcast(SymmetricHeap.commBuffer(dest, destOffset, bytes), bytes, DataType.INT8, root);
        }
        catch (final RuntimeException ex)
        {
            throw heap.communicatorFailure(ex);
        }
    }

    /**
     * Reduction to all members ({@code nvshmem_<type>_<op>_reduce}): element-wise {@code op} over the members'
     * {@code count} elements at {@code srcOffset} of {@code src}, stored at {@code destOffset} of {@code dest} on
     * every member; bit-identical everywhere. {@code dest} may equal {@code src} (in place).
     *
     * @param dest       symmetric destination.
     * @param destOffset offset in it.
     * @param src        symmetric source.
     * @param srcOffset  offset in it.
     * @param count      elements.
     * @param type       element type.
     * @param op         operator.
     */
    public void reduce(final SymmetricMemory dest, final long destOffset, final SymmetricMemory src,
        final long srcOffset, final long count, final DataType type, final ReduceOp op)
    {
        final long bytes = count * type.sizeBytes();
        checkRange(dest, destOffset, bytes);
        checkRange(src, srcOffset, bytes);
        try
        {
            comm.allReduce(SymmetricHeap.commBuffer(src, srcOffset, bytes),
                SymmetricHeap.commBuffer(dest, destOffset, bytes), count, type, op);
        }
        catch (final RuntimeException ex)
        {
            throw heap.communicatorFailure(ex);
        }
    }

    /**
     * Concatenation ({@code nvshmem_fcollectmem}): member i's {@code bytes} at {@code srcOffset} of {@code src}
     * land at {@code destOffset + i * bytes} of {@code dest} on every member.
     *
     * @param dest       symmetric destination ({@code nPes() * bytes} from {@code destOffset}).
     * @param destOffset offset in it.
     * @param src        symmetric source.
     * @param srcOffset  offset in it.
     * @param bytes      bytes per member.
     */
    public void fcollect(final SymmetricMemory dest, final long destOffset, final SymmetricMemory src,
        final long srcOffset, final long bytes)
    {
        checkRange(dest, destOffset, bytes * nPes());
        checkRange(src, srcOffset, bytes);
        try
        {
            comm.allGather(SymmetricHeap.commBuffer(src, srcOffset, bytes),
                SymmetricHeap.commBuffer(dest, destOffset, bytes * nPes()), bytes, DataType.INT8);
        }
        catch (final RuntimeException ex)
        {
            throw heap.communicatorFailure(ex);
        }
    }

    /**
     * Personalised exchange ({@code nvshmem_alltoallmem}): block j ({@code bytes} at {@code srcOffset + j * bytes})
     * of member i's {@code src} lands as block i of member j's {@code dest}.
     *
     * @param dest       symmetric destination ({@code nPes() * bytes} from {@code destOffset}).
     * @param destOffset offset in it.
     * @param src        symmetric source ({@code nPes() * bytes} from {@code srcOffset}).
     * @param srcOffset  offset in it.
     * @param bytes      bytes per block.
     */
    public void alltoall(final SymmetricMemory dest, final long destOffset, final SymmetricMemory src,
        final long srcOffset, final long bytes)
    {
        checkRange(dest, destOffset, bytes * nPes());
        checkRange(src, srcOffset, bytes * nPes());
        try
        {
            comm.allToAll(SymmetricHeap.commBuffer(src, srcOffset, bytes * nPes()),
                SymmetricHeap.commBuffer(dest, destOffset, bytes * nPes()), bytes, DataType.INT8);
        }
        catch (final RuntimeException ex)
        {
            throw heap.communicatorFailure(ex);
        }
    }

    /** Frees the team's communicator (collective over its members); the world team is the heap's and stays. */
    public void close()
    {
        if (owned)
        {
            comm.close();
        }
    }

    private void checkRange(final SymmetricMemory memory, final long offset, final long bytes)
    {
        heap.ensureUsable();
        heap.checkMemory(memory);
        if (offset < 0 || bytes < 0 || offset + bytes > memory.length())
        {
            throw new IllegalArgumentException("bytes [" + offset + ", " + (offset + bytes) + ") are outside the " +
                memory.length() + "-byte symmetric object");
        }
    }
}
