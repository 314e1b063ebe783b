// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.agrona.UnsafeApi;

/**
 * Element-wise kernels for FLOAT16 and BFLOAT16: each element is widened to float, the operator is applied in
 * float32 and the result is rounded back to nearest-even. Rounding happens per application, so a reduction over
 * n ranks rounds n-1 times, as NCCL's half-precision kernels do.
 *
 * <p>The operator switch is inside the loop here because the conversions dominate the cost; the branch is
 * loop-invariant and predicted. Package-private; {@link Reductions} validates and dispatches. No allocation.
 */
final class HalfKernels
{
    private HalfKernels()
    {
    }

    static void reduce(
        final boolean bfloat, final ReduceOp op, final long dst, final long a, final long b, final long count)
    {
        final long end = count << 1;
        for (long o = 0; o < end; o += 2)
        {
            final float x = toFloat(bfloat, UnsafeApi.getShort(a + o));
            final float y = toFloat(bfloat, UnsafeApi.getShort(b + o));
            UnsafeApi.putShort(dst + o, fromFloat(bfloat, apply(op, x, y)));
        }
    }

    static void divide(final boolean bfloat, final long addr, final long count, final float divisor)
    {
        final long end = count << 1;
        for (long o = 0; o < end; o += 2)
        {
            final float x = toFloat(bfloat, UnsafeApi.getShort(addr + o));
            UnsafeApi.putShort(addr + o, fromFloat(bfloat, x / divisor));
        }
    }

    private static float apply(final ReduceOp op, final float x, final float y)
    {
        switch (op)
        {
            case SUM:
            case AVG:
                return x + y;
            case PROD:
                return x * y;
            case MIN:
                return Math.min(x, y);
            case MAX:
                return Math.max(x, y);
            default:
                throw new IllegalStateException("reduce op " + op + " has no half-precision kernel");
        }
    }

    private static float toFloat(final boolean bfloat, final short bits)
    {
        return bfloat ? BFloat16.toFloat(bits) : Float16.toFloat(bits);
    }

    private static short fromFloat(final boolean bfloat, final float value)
    {
        return bfloat ? BFloat16.fromFloat(value) : Float16.fromFloat(value);
    }
}
