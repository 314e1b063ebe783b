// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import io.verbs4j.RemoteMemory;
import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.collectives.CollectivesConfiguration;
import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.algorithm.AdaptiveIdleStrategy;
import io.verbs4j.collectives.rendezvous.RendezvousStore;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * The machinery behind one {@link SymmetricHeap}'s API, from set-up to teardown: the world communicator (and
 * whether the heap owns it), the rendezvous store connection the heap opened, the {@link Waiter} of its blocking
 * calls, the {@link HeapMesh} of queue pairs, the {@link VerbsChannel} to the PEs without direct access, and the
 * live objects' {@link LocalRegistrations}. It builds them in that order (undoing the mesh if the channel cannot be
 * built), is the waiter's health check over them, and releases them in reverse order, each step running even when
 * an earlier one threw. Bootstrap failures become {@link ShmemException.Reason#BOOTSTRAP}.
 * <p>
 * Single-threaded (the heap's thread), like the heap.
 */
final class HeapResources
{
    private final Communicator world;
    private final boolean ownsWorld;
    private final RendezvousStore ownedStore;
    private final int me;
    private final int size;
    private final HeapFailure failure;
    private final Waiter waiter;
    private final HeapMesh mesh;
    private final VerbsChannel verbs;
    private final LocalRegistrations registrations = new LocalRegistrations();
    private boolean released;

    /**
     * Connects this PE to the others (collective over {@code world}).
     *
     * @param world      the world communicator.
     * @param ownsWorld  true if the heap closes it.
     * @param ownedStore the store connection the heap closes, or null.
     * @param options    concluded settings.
     * @param failure    the heap's failure state.
     */
    HeapResources(final Communicator world, final boolean ownsWorld, final RendezvousStore ownedStore,
        final ShmemOptions options, final HeapFailure failure)
    {
        this.world = world;
        this.ownsWorld = ownsWorld;
        this.ownedStore = ownedStore;
        this.me = world.rank();
        this.size = world.size();
        this.failure = failure;
        this.waiter = new Waiter(this::checkHealth, failure, newIdle(options));
        if (size > 1)
        {
            this.mesh = HeapMesh.connect(world, options);
            final boolean[] verbsPeer = new boolean[size];
            for (int q = 0; q < size; q++)
            {
                verbsPeer[q] = q != me && !mesh.isDirect(q);
            }
            VerbsChannel channel = null;
            try
            {
                channel = new VerbsChannel(mesh, verbsPeer, registrations, failure, waiter, options);
            }
            catch (final RuntimeException ex)
            {
                mesh.close();
                throw ex;
            }
            this.verbs = channel;
        }
        else
        {
            this.mesh = null;
            this.verbs = null;
        }
    }

    private static IdleStrategy newIdle(final ShmemOptions options)
    {
        if (CollectivesConfiguration.busyPolls(options.idleSpins()))
        {
            // busy-poll, as a communicator does: nothing to learn
            return new BackoffIdleStrategy(options.idleSpins(), options.idleYields(), options.idleMinParkNs(),
                options.idleMaxParkNs());
        }
        return new AdaptiveIdleStrategy(options.idleSpins(), options.idleYields(), options.idleMinParkNs(),
            options.idleMaxParkNs());
    }

    /**
     * Creates a heap's own world communicator.
     *
     * @param context the world's settings.
     * @return the communicator.
     * @throws ShmemException BOOTSTRAP if the PEs could not be connected.
     */
    static Communicator createWorld(final CommunicatorContext context)
    {
        try
        {
            return Communicator.create(context);
        }
        catch (final CollectiveException ex)
        {
            throw new ShmemException(ShmemException.Reason.BOOTSTRAP, ex.peer(), "heap bootstrap: " +
                ex.getMessage(), ex);
        }
    }

    /**
     * What a heap's set-up failure becomes: aborts a world the heap owns; a collective failure is a BOOTSTRAP one.
     *
     * @param world     the world communicator.
     * @param ownsWorld true if the heap owns it.
     * @param ex        the failure.
     * @return the exception to throw ({@code ex} itself unless it was a collective failure).
     */
    static RuntimeException setUpFailure(final Communicator world, final boolean ownsWorld,
        final RuntimeException ex)
    {
        if (ownsWorld)
        {
            world.abort();
        }
        if (ex instanceof CollectiveException)
        {
            return new ShmemException(ShmemException.Reason.BOOTSTRAP, ((CollectiveException)ex).peer(),
                "heap bootstrap: " + ex.getMessage(), ex);
        }
        return ex;
    }

    /** @return the waiter of the heap's blocking calls. */
    Waiter waiter()
    {
        return waiter;
    }

    /** @return the queue pairs to the other PEs, null when there are none (a single PE). */
    HeapMesh mesh()
    {
        return mesh;
    }

    /** @return the verbs path, null when there is no other PE. */
    VerbsChannel verbs()
    {
        return verbs;
    }

    /** @return the live objects' registered local copies. */
    LocalRegistrations registrations()
    {
        return registrations;
    }

    /** @return true once {@link #release()} ran. */
    boolean isReleased()
    {
        return released;
    }

    /** Looks at every peer (queue-pair states, peer-memory views) and records the first failure (for waits). */
    void checkHealth()
    {
        if (null == mesh || released)
        {
            return;
        }
        // polling every completion queue also drives the devices' progress (heartbeats, dead-process checks)
        verbs.poll();
        verbs.checkQueuePairs();
        for (int i = 0; i < registrations.count(); i++)
        {
            final SymmetricMemory m = registrations.get(i);
            for (int q = 0; q < size; q++)
            {
                final RemoteMemory view = m.view(q);
                if (null != view && !view.isValid())
                {
                    failure.fail(ShmemException.Reason.PEER_FAILED, q, "PE " + q + "'s memory went away (it " +
                        "closed, freed or died)", null);
                }
            }
        }
    }

    /**
     * Marks the heap closed (its failure, for every later call) and frees every symmetric object, the verbs
     * channel, the mesh, an owned world communicator (closed if it is healthy, else aborted) and an owned store
     * connection.
     */
    void release()
    {
        released = true;
        failure.fail(ShmemException.Reason.CLOSED, -1, "the heap is closed", null);
        try
        {
            for (int i = registrations.count() - 1; i >= 0; i--)
            {
                registrations.get(i).release();
            }
            if (null != verbs)
            {
                verbs.close();
            }
        }
        finally
        {
            try
            {
                if (null != mesh)
                {
                    mesh.close();
                }
            }
            finally
            {
                try
                {
                    if (ownsWorld)
                    {
                        if (isWorldHealthy())
                        {
                            world.close();
                        }
                        else
                        {
                            world.abort();
                        }
                    }
                }
                finally
                {
                    if (null != ownedStore)
                    {
                        ownedStore.close();
                    }
                }
            }
        }
    }

    private boolean isWorldHealthy()
    {
        final ShmemException f = failure.failure();
        return null == f || (ShmemException.Reason.CLOSED == f.reason() && f.pe() < 0);
    }
}
