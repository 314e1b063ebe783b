// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.agrona.BitUtil;

/**
 * A send or receive queue of a queue pair: pre-allocated slots holding copies of posted work requests (with their
 * SGEs resolved to regions), their completion state, and the in-order hand-over of completions to a CQ.
 * Each slot has a request (the 64-byte request record, its SGEs and its inline payload, kept by
 * {@link WorkRecords}, which this class extends), a 64-byte completion record laid out as a CQ entry
 * ({@link CompletionRecord}; sequence, wrId, position and qpNumber unused) and a state word. This class owns the
 * positions and the states: the publication that makes a filled request visible, its completion, and the in-order
 * hand-over.
 * <p>
 * Life of a slot at position {@code pos}: the poster {@link #reserve() reserves} and fills it and
 * {@link #publish(long) publishes} it (POSTED); the provider, from any thread, {@link #complete completes} it once
 * (COMPLETING, then DONE, by CAS, so a completion racing a flush is counted once); {@link #drain} hands DONE slots
 * to the CQ in position order; the CQ's consumer {@link #release(long) releases} the slot when it polls the entry.
 * The state word of a slot is {@code pos << 2 | phase}, so a stale completion for a reused slot cannot match. The
 * common case, a success of the oldest slot not yet handed over, skips the completing state and the drain loop
 * ({@link #completeInOrder}): one CAS from posted to done under the drain, and the CQ entry written at once.
 * <p>
 * A request the posting thread carries out at once ({@link DirectSend}) takes the next position straight to DONE and
 * handed over, under the drain and only while the queue is idle, so in-order delivery holds without the states in
 * between; an unsignaled one gets no CQ entry and its slot is freed with the next polled completion, as on an HCA.
 * <p>
 * Threading: one posting thread; completions from any thread; {@link #drain} is serialized by a try-lock and
 * re-checked after unlocking, so it never blocks; one CQ consumer releases. A queue built single-threaded (its
 * device is {@link io.verbs4j.config.ThreadingMode#SINGLE_THREAD}) has all of these on one thread at a time: its
 * try-lock and state changes are then a look and a release store, and its publication fences nothing.
 */
