// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.algorithm;

import io.verbs4j.collectives.link.MemView;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.collectives.types.Reductions;
import org.agrona.UnsafeApi;

/**
 * Copies and reductions between {@link MemView}s, split where a view's native memory is not contiguous (regions
 * over 2 GiB). Stateless, allocation-free.
 */
public final class DataMover
{
    private DataMover()
    {
    }

    /**
     * @param dst     destination.
     * @param dstOff  byte offset in it.
     * @param src     source.
     * @param srcOff  byte offset in it.
     * @param bytes   bytes to copy.
     */
    public static void copy(final MemView dst, final long dstOff, final MemView src, final long srcOff,
        final long bytes)
    {
        long done = 0;
        while (done < bytes)
        {
            final long n = Math.min(bytes - done,
                Math.min(dst.contiguousBytes(dstOff + done), src.contiguousBytes(srcOff + done)));
            final long from = src.nativeAddress(srcOff + done);
            final long to = dst.nativeAddress(dstOff + done);
            if (from != to)
            {
                UnsafeApi.copyMemory(from, to, n);
            }
            done += n;
        }
    }

    /**
     * {@code dst[i] = a[i] op b[i]} for {@code count} elements.
     *
     * @param type   element type.
     * @param op     operator (AVG sums).
     * @param dst    destination (may be a or b).
     * @param dstOff byte offset.
     * @param a      first operand.
     * @param aOff   byte offset.
     * @param b      second operand.
     * @param bOff   byte offset.
     * @param count  elements.
     */
    public static void reduce(final DataType type, final ReduceOp op, final MemView dst, final long dstOff,
        final MemView a, final long aOff, final MemView b, final long bOff, final long count)
    {
        final int size = type.sizeBytes();
        long done = 0;
        while (done < count)
        {
            final long doneBytes = done * size;
            final long spanBytes = Math.min(dst.contiguousBytes(dstOff + doneBytes),
                Math.min(a.contiguousBytes(aOff + doneBytes), b.contiguousBytes(bOff + doneBytes)));
            final long n = Math.min(count - done, spanBytes / size);
            if (n <= 0)
            {
                throw new IllegalArgumentException("buffer offsets must be multiples of the element size " + size);
            }
            Reductions.reduce(type, op, dst.nativeAddress(dstOff + doneBytes), a.nativeAddress(aOff + doneBytes),
                b.nativeAddress(bOff + doneBytes), n);
            done += n;
        }
    }

    /**
     * Divides sums by the world size (AVG), the same way on every rank.
     *
     * @param type      element type.
     * @param view      the sums.
     * @param off       byte offset.
     * @param count     elements.
     * @param worldSize divisor.
     */
    public static void finishAverage(final DataType type, final MemView view, final long off, final long count,
        final int worldSize)
    {
        final int size = type.sizeBytes();
        long done = 0;
        while (done < count)
        {
            final long doneBytes = done * size;
            final long n = Math.min(count - done, view.contiguousBytes(off + doneBytes) / size);
            if (n <= 0)
            {
                throw new IllegalArgumentException("buffer offsets must be multiples of the element size " + size);
            }
            Reductions.finishAverage(type, view.nativeAddress(off + doneBytes), n, worldSize);
            done += n;
        }
    }
}
