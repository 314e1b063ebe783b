// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.agrona.UnsafeApi;

/**
 * Element-wise kernels for INT8, UINT8, INT32 and INT64: {@code dst[i] = a[i] op b[i]}.
 *
 * <p>Package-private: {@link Reductions} validates arguments and dispatches here. The operator switch sits outside
 * the loops so each loop body is a single operation the JIT can unroll. Overflow wraps (two's complement).
 * {@code dst} may equal {@code a} or {@code b}: each element is read before it is written. No allocation.
 */
final class IntegerKernels
{
    private IntegerKernels()
    {
    }

    static void int8(final ReduceOp op, final boolean unsigned, final long dst, final long a, final long b,
        final long count)
    {
        switch (op)
        {
            case SUM:
            case AVG:
                for (long i = 0; i < count; i++)
                {
                    UnsafeApi.putByte(dst + i, (byte)(UnsafeApi.getByte(a + i) + UnsafeApi.getByte(b + i)));
                }
                break;
            case PROD:
                // The low 8 bits of a product are the same for signed and unsigned operands.
                for (long i = 0; i < count; i++)
                {
                    UnsafeApi.putByte(dst + i, (byte)(UnsafeApi.getByte(a + i) * UnsafeApi.getByte(b + i)));
                }
                break;
            case MIN:
                if (unsigned)
                {
                    for (long i = 0; i < count; i++)
                    {
                        final int x = UnsafeApi.getByte(a + i) & 0xFF;
                        final int y = UnsafeApi.getByte(b + i) & 0xFF;
                        UnsafeApi.putByte(dst + i, (byte)Math.min(x, y));
                    }
                }
                else
                {
                    for (long i = 0; i < count; i++)
                    {
                        UnsafeApi.putByte(dst + i, (byte)Math.min(UnsafeApi.getByte(a + i), UnsafeApi.getByte(b + i)));
                    }
                }
                break;
            case MAX:
                if (unsigned)
                {
                    for (long i = 0; i < count; i++)
                    {
                        final int x = UnsafeApi.getByte(a + i) & 0xFF;
                        final int y = UnsafeApi.getByte(b + i) & 0xFF;
                        UnsafeApi.putByte(dst + i, (byte)Math.max(x, y));
                    }
                }
                else
                {
                    for (long i = 0; i < count; i++)
                    {
                        UnsafeApi.putByte(dst + i, (byte)Math.max(UnsafeApi.getByte(a + i), UnsafeApi.getByte(b + i)));
                    }
                }
                break;
            case AND:
                for (long i = 0; i < count; i++)
                {
                    UnsafeApi.putByte(dst + i, (byte)(UnsafeApi.getByte(a + i) & UnsafeApi.getByte(b + i)));
                }
                break;
            case OR:
                for (long i = 0; i < count; i++)
                {
                    UnsafeApi.putByte(dst + i, (byte)(UnsafeApi.getByte(a + i) | UnsafeApi.getByte(b + i)));
                }
                break;
            case XOR:
                for (long i = 0; i < count; i++)
                {
                    UnsafeApi.putByte(dst + i, (byte)(UnsafeApi.getByte(a + i) ^ UnsafeApi.getByte(b + i)));
                }
                break;
            default:
                throw new IllegalStateException("unhandled reduce op " + op);
        }
    }

    static void int32(final ReduceOp op, final long dst, final long a, final long b, final long count)
    {
        final long end = count << 2;
        switch (op)
        {
            case SUM:
            case AVG:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putInt(dst + o, UnsafeApi.getInt(a + o) + UnsafeApi.getInt(b + o));
                }
                break;
            case PROD:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putInt(dst + o, UnsafeApi.getInt(a + o) * UnsafeApi.getInt(b + o));
                }
                break;
            case MIN:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putInt(dst + o, Math.min(UnsafeApi.getInt(a + o), UnsafeApi.getInt(b + o)));
                }
                break;
            case MAX:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putInt(dst + o, Math.max(UnsafeApi.getInt(a + o), UnsafeApi.getInt(b + o)));
                }
                break;
            case AND:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putInt(dst + o, UnsafeApi.getInt(a + o) & UnsafeApi.getInt(b + o));
                }
                break;
            case OR:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putInt(dst + o, UnsafeApi.getInt(a + o) | UnsafeApi.getInt(b + o));
                }
                break;
            case XOR:
                for (long o = 0; o < end; o += 4)
                {
                    UnsafeApi.putInt(dst + o, UnsafeApi.getInt(a + o) ^ UnsafeApi.getInt(b + o));
                }
                break;
            default:
                throw new IllegalStateException("unhandled reduce op " + op);
        }
    }

    static void int64(final ReduceOp op, final long dst, final long a, final long b, final long count)
    {
        final long end = count << 3;
        switch (op)
        {
            case SUM:
            case AVG:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putLong(dst + o, UnsafeApi.getLong(a + o) + UnsafeApi.getLong(b + o));
                }
                break;
            case PROD:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putLong(dst + o, UnsafeApi.getLong(a + o) * UnsafeApi.getLong(b + o));
                }
                break;
            case MIN:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putLong(dst + o, Math.min(UnsafeApi.getLong(a + o), UnsafeApi.getLong(b + o)));
                }
                break;
            case MAX:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putLong(dst + o, Math.max(UnsafeApi.getLong(a + o), UnsafeApi.getLong(b + o)));
                }
                break;
            case AND:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putLong(dst + o, UnsafeApi.getLong(a + o) & UnsafeApi.getLong(b + o));
                }
                break;
            case OR:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putLong(dst + o, UnsafeApi.getLong(a + o) | UnsafeApi.getLong(b + o));
                }
                break;
            case XOR:
                for (long o = 0; o < end; o += 8)
                {
                    UnsafeApi.putLong(dst + o, UnsafeApi.getLong(a + o) ^ UnsafeApi.getLong(b + o));
                }
                break;
            default:
                throw new IllegalStateException("unhandled reduce op " + op);
        }
    }
}