public final class WorkQueue extends WorkRecords
{
    private static final VarHandle STATES = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle POSTED;
    private static final VarHandle RELEASED;
    private static final VarHandle CURSOR;
    private static final VarHandle DRAIN_LOCK;
    private static final int PHASE_POSTED = 0;
    private static final int PHASE_COMPLETING = 1;
    private static final int PHASE_DONE = 2;
    private static final long UNUSED = -1;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            POSTED = lookup.findVarHandle(WorkQueue.class, "posted", long.class);
            RELEASED = lookup.findVarHandle(WorkQueue.class, "released", long.class);
            CURSOR = lookup.findVarHandle(WorkQueue.class, "cursor", long.class);
            DRAIN_LOCK = lookup.findVarHandle(WorkQueue.class, "drainLock", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final boolean sendQueue;
    private final boolean singleThread;
    private final int depth;
    private final long[] states;
    private final long[] completions;

    private volatile long posted;
    private volatile long released;
    private volatile long cursor;
    private volatile int drainLock;
    private boolean errorDrained; // guarded by drainLock
    private long taken;

    /**
     * @param sendQueue true for a send queue (completions of unsignaled successes are suppressed).
     * @param depth     slots.
     * @param maxSge    most SGEs per request.
     * @param maxInline largest inline payload (send queues), 0 for none.
     */
    public WorkQueue(final boolean sendQueue, final int depth, final int maxSge, final int maxInline)
    {
        this(sendQueue, depth, maxSge, maxInline, false);
    }

    /**
     * @param sendQueue    true for a send queue (completions of unsignaled successes are suppressed).
     * @param depth        slots.
     * @param maxSge       most SGEs per request.
     * @param maxInline    largest inline payload (send queues), 0 for none.
     * @param singleThread true if one thread at a time makes every call on this queue
     *                     ({@link io.verbs4j.config.ThreadingMode#SINGLE_THREAD}): the drain's try-lock and the
     *                     state changes are then plain loads and release stores, and nothing here fences.
     */
    public WorkQueue(
        final boolean sendQueue, final int depth, final int maxSge, final int maxInline, final boolean singleThread)
    {
        super(BitUtil.findNextPositivePowerOfTwo(depth), maxSge, maxInline);
        this.sendQueue = sendQueue;
        this.singleThread = singleThread;
        this.depth = depth;
        final int capacity = mask + 1;
        states = new long[capacity];
        java.util.Arrays.fill(states, UNUSED);
        completions = new long[capacity * CompletionRecord.WORDS];
    }

    /** @return slots. */
    public int depth()
    {
        return depth;
    }

    /** @return slots free to post into (slots are freed when their completions are polled). */
    public int free()
    {
        return depth - (int)((long)POSTED.getAcquire(this) - (long)RELEASED.getAcquire(this));
    }

    /** @return positions published so far. */
    public long posted()
    {
        return (long)POSTED.getAcquire(this);
    }

    /** @return true when every published slot has been handed to the CQ. */
    public boolean isDrained()
    {
        return (long)CURSOR.getAcquire(this) == (long)POSTED.getAcquire(this);
    }

    /**
     * @return the position to fill next; call only when {@link #free()} is positive, from the posting thread.
     */
    public long reserve()
    {
        return posted;
    }

    /**
     * Makes a filled slot visible to the provider and to flushes.
     *
     * @param pos the reserved, filled position.
     */
    public void publish(final long pos)
    {
        publish(pos, pos);
    }

    /**
     * Makes the filled slots {@code first..last} visible to the provider and to flushes at once: their state words,
     * then one store of the producer index (volatile: the release that publishes every slot's contents, and the
     * full fence the poster's re-read of the queue pair's state after publishing pairs with).
     *
     * @param first the first reserved, filled position (the producer index, {@link #reserve()}).
     * @param last  the last one, inclusive; {@code last - first} below {@link #free()}.
     */
    public void publish(final long first, final long last)
    {
        for (long pos = first; pos <= last; pos++)
        {
            STATES.setRelease(states, (int)pos & mask, pos << 2 | PHASE_POSTED);
        }
        if (singleThread)
        {
            POSTED.setRelease(this, last + 1);
            return;
        }
        POSTED.setVolatile(this, last + 1);
    }

    /**
     * Completes a slot, once: later calls for the same position (a flush racing a real completion) return false.
     *
     * @param pos        position.
     * @param status     a {@link WcStatus}.
     * @param opcode     the completion opcode.
     * @param byteLength bytes transferred.
     * @param immediate  immediate data.
     * @param cqFlags    completion flags.
     * @return true if this call completed the slot.
     */
    public boolean complete(
        final long pos,
        final int status,
        final int opcode,
        final int byteLength,
        final int immediate,
        final int cqFlags)
    {
        final int idx = (int)pos & mask;
        if (!swapState(idx, pos << 2 | PHASE_POSTED, pos << 2 | PHASE_COMPLETING))
        {
            return false;
        }
        final int entry = idx * CompletionRecord.WORDS;
        completions[entry + CompletionRecord.STATUS_OPCODE] = IntPair.pack(status, opcode);
        completions[entry + CompletionRecord.BYTE_LENGTH_IMMEDIATE] = IntPair.pack(byteLength, immediate);
        completions[entry + CompletionRecord.FLAGS_QP_NUMBER] = IntPair.pack(cqFlags, 0);
        STATES.setRelease(states, idx, pos << 2 | PHASE_DONE);
        return true;
    }

    /**
     * Completes the oldest slot not yet handed to the CQ successfully and hands it over at once: the in-order case of
     * {@link #complete} followed by {@link #drain}, without the completing state or the completion record. Taken only
     * with the drain free, no error drained and {@code pos} next in line; the slot must still be pending (a flush
     * that got there first wins, as in {@link #complete}).
     *
     * @param pos        position.
     * @param opcode     the completion opcode.
     * @param byteLength bytes transferred.
     * @param immediate  immediate data.
     * @param cqFlags    completion flags.
     * @param cq         the queue's completion queue.
     * @param qpNumber   the queue pair's number.
     * @return true if the slot was completed and handed over; false if nothing happened (use the general path).
     */
    public boolean completeInOrder(
        final long pos,
        final int opcode,
        final int byteLength,
        final int immediate,
        final int cqFlags,
        final BaseCompletionQueue cq,
        final int qpNumber)
    {
        if (!tryTakeDrain())
        {
            return false;
        }
        final int idx = (int)pos & mask;
        if (cursor != pos || errorDrained || !swapState(idx, pos << 2 | PHASE_POSTED, pos << 2 | PHASE_DONE))
        {
            // No hand-over needed here: on false the caller completes and drains (the general path), and that drain
            // takes over whatever a completer left meanwhile.
            DRAIN_LOCK.setRelease(this, 0);
            return false;
        }
        final int record = idx * WorkRecord.WORDS;
        if (getsEntry(record, WcStatus.SUCCESS))
        {
            cq.produce(this, pos, requests[record + WorkRecord.WR_ID], WcStatus.SUCCESS, opcode, byteLength,
                immediate, cqFlags, qpNumber);
        }
        CURSOR.setRelease(this, pos + 1);
        releaseDrainAndHandOver(cq, qpNumber);
        return true;
    }

    /**
     * @param pos a position.
     * @return true while the slot is posted and not yet completed.
     */
    public boolean isPending(final long pos)
    {
        return (long)STATES.getAcquire(states, (int)pos & mask) == (pos << 2 | PHASE_POSTED);
    }

    /**
     * Hands the next pending slot to the single consumer of work in this queue (the provider's thread that carries
     * requests out in order: receives for arriving messages, or sends for a transmitting I/O thread).
     *
     * @return the position, or -1 if nothing is pending.
     */
    public long take()
    {
        final long pos = taken;
        if (pos >= (long)POSTED.getAcquire(this) || !isPending(pos))
        {
            return -1;
        }
        taken = pos + 1;
        return pos;
    }

    /**
     * @return the position {@link #take()} would return next, or -1 if nothing is pending; does not take it.
     */
    public long peek()
    {
        final long pos = taken;
        if (pos >= (long)POSTED.getAcquire(this) || !isPending(pos))
        {
            return -1;
        }
        return pos;
    }

    /**
     * Completes every published slot not yet completed with {@link WcStatus#WR_FLUSH_ERR}.
     */
    public void flushPending()
    {
        final long end = (long)POSTED.getAcquire(this);
        for (long pos = (long)CURSOR.getAcquire(this); pos < end; pos++)
        {
            complete(pos, WcStatus.WR_FLUSH_ERR, sendQueue ? opcode(pos) : Opcode.RECV, 0, 0, 0);
        }
    }

    /**
     * Completes the oldest slot not yet completed, if any.
     *
     * @param status the status to give it.
     * @return true if a slot was completed.
     */
    public boolean completeOldestPending(final int status)
    {
        final long end = (long)POSTED.getAcquire(this);
        for (long pos = (long)CURSOR.getAcquire(this); pos < end; pos++)
        {
            if (complete(pos, status, sendQueue ? opcode(pos) : Opcode.RECV, 0, 0, 0))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Hands completed slots, in position order, to {@code cq}. Non-blocking: if another thread is draining, it will
     * pick up what this call would have.
     *
     * @param cq       the queue's completion queue.
     * @param qpNumber the queue pair's number.
     */
    public void drain(final BaseCompletionQueue cq, final int qpNumber)
    {
        do
        {
            if (!tryTakeDrain())
            {
                return;
            }
            try
            {
                long pos = cursor;
                final long end = (long)POSTED.getAcquire(this);
                while (pos < end)
                {
                    final int idx = (int)pos & mask;
                    if ((long)STATES.getAcquire(states, idx) != (pos << 2 | PHASE_DONE))
                    {
                        break;
                    }
                    final int record = idx * WorkRecord.WORDS;
                    final int entry = idx * CompletionRecord.WORDS;
                    final long statusOpcode = completions[entry + CompletionRecord.STATUS_OPCODE];
                    final long lengthImmediate = completions[entry + CompletionRecord.BYTE_LENGTH_IMMEDIATE];
                    int status = IntPair.high(statusOpcode);
                    int byteLength = IntPair.high(lengthImmediate);
                    if (errorDrained && WcStatus.SUCCESS == status)
                    {
                        // Verbs completes in order: once an error was reported, every later request is flushed,
                        // even one the provider had already carried out (completed out of order before the error).
                        status = WcStatus.WR_FLUSH_ERR;
                        byteLength = 0;
                    }
                    errorDrained |= WcStatus.SUCCESS != status;
                    if (getsEntry(record, status))
                    {
                        cq.produce(this, pos, requests[record + WorkRecord.WR_ID], status,
                            IntPair.low(statusOpcode), byteLength, IntPair.low(lengthImmediate),
                            IntPair.high(completions[entry + CompletionRecord.FLAGS_QP_NUMBER]), qpNumber);
                    }
                    pos++;
                }
                CURSOR.setRelease(this, pos);
            }
            finally
            {
                releaseDrain();
            }
        }
        while (readyToDrain());
    }

    /**
     * Opens the queue for a {@link DirectSend direct post}: takes the drain and checks that the queue is idle (every
     * published slot handed to the CQ, no error drained) with a slot free. Posting thread only; never blocks.
     *
     * @param cq       the queue's completion queue (for the hand-over when the queue is not idle).
     * @param qpNumber the queue pair's number.
     * @return true if the caller now holds the drain and must call {@link #exitDirect}; false (nothing held) if
     *         another thread is draining or work is outstanding.
     */
    boolean tryEnterDirect(final BaseCompletionQueue cq, final int qpNumber)
    {
        if (!tryTakeDrain())
        {
            return false;
        }
        final long pos = posted;
        if (errorDrained || cursor != pos || pos - (long)RELEASED.getAcquire(this) >= depth)
        {
            releaseDrainAndHandOver(cq, qpNumber);
            return false;
        }
        return true;
    }

    /**
     * Retires the next position as a request carried out by the posting thread, with the drain held
     * ({@link #tryEnterDirect()}): it takes a slot (freed, as every slot, when a later completion is polled), gets a
     * CQ entry only if signaled, and never passes through the pending or completing states.
     *
     * @param cq         the queue's completion queue.
     * @param qpNumber   the queue pair's number.
     * @param wrId       correlation id.
     * @param opcode     the posted opcode (also the completion opcode).
     * @param flags      the posted flags.
     * @param byteLength bytes transferred.
     */
    void retireDirect(
        final BaseCompletionQueue cq,
        final int qpNumber,
        final long wrId,
        final int opcode,
        final int flags,
        final int byteLength)
    {
        // Only the state word: nothing reads a slot's request or completion records once the cursor is past it.
        final long pos = posted;
        STATES.setRelease(states, (int)pos & mask, pos << 2 | PHASE_DONE);
        POSTED.setRelease(this, pos + 1);
        if (0 != (flags & SendRequest.SIGNALED))
        {
            cq.produce(this, pos, wrId, WcStatus.SUCCESS, opcode, byteLength, 0, 0, qpNumber);
        }
        CURSOR.setRelease(this, pos + 1);
    }

    /**
     * Releases the drain taken by {@link #tryEnterDirect()}, draining whatever another thread left to it meanwhile.
     *
     * @param cq       the queue's completion queue.
     * @param qpNumber the queue pair's number.
     */
    void exitDirect(final BaseCompletionQueue cq, final int qpNumber)
    {
        releaseDrainAndHandOver(cq, qpNumber);
    }

    /**
     * Forgets that an error was drained, so that completions after a reset (ERROR to RESET, then connected again)
     * are reported as they are. Call only once the queue is drained.
     */
    public void clearError()
    {
        while (!tryTakeDrain())
        {
            Thread.onSpinWait();
        }
        errorDrained = false;
        DRAIN_LOCK.setRelease(this, 0);
    }

    /**
     * Called by the CQ consumer after polling the entry for {@code pos}: frees that slot and every earlier one.
     *
     * @param pos position of the polled entry.
     */
    public void release(final long pos)
    {
        RELEASED.setRelease(this, pos + 1);
    }

    /**
     * @return whether the slot whose request record starts at {@code record}, completing with {@code status}, gets a
     *         CQ entry: every receive and every failure does; a successful send only if it was signaled.
     */
    private boolean getsEntry(final int record, final int status)
    {
        return !sendQueue || WcStatus.SUCCESS != status ||
            0 != (IntPair.low(requests[record + WorkRecord.OPCODE_FLAGS]) & SendRequest.SIGNALED);
    }

    /**
     * Frees the drain before a look at {@link #readyToDrain()}, with a full fence between the two. A completer that
     * found the drain taken relies on its holder to hand its slot over (see {@link #drain}); it stores the slot's
     * DONE state, then fails its CAS on the drain. Were the holder's free a plain release store, x86 could let the
     * holder's look at the slot state pass that store (a store-load reordering): the holder would read the state from
     * before the completer's store while the completer still saw the drain taken, and the slot would never reach the
     * CQ (the soak test lost the last WRITE of a queue pair this way, once in several minutes).
     */
    private void releaseDrain()
    {
        if (singleThread)
        {
            // One thread: no completer on another thread can be missed, so no store-load fence is needed.
            DRAIN_LOCK.setRelease(this, 0);
            return;
        }
        DRAIN_LOCK.setVolatile(this, 0);
    }

    /**
     * Takes the drain's try-lock: a CAS, or, with one thread, a look and a store (the look still refuses a re-entry
     * from a drain under way on the same thread).
     */
    private boolean tryTakeDrain()
    {
        if (singleThread)
        {
            if (0 != drainLock)
            {
                return false;
            }
            DRAIN_LOCK.setRelease(this, 1);
            return true;
        }
        return DRAIN_LOCK.compareAndSet(this, 0, 1);
    }

    /** Moves a slot's state word from {@code expected} to {@code update}: a CAS, or with one thread a look and a
     *  store. */
    private boolean swapState(final int idx, final long expected, final long update)
    {
        if (singleThread)
        {
            if ((long)STATES.getAcquire(states, idx) != expected)
            {
                return false;
            }
            STATES.setRelease(states, idx, update);
            return true;
        }
        return STATES.compareAndSet(states, idx, expected, update);
    }

    /**
     * Lets go of the drain as every holder but {@link #drain} itself must (it loops on the same look): frees it, then
     * hands over whatever a completer that found it taken left meanwhile.
     */
    private void releaseDrainAndHandOver(final BaseCompletionQueue cq, final int qpNumber)
    {
        releaseDrain();
        if (readyToDrain())
        {
            drain(cq, qpNumber);
        }
    }

    private boolean readyToDrain()
    {
        final long pos = (long)CURSOR.getAcquire(this);
        return pos < (long)POSTED.getAcquire(this) &&
            (long)STATES.getAcquire(states, (int)pos & mask) == (pos << 2 | PHASE_DONE);
    }
}

