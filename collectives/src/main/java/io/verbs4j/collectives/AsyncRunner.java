// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.verbs4j.collectives.engine.CollectiveEngine;
import io.verbs4j.collectives.engine.OpRequest;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;

/**
 * Who runs a communicator's operations, and when: blocking calls on the caller's thread, non-blocking ones in issue
 * order on a progress thread started on first use (like an NCCL stream), never two at once (an ownership flag both
 * take), a blocking call only after the pending non-blocking ones. Also the admission state: open, closed or
 * aborted. Handles come from a fixed pool, so issuing allocates nothing.
 */
final class AsyncRunner
{
    private final CollectiveEngine engine;
    private final int rank;
    private final String name;
    private final long opTimeoutNs;
    private final IdleStrategy callerIdle;
    private final IdleStrategy progressIdle;
    private final OpRequest blocking = new OpRequest();
    private final CollectiveHandle[] pool;
    private final OneToOneConcurrentArrayQueue<CollectiveHandle> queue;
    private final AtomicInteger owner = new AtomicInteger();
    private final AtomicLong completed = new AtomicLong();
    private long submitted;
    private int poolCursor;
    private Thread progressThread;
    private volatile boolean running;
    private volatile boolean closed;
    private volatile boolean aborted;

    AsyncRunner(final CollectiveEngine engine, final CommunicatorContext context, final IdleStrategy callerIdle)
    {
        this.engine = engine;
        this.rank = context.rank();
        this.name = context.name();
        this.opTimeoutNs = context.opTimeoutNs();
        this.callerIdle = callerIdle;
        this.progressIdle = new BackoffIdleStrategy(context.idleSpins(), context.idleYields(),
            context.idleMinParkNs(), TimeUnit.MILLISECONDS.toNanos(1));
        this.pool = new CollectiveHandle[context.maxPending()];
        for (int i = 0; i < pool.length; i++)
        {
            pool[i] = new CollectiveHandle();
        }
        this.queue = new OneToOneConcurrentArrayQueue<>(pool.length);
    }

    /** @return the request blocking calls fill (the issuing thread's only). */
    OpRequest blockingRequest()
    {
        return blocking;
    }

    /**
     * Runs a request on the calling thread once the pending non-blocking calls are done.
     *
     * @param r the request (cleared afterwards).
     */
    void runBlocking(final OpRequest r)
    {
        ensureOpen();
        drain();
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

    /**
     * Checks a request's arguments on the calling thread, before it is queued.
     *
     * @param r the request.
     * @throws IllegalArgumentException naming the bad argument.
     */
    void validate(final OpRequest r)
    {
        engine.validate(r);
    }

    /**
     * @return a free handle from the pool.
     * @throws IllegalStateException if every handle is pending.
     */
    CollectiveHandle acquire()
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

    /**
     * Queues a handle whose request is set for the progress thread.
     *
     * @param h the handle.
     * @return it.
     */
    CollectiveHandle submit(final CollectiveHandle h)
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

    boolean isClosed()
    {
        return closed;
    }

    boolean isAborted()
    {
        return aborted;
    }

    /**
     * Stops admitting calls for an abort: asks the running call to stop, stops the progress thread and takes the
     * ownership flag (bounded), so that the connections can be torn down under nobody.
     */
    void abort()
    {
        aborted = true;
        engine.requestAbort();
        stopProgressThread();
        final long deadline = System.nanoTime() + Math.max(TimeUnit.SECONDS.toNanos(5), opTimeoutNs);
        while (!owner.compareAndSet(0, 1))
        {
            if (System.nanoTime() - deadline > 0)
            {
                break;
            }
            LockSupport.parkNanos(100_000);
        }
        failQueued("aborted");
        closed = true;
    }

    /** Stops admitting calls for a close, after the pending ones ran (bounded by the operation timeout). */
    void close()
    {
        closed = true;
        stopProgressThread();
        failQueued("closed");
    }

    /** @throws IllegalStateException or {@link CollectiveException} if no call may be issued. */
    void ensureOpen()
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

    private void drain()
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

    private void startProgressThread()
    {
        running = true;
        progressThread = new Thread(this::progressLoop, "verbs4j-collectives-r" + rank + "-" + name);
        progressThread.setDaemon(true);
        progressThread.start();
    }

    private void progressLoop()
    {
        final IdleStrategy idle = progressIdle;
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
            final long deadline = System.nanoTime() + opTimeoutNs + TimeUnit.SECONDS.toNanos(1);
            while (submitted != completed.get() && System.nanoTime() - deadline < 0)
            {
                LockSupport.parkNanos(100_000);
            }
        }
        running = false;
        LockSupport.unpark(thread);
        try
        {
            thread.join(TimeUnit.NANOSECONDS.toMillis(opTimeoutNs) + 1000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void failQueued(final String how)
    {
        final CollectiveException error = new CollectiveException(CollectiveException.Reason.ABORTED, rank, -1,
            "rank " + rank + ": communicator " + how + " before this call ran", null);
        CollectiveHandle h;
        while (null != (h = queue.poll()))
        {
            h.complete(error);
            completed.incrementAndGet();
        }
    }
}
