// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import io.verbs4j.collectives.CollectivesConfiguration;
import org.agrona.UnsafeApi;

/**
 * The FLOAT32, FLOAT64, INT32 and INT64 kernels for buffers of {@link #MIN_BYTES} or more, at the speed of the
 * vector unit: {@code dst[i] = a[i] op b[i]} block by block through two per-thread Java arrays.
 *
 * <p>Why the detour: HotSpot's C2 vectorizes a counted loop over Java arrays (SSE/AVX/AVX-512, whatever the CPU
 * has), but not the same loop over raw addresses, where it cannot prove that {@code dst}, {@code a} and {@code b}
 * do not overlap; the scalar kernels ({@link FloatKernels}, {@link IntegerKernels}) do one element per step. Each
 * block of {@link #BLOCK_BYTES} is copied into the arrays (an intrinsic memcpy), reduced there by a loop the JIT
 * vectorizes, and copied out; the three copies stay in L1. Measured in {@code benchmarks/RESULTS.md} ("Reduction
 * kernels"); the JDK Vector API over the same blocks measured no faster, so no incubator module is needed.
 *
 * <p>Results are bit-identical to the scalar kernels: every element is computed by the same single IEEE or
 * two's-complement operation, the vector unit only does several at once, in no other order. The one freedom is a
 * NaN's payload, which Java leaves unspecified: when both operands are NaNs the vectorized loop may pass on the
 * other operand's payload (C2 commutes the vector add), and interpreted code the first's. So two NaNs with
 * different payloads at one index can leave ranks that reduce independently (recursive doubling) with NaNs of
 * different payloads; every other input, NaN or not, gives the same bits everywhere. {@code dst} may equal
 * {@code a} or {@code b}: a block is read in full before any of it is written. Thread-safe: the arrays are per
 * thread, allocated on a thread's first large reduction and reused after that (no allocation per call).
 */
final class StagedKernels
{
    /**
     * Buffers below this size go to the scalar kernels, where the copies would cost more than they save
     * ({@link CollectivesConfiguration#STAGED_KERNELS_MIN_BYTES_PROP_NAME}).
     */
    static final long MIN_BYTES = CollectivesConfiguration.stagedKernelsMinBytes();
    /** Bytes per staged block: three blocks in flight fit in a 32 KiB L1 data cache. */
    static final int BLOCK_BYTES = 4096;


    /** Where every primitive array's elements start (the same offset for each element type in HotSpot, checked). */
    private static final long ARRAY_BASE = arrayBase();

    private static final ThreadLocal<Blocks> BLOCKS = ThreadLocal.withInitial(Blocks::new);

    private StagedKernels()
    {
    }

    private static long arrayBase()
    {
        final long base = UnsafeApi.arrayBaseOffset(float[].class);
        if (base != UnsafeApi.arrayBaseOffset(double[].class) || base != UnsafeApi.arrayBaseOffset(int[].class) ||
            base != UnsafeApi.arrayBaseOffset(long[].class))
        {
            throw new IllegalStateException("primitive arrays start at different offsets in this JVM");
        }
        return base;
    }

    /** The per-thread arrays, one pair per element type, created on first use. */
    private static final class Blocks
    {
        private final Object[] first = new Object[DataType.values().length];
        private final Object[] second = new Object[DataType.values().length];

        /** @return the first array of {@code type}'s pair, creating the pair on first use. */
        Object first(final DataType type)
        {
            final int index = type.ordinal();
            if (null == first[index])
            {
                first[index] = newArray(type);
                second[index] = newArray(type);
            }
            return first[index];
        }

        /** @return the second array of {@code type}'s pair, after {@link #first}. */
        Object second(final DataType type)
        {
            return second[type.ordinal()];
        }

        private static Object newArray(final DataType type)
        {
            switch (type)
            {
                case FLOAT32:
                    return new float[BLOCK_BYTES / Float.BYTES];
                case FLOAT64:
                    return new double[BLOCK_BYTES / Double.BYTES];
                case INT32:
                    return new int[BLOCK_BYTES / Integer.BYTES];
                case INT64:
                    return new long[BLOCK_BYTES / Long.BYTES];
                default:
                    throw new IllegalStateException("no staged kernel for " + type);
            }
        }
    }

    /**
     * @param type  element type.
     * @param op    operator.
     * @param bytes buffer length in bytes.
     * @return true if {@code type} and {@code op} have a staged kernel and the buffer is large enough for it.
     */
    static boolean handles(final DataType type, final ReduceOp op, final long bytes)
    {
        if (bytes < MIN_BYTES)
        {
            return false;
        }
        switch (type)
        {
            case FLOAT32:
            case FLOAT64:
                return ReduceOp.AND != op && ReduceOp.OR != op && ReduceOp.XOR != op;
            case INT32:
            case INT64:
                return true;
            default:
                return false;
        }
    }

