// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2IntHashMap;

/**
 * The verbs path of a heap: RDMA WRITE, READ and atomics on the queue pair of each peer that has no direct peer
 * memory (another host, or a provider without it), with the completion queues polled here.
 * <p>
 * Every request is signaled, and per peer {@code posted} and {@code completed} count them; completions of one queue
 * pair come in posting order, so "request n of peer p is complete" is {@code completed[p] >= n}, and quiet is
 * {@code completed == posted} for every peer. A signaled WRITE completes when the target acknowledged it, i.e. after
 * the target placed the data (RC semantics), which is what makes quiet a remote-completion wait.
 * <p>
 * Sources and destinations: a buffer inside one of the heap's registered local copies is used in place (zero copy);
 * any other buffer goes through the device's {@link StagingSlots} (one copy), or, for puts of up to the queue pair's
 * inline limit, through the inline scratch (the provider copies it at post time). A put returns when its source may
 * be reused: at once for staged and inline puts, after the completion for zero-copy ones (the nbi form returns at
 * once and leaves the source busy until quiet, as in OpenSHMEM). READs into staging are copied out by the completion
 * handler, so non-blocking gets into any buffer work.
 * <p>
 * wrId: bits 0-15 staging slot + 1 (0: none), 16-31 PE, 32-35 device, 36-39 kind; receives of the bootstrap links
 * have negative wrIds.
 * <p>
 * Single-threaded: the heap's calling thread posts and polls. Allocation-free after construction (one reusable
 * {@link SendRequest}; deferred-copy targets in arrays).
 */
final class VerbsChannel implements CompletionHandler
{
    private static final int KIND_PLAIN = 1;
    private static final int KIND_PUT_STAGED = 2;
    private static final int KIND_GET_STAGED = 3;
    private static final int KIND_KEEP = 4;
    private static final int POLL_LIMIT = 64;

    private final HeapMesh mesh;
    private final LocalRegistrations registrations;
    private final HeapFailure failure;
    private final Waiter waiter;
    private final int size;
    private final QueuePair[] qps;
    private final int[] deviceOf;
    private final int[] maxInline;
    private final CompletionQueue[] cqs;
    private final StagingSlots[] staging;
    private final Int2IntHashMap[] peerOfQp;
    private final long[] posted;
    private final long[] completed;
    private final MutableDirectBuffer[][] getTarget;
    private final int[][] getIndex;
    private final int[][] getLength;
    private final SendRequest request = new SendRequest(1);
    private final long opTimeoutNs;
    private long outstanding;
    private int currentDevice;

    /**
     * @param mesh          the queue pairs.
     * @param verbsPeer     per PE, true when it is reached through verbs.
     * @param registrations the heap's registered local copies.
     * @param failure       the heap's failure state.
     * @param waiter        the heap's waiter.
     * @param options       staging geometry and timeouts.
     */
    VerbsChannel(final HeapMesh mesh, final boolean[] verbsPeer, final LocalRegistrations registrations,
        final HeapFailure failure, final Waiter waiter, final ShmemOptions options)
    {
        this.mesh = mesh;
        this.registrations = registrations;
        this.failure = failure;
        this.waiter = waiter;
        this.size = mesh.size();
        this.opTimeoutNs = options.opTimeoutNs();
        final int devices = mesh.devices().size();
        this.qps = new QueuePair[size];
        this.deviceOf = new int[size];
        this.maxInline = new int[size];
        this.cqs = new CompletionQueue[devices];
        this.staging = new StagingSlots[devices];
        this.peerOfQp = new Int2IntHashMap[devices];
        this.posted = new long[size];
        this.completed = new long[size];
        this.getTarget = new MutableDirectBuffer[devices][];
        this.getIndex = new int[devices][];
        this.getLength = new int[devices][];
        for (int d = 0; d < devices; d++)
        {
            cqs[d] = mesh.cq(d);
            peerOfQp[d] = new Int2IntHashMap(-1);
        }
        for (int q = 0; q < size; q++)
        {
            if (q == mesh.me())
            {
                continue;
            }
            final int d = mesh.deviceOf(q);
            deviceOf[q] = d;
            peerOfQp[d].put(mesh.queuePair(q).qpNumber(), q);
            if (!verbsPeer[q])
            {
                continue;
            }
            qps[q] = mesh.queuePair(q);
            maxInline[q] = Math.min(StagingSlots.SCRATCH_BYTES, qps[q].config().maxInlineLength());
            if (null == staging[d])
            {
                staging[d] = new StagingSlots(mesh.devices().get(d).pd(), options.stagingSlots(),
                    options.stagingSlotBytes());
                getTarget[d] = new MutableDirectBuffer[options.stagingSlots()];
                getIndex[d] = new int[options.stagingSlots()];
                getLength[d] = new int[options.stagingSlots()];
            }
        }
    }

