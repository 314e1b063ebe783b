// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.verbs4j.collectives.Communicator;
import io.verbs4j.collectives.CommunicatorContext;
import io.verbs4j.collectives.launch.ThreadCluster;
import io.verbs4j.shm.ShmConfiguration;
import io.verbs4j.shm.ShmFiles;

/**
 * Test helper: runs a body on {@code size} PEs as threads of this JVM ({@link ThreadCluster}, in-memory store), each
 * with its own heap over the given transport; a body that throws aborts its heap (so the others fail fast instead of
 * waiting in a closing barrier), one that returns closes it. {@link #sweep()} removes shm files left by this process
 * or by dead child processes, for the tests' {@code @AfterAll}/{@code @AfterEach}.
 */
final class Heaps
{
    private static final AtomicInteger RUNS = new AtomicInteger();

    /** The body of one PE. */
    @FunctionalInterface
    interface Body
    {
        void run(SymmetricHeap heap) throws Exception;
    }

    private Heaps()
    {
    }

    static CommunicatorContext context(final int rank, final int size, final String transport,
        final io.verbs4j.collectives.rendezvous.RendezvousStore store, final String name)
    {
        return new CommunicatorContext().rank(rank).size(size).store(store).transport(transport).name(name)
            .calibrate(false).peerTimeout(Duration.ofSeconds(2)).opTimeout(Duration.ofSeconds(20));
    }

    /**
     * @param transport {@code shm}, {@code tcp}, or {@code shm-verbs}: shm with direct access turned off, so that
     *                  same-host PEs go through RDMA verbs on shm queue pairs.
     */
    static void run(final int size, final String transport, final Body body)
    {
        final String name = "shmem-test-" + RUNS.incrementAndGet();
        final boolean verbsOnShm = "shm-verbs".equals(transport);
        new ThreadCluster(size, Duration.ofSeconds(120)).run((rank, n, store) ->
        {
            final CommunicatorContext context = context(rank, n, verbsOnShm ? "shm" : transport, store, name);
            final Communicator world = verbsOnShm ? Communicator.create(context) : null;
            final SymmetricHeap heap;
            try
            {
                heap = verbsOnShm ? SymmetricHeap.create(world, ShmemOptions.from(context).directAccess(false)) :
                    SymmetricHeap.create(context);
            }
            catch (final RuntimeException ex)
            {
                if (null != world)
                {
                    world.abort();
                }
                throw ex;
            }
            boolean ok = false;
            try
            {
                body.run(heap);
                ok = true;
            }
            finally
            {
                if (ok)
                {
                    heap.close();
                }
                else
                {
                    heap.abort();
                }
                if (null != world)
                {
                    if (ok)
                    {
                        world.close();
                    }
                    else
                    {
                        world.abort();
                    }
                }
            }
        });
    }

    /** Removes segment files of dead processes and, when no heap of this JVM is open any more, of this one. */
    static void sweep()
    {
        final ShmFiles files = new ShmFiles(Path.of(System.getProperty(ShmConfiguration.DIR_PROP_NAME,
            ShmConfiguration.DIR_DEFAULT)));
        files.sweepDead();
        files.sweepPid(ProcessHandle.current().pid());
    }
}
