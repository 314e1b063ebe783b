// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.agrona.UnsafeApi;

/**
 * Element-wise kernels for FLOAT32 and FLOAT64: {@code dst[i] = a[i] op b[i]} in plain IEEE arithmetic
 * (no fused multiply-add, no reassociation), so results are reproducible bit for bit.
 *
 * <p>MIN/MAX use {@link Math#min}/{@link Math#max}: NaN propagates and -0.0 orders below +0.0. Package-private;
 * {@link Reductions} validates and dispatches. {@code dst} may equal {@code a} or {@code b}. No allocation.
 */
final class FloatKernels
{
    private FloatKernels()
    {
    }

    static void float32(final ReduceOp op, final long dst, final long a, final long b, final long count)
    {
        final long end = count << 2;
        switch (op)
        {
            case SUM:
            case AVG:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putFloat(dst + o, UnsafeApi.getFloat(a + o) + UnsafeApi.getFloat(b + o));
                }
                break;
            case PROD:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putFloat(dst + o, UnsafeApi.getFloat(a + o) * UnsafeApi.getFloat(b + o));
                }
                break;
            case MIN:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putFloat(dst + o, Math.min(UnsafeApi.getFloat(a + o), UnsafeApi.getFloat(b + o)));
                }
                break;
            case MAX:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putFloat(dst + o, Math.max(UnsafeApi.getFloat(a + o), UnsafeApi.getFloat(b + o)));
                }
                break;
            default:
                throw new IllegalStateException("reduce op " + op + " has no float kernel");
        }
    }

    static void float64(final ReduceOp op, final long dst, final long a, final long b, final long count)
    {
        final long end = count << 3;
        switch (op)
        {
            case SUM:
            case AVG:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putDouble(dst + o, UnsafeApi.getDouble(a + o) + UnsafeApi.getDouble(b + o));
                }
                break;
            case PROD:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putDouble(dst + o, UnsafeApi.getDouble(a + o) * UnsafeApi.getDouble(b + o));
                }
                break;
            case MIN:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putDouble(dst + o, Math.min(UnsafeApi.getDouble(a + o), UnsafeApi.getDouble(b + o)));
                }
                break;
            case MAX:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putDouble(dst + o, Math.max(UnsafeApi.getDouble(a + o), UnsafeApi.getDouble(b + o)));
                }
                break;
            default:
                throw new IllegalStateException("reduce op " + op + " has no float kernel");
        }
    }
}
