// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.observe;

import io.verbs4j.collectives.CollectiveException;
import io.verbs4j.stat.StatSource;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Watches the operations of one communicator's engine: records each in the {@link OpHistory}, emits a
 * {@link CollectiveEvent} when a Flight Recorder recording wants it, and on failure emits a
 * {@link CommunicatorFailedEvent} and logs the failure with this rank's history.
 * <p>
 * Called by the thread that runs operations (one at a time, as the engine); allocation-free per operation.
 * {@link #history()} may be read from any thread.
 */
public final class OpObserver
{
    private static final System.Logger LOG = System.getLogger("io.verbs4j.collectives");

    private final String communicator;
    private final int rank;
    private final int size;
    private final OpHistory history;
    private final CollectiveEvent event = new CollectiveEvent();
    private long sequence;
    private boolean timing;
    private long currentBytes;
    // single writer (the operations' thread), read by the stat publisher: lazySet, no fence on the data path
    private final AtomicLong completedOps = new AtomicLong();
    private final AtomicLong failedOps = new AtomicLong();
    private final AtomicLong completedBytes = new AtomicLong();
    private final AtomicLong startedOps = new AtomicLong();

    /**
     * @param communicator     communicator name.
     * @param rank             this rank.
     * @param size             ranks.
     * @param historyCapacity  operations kept in the history (0: none).
     */
    public OpObserver(final String communicator, final int rank, final int size, final int historyCapacity)
    {
        this.communicator = communicator;
        this.rank = rank;
        this.size = size;
        this.history = new OpHistory(historyCapacity);
    }

    /** @return an observer of a nameless communicator with no history (engines used on their own, tests). */
    public static OpObserver none()
    {
        return new OpObserver("", 0, 1, 0);
    }

    /**
     * An operation starts.
     *
     * @param operation its name (a constant).
     * @param bytes     its size per rank.
     * @param startNs   its start, {@link System#nanoTime()} (the engine's one clock read for the operation).
     * @return its sequence number on this rank (the number messages about it use).
     */
    public long begin(final String operation, final long bytes, final long startNs)
    {
        final long seq = ++sequence;
        startedOps.lazySet(seq);
        currentBytes = bytes;
        history.begin(seq, operation, bytes, startNs);
        timing = event.isEnabled();
        if (timing)
        {
            event.operation = operation;
            event.bytes = bytes;
            event.sequence = seq;
            event.begin();
        }
        return seq;
    }

    /**
     * The operation completed.
     *
     * @param algorithm the algorithm it ran (a constant), or null.
     */
    public void completed(final String algorithm)
    {
        history.end(algorithm, true);
        completedOps.lazySet(completedOps.get() + 1);
        completedBytes.lazySet(completedBytes.get() + currentBytes);
        if (timing)
        {
            commit(algorithm, "ok");
        }
    }

    /**
     * The operation failed; the communicator is failed from now on.
     *
     * @param algorithm the algorithm it ran, or null.
     * @param failure   why.
     */
    public void failed(final String algorithm, final CollectiveException failure)
    {
        history.end(algorithm, false);
        failedOps.lazySet(failedOps.get() + 1);
        if (timing)
        {
            commit(algorithm, failure.reason().name());
        }
        final CommunicatorFailedEvent failed = new CommunicatorFailedEvent();
        if (failed.isEnabled())
        {
            failed.communicator = communicator;
            failed.rank = rank;
            failed.reason = failure.reason().name();
            failed.peer = failure.peer();
            failed.message = failure.getMessage();
            failed.commit();
        }
        LOG.log(System.Logger.Level.WARNING, () -> "verbs4j: communicator '" + communicator + "' failed on rank " +
            rank + " of " + size + ": " + failure.getMessage() + "\nlast collectives of rank " + rank + " (oldest " +
            "first):\n" + history.describe(System.nanoTime()));
    }

    private void commit(final String algorithm, final String outcome)
    {
        event.end();
        if (event.shouldCommit())
        {
            event.communicator = communicator;
            event.rank = rank;
            event.size = size;
            event.algorithm = algorithm;
            event.outcome = outcome;
            event.commit();
        }
        timing = false;
    }

    /**
     * @return this rank's last operations, oldest first (a best-effort snapshot when read while an operation runs).
     */
    public String history()
    {
        return history.describe(System.nanoTime());
    }

    /**
     * This rank's operation counters, for the counters file ({@link io.verbs4j.stat.StatRegistry}); any thread.
     *
     * @param sink where they go.
     */
    public void sample(final StatSource.StatSink sink)
    {
        sink.counter("collectives started", startedOps.get());
        sink.counter("collectives completed", completedOps.get());
        sink.counter("collectives failed", failedOps.get());
        sink.counter("bytes per rank of completed collectives", completedBytes.get());
    }

    /** @return operations started on this rank since creation. */
    public long operations()
    {
        return sequence;
    }
}
