// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The one-sided half of {@link SymmetricHeap}'s API (puts, gets, put-with-signal, atomics), kept in its own file so
 * that each stays readable; users only see {@link SymmetricHeap}. Every call checks its arguments (programming
 * errors are {@link IllegalArgumentException}s), then takes the peer's path: the direct view of the PE's copy
 * ({@link SymmetricMemory#ptr(int)}, this PE's own copy included) when there is one, else the {@link VerbsChannel}.
 * Allocation-free unless it throws. Contract and threading: see {@link SymmetricHeap}.
 */
abstract class HeapOperations
{
    final int me;
    final int size;
    final HeapFailure failure;
    VerbsChannel verbs;

    HeapOperations(final int me, final int size, final HeapFailure failure)
    {
        this.me = me;
        this.size = size;
        this.failure = failure;
    }

    // ---------------------------------------------------------------- puts and gets

    /**
     * Put ({@code nvshmem_putmem}): copies {@code length} bytes of {@code src} into {@code dest} at
     * {@code destOffset} on {@code pe}. Returns when {@code src} may be reused; the data is delivered by the next
     * {@link SymmetricHeap#quiet()} (ordered by {@link SymmetricHeap#fence()}).
     *
     * @param dest       symmetric destination.
     * @param destOffset byte offset in it.
     * @param src        local source (any buffer; inside a symmetric object's local copy it is sent without a copy).
     * @param srcIndex   first byte of the source.
     * @param length     bytes.
     * @param pe         target PE.
     */
    public void put(final SymmetricMemory dest, final long destOffset, final DirectBuffer src, final int srcIndex,
        final int length, final int pe)
    {
        checkRma(dest, destOffset, length, pe);
        final AtomicBuffer view = dest.direct(pe);
        if (null != view)
        {
            view.putBytes((int)destOffset, src, srcIndex, length);
            return;
        }
        verbs.awaitCompleted(pe, verbs.put(pe, dest.remoteAddress(pe) + destOffset, dest.rkey(pe), src, srcIndex,
            length, true), "put");
    }

    /**
     * Non-blocking put ({@code nvshmem_putmem_nbi}): as {@link #put}, but {@code src} may be read until the next
     * {@link SymmetricHeap#quiet()}.
     *
     * @param dest       symmetric destination.
     * @param destOffset byte offset in it.
     * @param src        local source.
     * @param srcIndex   first byte of the source.
     * @param length     bytes.
     * @param pe         target PE.
     */
    public void putNbi(final SymmetricMemory dest, final long destOffset, final DirectBuffer src, final int srcIndex,
        final int length, final int pe)
    {
        checkRma(dest, destOffset, length, pe);
        final AtomicBuffer view = dest.direct(pe);
        if (null != view)
        {
            view.putBytes((int)destOffset, src, srcIndex, length);
            return;
        }
        verbs.put(pe, dest.remoteAddress(pe) + destOffset, dest.rkey(pe), src, srcIndex, length, false);
    }

    /**
     * Single-word put ({@code nvshmem_long_p}): stores {@code value} at {@code destOffset} (8-aligned) on {@code pe};
     * returns at once.
     *
     * @param dest       symmetric destination.
     * @param destOffset byte offset, a multiple of 8.
     * @param value      the value.
     * @param pe         target PE.
     */
    public void putLong(final SymmetricMemory dest, final long destOffset, final long value, final int pe)
    {
        checkWord(dest, destOffset, pe);
        final AtomicBuffer view = dest.direct(pe);
        if (null != view)
        {
            view.putLong((int)destOffset, value);
            return;
        }
        verbs.putLong(pe, dest.remoteAddress(pe) + destOffset, dest.rkey(pe), value);
    }

    /**
     * Get ({@code nvshmem_getmem}): copies {@code length} bytes of {@code src} at {@code srcOffset} on {@code pe}
     * into {@code dst}; returns when they are there.
     *
     * @param dst       local destination (inside a symmetric object's local copy it is filled without a copy).
     * @param dstIndex  first byte of the destination.
     * @param src       symmetric source.
     * @param srcOffset byte offset in it.
     * @param length    bytes.
     * @param pe        source PE.
     * @throws ShmemException on failure or timeout.
     */
    public void get(final MutableDirectBuffer dst, final int dstIndex, final SymmetricMemory src, final long srcOffset,
        final int length, final int pe)
    {
        checkRma(src, srcOffset, length, pe);
        final AtomicBuffer view = src.direct(pe);
        if (null != view)
        {
            dst.putBytes(dstIndex, view, (int)srcOffset, length);
            return;
        }
        verbs.get(pe, src.remoteAddress(pe) + srcOffset, src.rkey(pe), dst, dstIndex, length, true);
    }

    /**
     * Non-blocking get ({@code nvshmem_getmem_nbi}): {@code dst} is filled by the next {@link SymmetricHeap#quiet()}.
     *
     * @param dst       local destination.
     * @param dstIndex  first byte of the destination.
     * @param src       symmetric source.
     * @param srcOffset byte offset in it.
     * @param length    bytes.
     * @param pe        source PE.
     */
    public void getNbi(final MutableDirectBuffer dst, final int dstIndex, final SymmetricMemory src,
        final long srcOffset, final int length, final int pe)
    {
        checkRma(src, srcOffset, length, pe);
        final AtomicBuffer view = src.direct(pe);
        if (null != view)
        {
            dst.putBytes(dstIndex, view, (int)srcOffset, length);
            return;
        }
        verbs.get(pe, src.remoteAddress(pe) + srcOffset, src.rkey(pe), dst, dstIndex, length, false);
    }

    /**
     * Single-word get ({@code nvshmem_long_g}).
     *
     * @param src       symmetric source.
     * @param srcOffset byte offset, a multiple of 8.
     * @param pe        source PE.
     * @return the value (a volatile read on the direct path, an RDMA READ otherwise).
     */
    public long getLong(final SymmetricMemory src, final long srcOffset, final int pe)
    {
        checkWord(src, srcOffset, pe);
        final AtomicBuffer view = src.direct(pe);
        if (null != view)
        {
            return view.getLongVolatile((int)srcOffset);
        }
        return verbs.readLong(pe, src.remoteAddress(pe) + srcOffset, src.rkey(pe));
    }

    // ---------------------------------------------------------------- put with signal

    /**
     * Put with signal ({@code nvshmem_putmem_signal}): a put, then an update of the 8-byte signal word at
     * {@code sigOffset} of {@code sig} on the same PE, such that a PE that observes the update (e.g. with
     * {@link SymmetricHeap#signalWait}) sees the data. Returns when {@code src} may be reused.
     *
     * @param dest       symmetric destination.
     * @param destOffset byte offset in it.
     * @param src        local source.
     * @param srcIndex   first byte of the source.
     * @param length     bytes (0 updates the signal alone).
     * @param sig        symmetric object holding the signal word.
     * @param sigOffset  its offset, a multiple of 8.
     * @param signal     the value stored or added.
     * @param op         SET or ADD (ADD is atomic, for several signalling PEs).
     * @param pe         target PE.
     */
    public void putSignal(final SymmetricMemory dest, final long destOffset, final DirectBuffer src,
        final int srcIndex, final int length, final SymmetricMemory sig, final long sigOffset, final long signal,
        final SignalOp op, final int pe)
    {
        putSignal(dest, destOffset, src, srcIndex, length, sig, sigOffset, signal, op, pe, true);
    }

    /**
     * Non-blocking put with signal ({@code nvshmem_putmem_signal_nbi}): as {@link #putSignal}, but {@code src} may
     * be read until the next {@link SymmetricHeap#quiet()}.
     *
     * @param dest       symmetric destination.
     * @param destOffset byte offset in it.
     * @param src        local source.
     * @param srcIndex   first byte of the source.
     * @param length     bytes.
     * @param sig        symmetric object holding the signal word.
     * @param sigOffset  its offset, a multiple of 8.
     * @param signal     the value stored or added.
     * @param op         SET or ADD.
     * @param pe         target PE.
     */
    public void putSignalNbi(final SymmetricMemory dest, final long destOffset, final DirectBuffer src,
        final int srcIndex, final int length, final SymmetricMemory sig, final long sigOffset, final long signal,
        final SignalOp op, final int pe)
    {
        putSignal(dest, destOffset, src, srcIndex, length, sig, sigOffset, signal, op, pe, false);
    }

    private void putSignal(final SymmetricMemory dest, final long destOffset, final DirectBuffer src,
        final int srcIndex, final int length, final SymmetricMemory sig, final long sigOffset, final long signal,
        final SignalOp op, final int pe, final boolean blocking)
    {
        checkRma(dest, destOffset, length, pe);
        checkWord(sig, sigOffset, pe);
        final AtomicBuffer view = dest.direct(pe);
        if (null != view)
        {
            view.putBytes((int)destOffset, src, srcIndex, length);
            final AtomicBuffer sigView = sig.direct(pe);
            if (SignalOp.SET == op)
            {
                // release: the data stores above are visible to whoever acquires the signal
                sigView.putLongRelease((int)sigOffset, signal);
            }
            else
            {
                sigView.getAndAddLong((int)sigOffset, signal);
            }
            return;
        }
        final long data = verbs.put(pe, dest.remoteAddress(pe) + destOffset, dest.rkey(pe), src, srcIndex, length,
            blocking);
        // same queue pair, after the data: RC places requests in order, so the signal lands after the data; it is
        // posted before waiting for an in-place source, so the two travel back to back
        if (SignalOp.SET == op)
        {
            verbs.putLong(pe, sig.remoteAddress(pe) + sigOffset, sig.rkey(pe), signal);
        }
        else
        {
            verbs.add(pe, sig.remoteAddress(pe) + sigOffset, sig.rkey(pe), signal);
        }
        verbs.awaitCompleted(pe, data, "putSignal");
    }

    // ---------------------------------------------------------------- atomics

    /**
     * @param dest   symmetric object.
     * @param offset offset of the 8-byte word, a multiple of 8.
     * @param delta  added atomically.
     * @param pe     target PE.
     * @return the value before ({@code nvshmem_long_atomic_fetch_add}).
     */
    public long atomicFetchAdd(final SymmetricMemory dest, final long offset, final long delta, final int pe)
    {
        checkWord(dest, offset, pe);
        final AtomicBuffer view = dest.direct(pe);
        if (null != view)
        {
            return view.getAndAddLong((int)offset, delta);
        }
        return verbs.fetchAdd(pe, dest.remoteAddress(pe) + offset, dest.rkey(pe), delta);
    }

    /**
     * Non-fetching atomic add ({@code nvshmem_long_atomic_add}): returns at once, complete by the next quiet.
     *
     * @param dest   symmetric object.
     * @param offset offset of the word, a multiple of 8.
     * @param delta  added atomically.
     * @param pe     target PE.
     */
    public void atomicAdd(final SymmetricMemory dest, final long offset, final long delta, final int pe)
    {
        checkWord(dest, offset, pe);
        final AtomicBuffer view = dest.direct(pe);
        if (null != view)
        {
            view.getAndAddLong((int)offset, delta);
            return;
        }
        verbs.add(pe, dest.remoteAddress(pe) + offset, dest.rkey(pe), delta);
    }

    /**
     * @param dest     symmetric object.
     * @param offset   offset of the word, a multiple of 8.
     * @param expected value compared with.
     * @param desired  value stored when they are equal.
     * @param pe       target PE.
     * @return the value before ({@code nvshmem_long_atomic_compare_swap}); equal to {@code expected} on success.
     */
    public long atomicCompareSwap(final SymmetricMemory dest, final long offset, final long expected,
        final long desired, final int pe)
    {
        checkWord(dest, offset, pe);
        final AtomicBuffer view = dest.direct(pe);
        if (null != view)
        {
            return view.compareAndExchangeLong((int)offset, expected, desired);
        }
        return verbs.compareSwap(pe, dest.remoteAddress(pe) + offset, dest.rkey(pe), expected, desired);
    }

    /**
     * @param src    symmetric object.
     * @param offset offset of the word, a multiple of 8.
     * @param pe     target PE.
     * @return the value, read atomically with respect to the other atomics ({@code nvshmem_long_atomic_fetch}).
     */
    public long atomicFetch(final SymmetricMemory src, final long offset, final int pe)
    {
        checkWord(src, offset, pe);
        final AtomicBuffer view = src.direct(pe);
        if (null != view)
        {
            return view.getLongVolatile((int)offset);
        }
        return verbs.fetchAdd(pe, src.remoteAddress(pe) + offset, src.rkey(pe), 0);
    }

    /**
     * Stores atomically with respect to the other atomics ({@code nvshmem_long_atomic_set}). On the verbs path this
     * is a fetch and a compare-and-swap loop, so it waits for completions.
     *
     * @param dest   symmetric object.
     * @param offset offset of the word, a multiple of 8.
     * @param value  the value.
     * @param pe     target PE.
     */
    public void atomicSet(final SymmetricMemory dest, final long offset, final long value, final int pe)
    {
        checkWord(dest, offset, pe);
        final AtomicBuffer view = dest.direct(pe);
        if (null != view)
        {
            view.putLongVolatile((int)offset, value);
            return;
        }
        verbs.set(pe, dest.remoteAddress(pe) + offset, dest.rkey(pe), value);
    }

    // ---------------------------------------------------------------- argument checks (programming errors)

    final void checkPe(final int pe)
    {
        if (pe < 0 || pe >= size)
        {
            throw new IllegalArgumentException("PE " + pe + " is not in [0, " + size + ")");
        }
    }

    final void checkMemory(final SymmetricMemory memory)
    {
        if (memory.heap() != this || memory.isFreed())
        {
            throw new IllegalArgumentException(memory.isFreed() ? "the symmetric object was freed" :
                "the symmetric object belongs to another heap");
        }
    }

    final void checkRma(final SymmetricMemory memory, final long offset, final int length, final int pe)
    {
        failure.check();
        checkPe(pe);
        checkMemory(memory);
        if (offset < 0 || length < 0 || offset + length > memory.length())
        {
            throw new IllegalArgumentException("bytes [" + offset + ", " + (offset + length) + ") are outside the " +
                memory.length() + "-byte symmetric object");
        }
    }

    final void checkWord(final SymmetricMemory memory, final long offset, final int pe)
    {
        checkRma(memory, offset, Long.BYTES, pe);
        if (0 != (offset & 7))
        {
            throw new IllegalArgumentException("offset " + offset + " of an 8-byte word is not a multiple of 8");
        }
    }
}
