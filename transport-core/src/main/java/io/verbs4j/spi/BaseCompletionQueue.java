// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import org.agrona.BitUtil;
import org.agrona.concurrent.IdleStrategy;

/**
 * The shared completion queue: a multi-producer, single-consumer ring of 64-byte completion entries in one
 * {@code long[]} ({@link CompletionRecord}). Producers (work queues draining, from any thread) claim a position
 * with one atomic add and publish the entry with a release store of its sequence; the consumer reads entries in
 * order. On a device driven by one thread ({@link io.verbs4j.config.ThreadingMode#SINGLE_THREAD}) the claim is a
 * plain load and a release store.
 * <p>
 * Polling drives the provider's progress: every poll that finds nothing runs it, and so does at least every
 * {@value #MAX_POLLS_WITHOUT_PROGRESS}+1st poll that finds fewer entries than its limit (a poll that already has
 * entries to hand out returns them without the progress round, up to that bound).
 * <p>
 * No overrun check is needed on the hot path: queue pairs are admitted only while the slots of all attached work
 * queues fit in the capacity ({@link #attach(int)}), and a work-queue slot is released only after its entry is
 * polled, so there are never more unpolled entries than capacity.
 */
public class BaseCompletionQueue implements CompletionQueue
{
    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle TAIL;
    /**
     * Polls that found entries (fewer than their limit) and skipped the provider's progress, at most, before one
     * runs it all the same: completions the posting thread produced at once ({@link DirectSend}) are handed out
     * without a progress round each time, and progress is still driven by every few polls however busy the queue.
     */
    static final int MAX_POLLS_WITHOUT_PROGRESS = 3;
    /** Most entries: the ring of 64-byte entries must fit one array. */
    public static final int MAX_CAPACITY = 1 << 26;