    /**
     * {@code dst[i] = a[i] op b[i]} for a type and op that {@link #handles} accepts (AVG reduces as SUM).
     *
     * @param type  FLOAT32, FLOAT64, INT32 or INT64.
     * @param op    operator.
     * @param dst   address of the result; may equal {@code a} or {@code b}.
     * @param a     address of the first operand.
     * @param b     address of the second operand.
     * @param count number of elements.
     */
    static void reduce(final DataType type, final ReduceOp op, final long dst, final long a, final long b,
        final long count)
    {
        final Blocks blocks = BLOCKS.get();
        final Object x = blocks.first(type);
        final Object y = blocks.second(type);
        final int size = type.sizeBytes();
        final int block = BLOCK_BYTES / size;
        for (long done = 0; done < count; done += block)
        {
            final int n = (int)Math.min(block, count - done);
            final long offset = done * size;
            final long bytes = (long)n * size;
            UnsafeApi.copyMemory(null, a + offset, x, ARRAY_BASE, bytes);
            UnsafeApi.copyMemory(null, b + offset, y, ARRAY_BASE, bytes);
            switch (type)
            {
                case FLOAT32:
                    float32(op, (float[])x, (float[])y, n);
                    break;
                case FLOAT64:
                    float64(op, (double[])x, (double[])y, n);
                    break;
                case INT32:
                    int32(op, (int[])x, (int[])y, n);
                    break;
                case INT64:
                    int64(op, (long[])x, (long[])y, n);
                    break;
                default:
                    throw new IllegalStateException("no staged kernel for " + type);
            }
            UnsafeApi.copyMemory(x, ARRAY_BASE, null, dst + offset, bytes);
        }
    }

    private static void float32(final ReduceOp op, final float[] x, final float[] y, final int n)
    {
        switch (op)
        {
            case SUM:
            case AVG:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] + y[i];
                }
                break;
            case PROD:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] * y[i];
                }
                break;
            case MIN:
                for (int i = 0; i < n; i++)
                {
                    x[i] = Math.min(x[i], y[i]);
                }
                break;
            case MAX:
                for (int i = 0; i < n; i++)
                {
                    x[i] = Math.max(x[i], y[i]);
                }
                break;
            default:
                throw new IllegalStateException("reduce op " + op + " has no float kernel");
        }
    }

    private static void float64(final ReduceOp op, final double[] x, final double[] y, final int n)
    {
        switch (op)
        {
            case SUM:
            case AVG:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] + y[i];
                }
                break;
            case PROD:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] * y[i];
                }
                break;
            case MIN:
                for (int i = 0; i < n; i++)
                {
                    x[i] = Math.min(x[i], y[i]);
                }
                break;
            case MAX:
                for (int i = 0; i < n; i++)
                {
                    x[i] = Math.max(x[i], y[i]);
                }
                break;
            default:
                throw new IllegalStateException("reduce op " + op + " has no float kernel");
        }
    }

    private static void int32(final ReduceOp op, final int[] x, final int[] y, final int n)
    {
        switch (op)
        {
            case SUM:
            case AVG:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] + y[i];
                }
                break;
            case PROD:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] * y[i];
                }
                break;
            case MIN:
                for (int i = 0; i < n; i++)
                {
                    x[i] = Math.min(x[i], y[i]);
                }
                break;
            case MAX:
                for (int i = 0; i < n; i++)
                {
                    x[i] = Math.max(x[i], y[i]);
                }
                break;
            case AND:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] & y[i];
                }
                break;
            case OR:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] | y[i];
                }
                break;
            case XOR:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] ^ y[i];
                }
                break;
            default:
                throw new IllegalStateException("unhandled reduce op " + op);
        }
    }

    private static void int64(final ReduceOp op, final long[] x, final long[] y, final int n)
    {
        switch (op)
        {
            case SUM:
            case AVG:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] + y[i];
                }
                break;
            case PROD:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] * y[i];
                }
                break;
            case MIN:
                for (int i = 0; i < n; i++)
                {
                    x[i] = Math.min(x[i], y[i]);
                }
                break;
            case MAX:
                for (int i = 0; i < n; i++)
                {
                    x[i] = Math.max(x[i], y[i]);
                }
                break;
            case AND:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] & y[i];
                }
                break;
            case OR:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] | y[i];
                }
                break;
            case XOR:
                for (int i = 0; i < n; i++)
                {
                    x[i] = x[i] ^ y[i];
                }
                break;
            default:
                throw new IllegalStateException("unhandled reduce op " + op);
        }
    }
}