    /** @return requests posted and not yet completed. */
    long outstanding()
    {
        return outstanding;
    }

    // ---------------------------------------------------------------- puts and gets

    /**
     * A put of {@code length} bytes to {@code remote} (verbs address) on {@code pe}.
     *
     * @param blocking true: the caller needs the source back before the next quiet (so a large registered source
     *                 is still sent in place, but the caller must {@link #awaitCompleted} the returned request);
     *                 false: the source may stay busy until quiet.
     * @return the request to await before the source may be reused, or 0 when it may be reused now (staged or
     *         inline, or not blocking).
     */
    long put(final int pe, final long remote, final int rkey, final DirectBuffer src, final int srcIndex,
        final int length, final boolean blocking)
    {
        if (0 == length)
        {
            return 0;
        }
        final int d = deviceOf[pe];
        final boolean registered = registrations.find(src, srcIndex, length, d);
        if (length <= maxInline[pe])
        {
            final StagingSlots s = staging[d];
            if (registered)
            {
                request.clearSges().sge(registrations.foundIova(), length, registrations.foundLkey());
            }
            else
            {
                s.buffer().putBytes(0, src, srcIndex, length);
                request.clearSges().sge(s.address(), length, s.lkey());
            }
            request.opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED | SendRequest.INLINE).remote(remote, rkey);
            post(pe, KIND_PLAIN, -1);
            return 0;
        }
        if (registered && (!blocking || length > staging[d].slotBytes()))
        {
            request.clearSges().sge(registrations.foundIova(), length, registrations.foundLkey())
                .opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED).remote(remote, rkey);
            final long seq = post(pe, KIND_PLAIN, -1);
            return blocking ? seq : 0;
        }
        // staged: copied chunk by chunk into bounce slots; the source is free when this returns
        final StagingSlots s = staging[d];
        final int chunk = s.slotBytes();
        for (int done = 0; done < length; done += chunk)
        {
            final int n = Math.min(chunk, length - done);
            final int slot = acquireSlot(pe, d);
            final int offset = s.offset(slot);
            s.buffer().putBytes(offset, src, srcIndex + done, n);
            request.clearSges().sge(s.address() + offset, n, s.lkey())
                .opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED).remote(remote + done, rkey);
            post(pe, KIND_PUT_STAGED, slot);
        }
        return 0;
    }

    /**
     * A get of {@code length} bytes from {@code remote} (verbs address) on {@code pe} into {@code dst}.
     *
     * @param blocking true: return when the bytes are in {@code dst}; false: when posted (they are there after
     *                 quiet).
     */
    void get(final int pe, final long remote, final int rkey, final MutableDirectBuffer dst, final int dstIndex,
        final int length, final boolean blocking)
    {
        if (0 == length)
        {
            return;
        }
        final int d = deviceOf[pe];
        long last;
        if (registrations.find(dst, dstIndex, length, d))
        {
            request.clearSges().sge(registrations.foundIova(), length, registrations.foundLkey())
                .opcode(Opcode.RDMA_READ).flags(SendRequest.SIGNALED).remote(remote, rkey);
            last = post(pe, KIND_PLAIN, -1);
        }
        else
        {
            // staged: READ into bounce slots; the completion handler copies each into dst, in order
            final StagingSlots s = staging[d];
            final int chunk = s.slotBytes();
            last = 0;
            for (int done = 0; done < length; done += chunk)
            {
                final int n = Math.min(chunk, length - done);
                final int slot = acquireSlot(pe, d);
                getTarget[d][slot] = dst;
                getIndex[d][slot] = dstIndex + done;
                getLength[d][slot] = n;
                request.clearSges().sge(s.address() + s.offset(slot), n, s.lkey())
                    .opcode(Opcode.RDMA_READ).flags(SendRequest.SIGNALED).remote(remote + done, rkey);
                last = post(pe, KIND_GET_STAGED, slot);
            }
        }
        if (blocking)
        {
            awaitCompleted(pe, last, "get");
        }
    }

    /** An 8-byte WRITE of {@code value}, inline when the queue pair allows it (returns at once). */
    void putLong(final int pe, final long remote, final int rkey, final long value)
    {
        final int d = deviceOf[pe];
        final StagingSlots s = staging[d];
        if (maxInline[pe] >= Long.BYTES)
        {
            s.buffer().putLong(0, value);
            request.clearSges().sge(s.address(), Long.BYTES, s.lkey())
                .opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED | SendRequest.INLINE).remote(remote, rkey);
            post(pe, KIND_PLAIN, -1);
            return;
        }
        final int slot = acquireSlot(pe, d);
        s.buffer().putLong(s.offset(slot), value);
        request.clearSges().sge(s.address() + s.offset(slot), Long.BYTES, s.lkey())
            .opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED).remote(remote, rkey);
        post(pe, KIND_PUT_STAGED, slot);
    }

    // ---------------------------------------------------------------- atomics

    /** @return the value before the add (waits for the completion). */
    long fetchAdd(final int pe, final long remote, final int rkey, final long delta)
    {
        return fetchingAtomic(pe, Opcode.ATOMIC_FETCH_AND_ADD, remote, rkey, delta, 0, "atomicFetchAdd");
    }

    /** @return the value before (swapped when it equalled {@code expected}; waits for the completion). */
    long compareSwap(final int pe, final long remote, final int rkey, final long expected, final long desired)
    {
        return fetchingAtomic(pe, Opcode.ATOMIC_CMP_AND_SWP, remote, rkey, expected, desired, "atomicCompareSwap");
    }

    /** @return the 8 bytes at {@code remote}, read with an RDMA READ (waits for the completion). */
    long readLong(final int pe, final long remote, final int rkey)
    {
        return fetchingAtomic(pe, Opcode.RDMA_READ, remote, rkey, 0, 0, "getLong");
    }

    /** A fetch-and-add whose result nobody reads (returns once posted; complete after quiet). */
    void add(final int pe, final long remote, final int rkey, final long delta)
    {
        final StagingSlots s = staging[deviceOf[pe]];
        request.clearSges().sge(s.address() + StagingSlots.SINK_OFFSET, Long.BYTES, s.lkey())
            .opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendRequest.SIGNALED).remote(remote, rkey).atomic(delta, 0);
        post(pe, KIND_PLAIN, -1);
    }

    /** Sets the word atomically with respect to other atomics: a compare-and-swap loop from the fetched value. */
    void set(final int pe, final long remote, final int rkey, final long value)
    {
        long seen = fetchAdd(pe, remote, rkey, 0);
        while (true)
        {
            final long before = compareSwap(pe, remote, rkey, seen, value);
            if (before == seen)
            {
                return;
            }
            seen = before;
        }
    }

    private long fetchingAtomic(final int pe, final int opcode, final long remote, final int rkey,
        final long compareAdd, final long swap, final String what)
    {
        final int d = deviceOf[pe];
        final StagingSlots s = staging[d];
        final int slot = acquireSlot(pe, d);
        final int offset = s.offset(slot);
        request.clearSges().sge(s.address() + offset, Long.BYTES, s.lkey())
            .opcode(opcode).flags(SendRequest.SIGNALED).remote(remote, rkey).atomic(compareAdd, swap);
        // on a failure or timeout the slot stays taken: the provider may still write the result into it
        awaitCompleted(pe, post(pe, KIND_KEEP, slot), what);
        final long value = s.buffer().getLongVolatile(offset);
        s.release(slot);
        return value;
    }

    // ---------------------------------------------------------------- completion

    /**
     * Waits until every request posted so far completed (remote completion of puts and atomics, data of gets in
     * place).
     *
     * @param timeoutNs limit.
     */
    void quiet(final long timeoutNs)
    {
        if (0 == outstanding)
        {
            failure.check();
            return;
        }
        waiter.begin(timeoutNs);
        while (outstanding > 0)
        {
            waiter.idle(poll(), "quiet", -1);
        }
        failure.check();
    }

    /** @return true when some peer is reached through verbs. */
    boolean hasVerbsPeers()
    {
        for (final QueuePair qp : qps)
        {
            if (null != qp)
            {
                return true;
            }
        }
        return false;
    }

    /** @return completions handled (0 when idle). */
    int poll()
    {
        int work = 0;
        for (int d = 0; d < cqs.length; d++)
        {
            currentDevice = d;
            work += cqs[d].poll(this, POLL_LIMIT);
        }
        return work;
    }

    /** {@inheritDoc} */
    public void onCompletion(final long wrId, final int status, final int opcode, final int byteLength,
        final int immediateData, final int flags, final int qpNumber)
    {
        if (wrId < 0)
        {
            // a receive of the bootstrap link: never used for data, so it only ever completes when the link breaks
            if (WcStatus.SUCCESS != status)
            {
                final int pe = peerOfQp[currentDevice].get(qpNumber);
                failure.fail(ShmemException.Reason.PEER_FAILED, pe, "PE " + pe + " disconnected or died (" +
                    WcStatus.name(status) + ")", null);
            }
            return;
        }
        final int slot = (int)(wrId & 0xFFFF) - 1;
        final int pe = (int)((wrId >>> 16) & 0xFFFF);
        final int d = (int)((wrId >>> 32) & 0xF);
        final int kind = (int)((wrId >>> 36) & 0xF);
        completed[pe]++;
        outstanding--;
        if (WcStatus.SUCCESS != status)
        {
            failure.fail(WcStatus.REM_ACCESS_ERR == status ? ShmemException.Reason.REMOTE_ACCESS :
                ShmemException.Reason.PEER_FAILED, pe, "a one-sided request to PE " + pe + " failed: " +
                WcStatus.name(status), null);
        }
        if (KIND_PUT_STAGED == kind)
        {
            staging[d].release(slot);
        }
        else if (KIND_GET_STAGED == kind)
        {
            final StagingSlots s = staging[d];
            if (WcStatus.SUCCESS == status)
            {
                getTarget[d][slot].putBytes(getIndex[d][slot], s.buffer(), s.offset(slot), getLength[d][slot]);
            }
            getTarget[d][slot] = null;
            s.release(slot);
        }
    }

    /** Records a failure for every verbs-path or direct peer whose queue pair went to ERROR. */
    void checkQueuePairs()
    {
        for (int q = 0; q < size; q++)
        {
            if (q != mesh.me() && QpState.ERROR == mesh.queuePair(q).state())
            {
                failure.fail(ShmemException.Reason.PEER_FAILED, q, "PE " + q +
                    " is gone (its connection is in ERROR: it died, closed or timed out)", null);
            }
        }
    }

    // ---------------------------------------------------------------- internals

    private long post(final int pe, final int kind, final int slot)
    {
        failure.check();
        request.wrId(((long)kind << 36) | ((long)deviceOf[pe] << 32) | ((long)pe << 16) | (slot + 1));
        int rc = qps[pe].postSend(request);
        if (QueuePair.BACK_PRESSURED == rc)
        {
            waiter.begin(opTimeoutNs);
            do
            {
                waiter.idle(poll(), "post", pe);
                rc = qps[pe].postSend(request);
            }
            while (QueuePair.BACK_PRESSURED == rc);
        }
        if (QueuePair.OK != rc)
        {
            throw failure.fail(ShmemException.Reason.PEER_FAILED, pe, "posting to PE " + pe + " failed: " +
                QueuePair.describe(rc), null);
        }
        outstanding++;
        return ++posted[pe];
    }

    private int acquireSlot(final int pe, final int d)
    {
        int slot = staging[d].acquire();
        if (slot < 0)
        {
            waiter.begin(opTimeoutNs);
            do
            {
                waiter.idle(poll(), "staging", pe);
                slot = staging[d].acquire();
            }
            while (slot < 0);
        }
        return slot;
    }

    /**
     * Waits until request {@code seq} of {@code pe} completed.
     *
     * @param pe   the peer.
     * @param seq  a value returned by a post (0: nothing to wait for).
     * @param what the call, for a timeout message.
     */
    void awaitCompleted(final int pe, final long seq, final String what)
    {
        if (completed[pe] >= seq)
        {
            failure.check();
            return;
        }
        waiter.begin(opTimeoutNs);
        while (completed[pe] < seq)
        {
            waiter.idle(poll(), what, pe);
        }
        failure.check();
    }

    /** Frees the staging memory (the queue pairs belong to the mesh). */
    void close()
    {
        for (final StagingSlots s : staging)
        {
            if (null != s)
            {
                s.close();
            }
        }
    }
}