    static
    {
        try
        {
            TAIL = MethodHandles.lookup().findVarHandle(BaseCompletionQueue.class, "tail", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Object owner;
    private final int capacity;
    private final int mask;
    private final long[] records;
    private final WorkQueue[] queues;
    private final Progress progress;
    private final IdleStrategy waitIdleStrategy;
    private final boolean singleThread;
    private final Set<AbstractQueuePair> queuePairs = ConcurrentHashMap.newKeySet();

    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;
    private volatile long tail;
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;
    private long head;
    private int pollsWithoutProgress;
    private int attachedSlots;
    private volatile boolean closed;

    /**
     * @param owner            the device that made it (queue pairs may only attach to CQs of their device).
     * @param capacity         entries.
     * @param progress         provider progress driven by polling.
     * @param waitIdleStrategy how blocking polls wait.
     */
    public BaseCompletionQueue(
        final Object owner, final int capacity, final Progress progress, final IdleStrategy waitIdleStrategy)
    {
        this(owner, capacity, progress, waitIdleStrategy, false);
    }

    /**
     * @param owner            the device that made it (queue pairs may only attach to CQs of their device).
     * @param capacity         entries.
     * @param progress         provider progress driven by polling.
     * @param waitIdleStrategy how blocking polls wait.
     * @param singleThread     true if one thread at a time produces and polls
     *                         ({@link io.verbs4j.config.ThreadingMode#SINGLE_THREAD}): a producer then claims its
     *                         position with a plain load and a release store instead of an atomic add.
     */
    public BaseCompletionQueue(
        final Object owner,
        final int capacity,
        final Progress progress,
        final IdleStrategy waitIdleStrategy,
        final boolean singleThread)
    {
        this.singleThread = singleThread;
        if (capacity < 1)
        {
            throw new IllegalArgumentException("completion queue capacity must be at least 1, was " + capacity);
        }
        this.owner = owner;
        this.capacity = capacity;
        if (capacity > MAX_CAPACITY)
        {
            throw new IllegalArgumentException("completion queue capacity must be at most " + MAX_CAPACITY +
                ", was " + capacity);
        }
        final int ringCapacity = BitUtil.findNextPositivePowerOfTwo(capacity);
        this.mask = ringCapacity - 1;
        records = new long[ringCapacity * CompletionRecord.WORDS];
        queues = new WorkQueue[ringCapacity];
        this.progress = progress;
        this.waitIdleStrategy = waitIdleStrategy;
    }

    /** @return the device that created this queue. */
    public Object owner()
    {
        return owner;
    }

    /**
     * Reserves capacity for a work queue's slots.
     *
     * @param slots the work queue's depth.
     * @throws IllegalArgumentException if the CQ cannot hold them, saying how large it must be.
     */
    public synchronized void attach(final int slots)
    {
        if (attachedSlots + slots > capacity)
        {
            throw new IllegalArgumentException("completion queue of capacity " + capacity + " already serves " +
                attachedSlots + " work-queue slots and cannot take " + slots + " more; create it with capacity >= " +
                (attachedSlots + slots) + " (the sum of sendDepth/recvDepth of the queue pairs using it)");
        }
        attachedSlots += slots;
    }

    /**
     * Returns capacity reserved by {@link #attach(int)}.
     *
     * @param slots the work queue's depth.
     */
    public synchronized void detach(final int slots)
    {
        attachedSlots -= slots;
    }

    /**
     * Records a queue pair that produces into this queue, so that closing the queue closes it too.
     *
     * @param qp a queue pair created with this queue as its send or receive CQ.
     * @throws IllegalArgumentException if this queue was closed meanwhile (as for a CQ closed before).
     */
    void track(final AbstractQueuePair qp)
    {
        queuePairs.add(qp);
        if (closed)
        {
            queuePairs.remove(qp);
            throw new IllegalArgumentException("the completion queue was closed while queue pair " + qp.qpNumber() +
                " was being created; create a new completion queue");
        }
    }

    /**
     * Forgets a queue pair (it was closed).
     *
     * @param qp the queue pair.
     */
    void untrack(final QueuePairStateMachine qp)
    {
        queuePairs.remove(qp);
    }

    /**
     * Appends an entry; called by {@link WorkQueue#drain}.
     *
     * @param queue      the work queue to release when the entry is polled.
     * @param pos        the work-queue position.
     * @param wrId       correlation id.
     * @param status     status.
     * @param opcode     opcode.
     * @param byteLength length.
     * @param immediate  immediate data.
     * @param cqFlags    flags.
     * @param qpNumber   queue pair.
     */
    void produce(
        final WorkQueue queue,
        final long pos,
        final long wrId,
        final int status,
        final int opcode,
        final int byteLength,
        final int immediate,
        final int cqFlags,
        final int qpNumber)
    {
        final long sequence;
        if (singleThread)
        {
            sequence = tail;
            TAIL.setRelease(this, sequence + 1);
        }
        else
        {
            sequence = (long)TAIL.getAndAdd(this, 1L);
        }
        final int idx = (int)sequence & mask;
        final long[] records = this.records;
        final int base = idx * CompletionRecord.WORDS;
        records[base + CompletionRecord.WR_ID] = wrId;
        records[base + CompletionRecord.POSITION] = pos;
        records[base + CompletionRecord.STATUS_OPCODE] = IntPair.pack(status, opcode);
        records[base + CompletionRecord.BYTE_LENGTH_IMMEDIATE] = IntPair.pack(byteLength, immediate);
        records[base + CompletionRecord.FLAGS_QP_NUMBER] = IntPair.pack(cqFlags, qpNumber);
        queues[idx] = queue;
        WORDS.setRelease(records, base + CompletionRecord.SEQUENCE, sequence + 1);
    }

    /** {@inheritDoc} */
    public int capacity()
    {
        return capacity;
    }

    /** {@inheritDoc} */
    public int poll(final CompletionHandler handler, final int limit)
    {
        // Checked before anything is dequeued: a completion taken and then not delivered would be lost for good.
        Objects.requireNonNull(handler, "handler");
        if (limit < 0)
        {
            throw new IllegalArgumentException("limit must not be negative: " + limit);
        }
        if (closed)
        {
            throw closedException();
        }
        int count = drainEntries(handler, limit);
        if (count < limit && (0 == count || ++pollsWithoutProgress > MAX_POLLS_WITHOUT_PROGRESS))
        {
            pollsWithoutProgress = 0;
            progress.progress();
            count += drainEntries(handler, limit - count);
        }
        return count;
    }

    /** {@inheritDoc} */
    public int poll(final CompletionBatch batch)
    {
        Objects.requireNonNull(batch, "batch");
        batch.clear();
        return poll(batch, batch.capacity());
    }

    /** {@inheritDoc} */
    public int poll(final CompletionHandler handler, final int limit, final long timeout, final TimeUnit unit)
        throws InterruptedException
    {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(unit, "unit");
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        waitIdleStrategy.reset();
        while (true)
        {
            final int count = poll(handler, limit);
            if (count > 0)
            {
                return count;
            }
            if (Thread.interrupted())
            {
                throw new InterruptedException("interrupted while waiting for completions");
            }
            if (System.nanoTime() - deadline >= 0)
            {
                return 0;
            }
            waitIdleStrategy.idle();
        }
    }

    /** {@inheritDoc} */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        // ibv_destroy_cq refuses (EBUSY) while QPs use the CQ; a Java close() that throws would break
        // try-with-resources, so, like ProtectionDomain.close, it closes its dependants instead.
        for (final AbstractQueuePair qp : new ArrayList<>(queuePairs))
        {
            qp.close();
        }
        queuePairs.clear();
    }

    /** @return true once closed. */
    public boolean isClosed()
    {
        return closed;
    }

    private IllegalStateException closedException()
    {
        return new IllegalStateException("completion queue is closed (its queue pairs were closed with it); " +
            "stop polling it, or create a new completion queue and queue pairs");
    }

    private int drainEntries(final CompletionHandler handler, final int limit)
    {
        int count = 0;
        long sequence = head;
        while (count < limit)
        {
            final int idx = (int)sequence & mask;
            final int base = idx * CompletionRecord.WORDS;
            if ((long)WORDS.getAcquire(records, base + CompletionRecord.SEQUENCE) != sequence + 1)
            {
                break;
            }
            final long wrId = records[base + CompletionRecord.WR_ID];
            final long pos = records[base + CompletionRecord.POSITION];
            final long statusOpcode = records[base + CompletionRecord.STATUS_OPCODE];
            final long lengthImmediate = records[base + CompletionRecord.BYTE_LENGTH_IMMEDIATE];
            final long flagsQp = records[base + CompletionRecord.FLAGS_QP_NUMBER];
            final int status = IntPair.high(statusOpcode);
            final int opcode = IntPair.low(statusOpcode);
            final int byteLength = IntPair.high(lengthImmediate);
            final int immediate = IntPair.low(lengthImmediate);
            final int cqFlags = IntPair.high(flagsQp);
            final int qpNumber = IntPair.low(flagsQp);
            final WorkQueue queue = queues[idx];
            queues[idx] = null;
            sequence++;
            head = sequence;
            count++;
            queue.release(pos);
            handler.onCompletion(wrId, status, opcode, byteLength, immediate, cqFlags, qpNumber);
        }
        return count;
    }
}
