// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.verbs4j.collectives.types.BFloat16;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.Float16;
import io.verbs4j.collectives.types.ReduceOp;

/**
 * Test inputs and exact expected results. Inputs are small integers (exact in every floating type, so sums and
 * products are exact whatever the order), arbitrary bits for bitwise ops, and {1, -1, 2} for PROD.
 */
public final class Cases
{
    /** Type/op pairs covering every type and every op. */
    public static final Object[][] TYPE_OPS = {
        {DataType.FLOAT32, ReduceOp.SUM},
        {DataType.INT32, ReduceOp.MAX},
        {DataType.FLOAT64, ReduceOp.AVG},
        {DataType.INT8, ReduceOp.XOR},
        {DataType.BFLOAT16, ReduceOp.SUM},
        {DataType.FLOAT16, ReduceOp.PROD},
        {DataType.UINT8, ReduceOp.MIN},
        {DataType.INT64, ReduceOp.AVG},
        {DataType.INT32, ReduceOp.AND},
        {DataType.INT64, ReduceOp.OR},
        {DataType.FLOAT32, ReduceOp.MIN},
        {DataType.FLOAT16, ReduceOp.AVG},
    };

    private Cases()
    {
    }

    /**
     * @param type  type.
     * @param op    op.
     * @param rank  contributing rank.
     * @param index element index.
     * @return the input value as a long (bits for bitwise, value otherwise).
     */
    public static long value(final DataType type, final ReduceOp op, final int rank, final long index)
    {
        if (op.isBitwise())
        {
            return (rank * 0x9E3779B97F4A7C15L + index * 0xC2B2AE3D27D4EB4FL) >>> 7;
        }
        if (ReduceOp.PROD == op)
        {
            final int k = (int)((rank + index) % 3);
            return 0 == k ? 1 : (1 == k ? -1 : 2);
        }
        final long v = (rank * 7L + index * 3L) % 11 - 5;
        return DataType.UINT8 == type ? v + 5 : v;
    }

    /**
     * @param type  type.
     * @param op    op.
     * @param rank  rank.
     * @param count elements.
     * @return rank's input, native order.
     */
    public static byte[] input(final DataType type, final ReduceOp op, final int rank, final long count)
    {
        final ByteBuffer out = ByteBuffer.allocate((int)(count * type.sizeBytes())).order(ByteOrder.nativeOrder());
        for (long i = 0; i < count; i++)
        {
            put(out, type, value(type, op, rank, i), value(type, op, rank, i));
        }
        return out.array();
    }

    /**
     * @param type  type.
     * @param op    op.
     * @param size  ranks.
     * @param count elements.
     * @return the AllReduce result, native order.
     */
    public static byte[] allReduce(final DataType type, final ReduceOp op, final int size, final long count)
    {
        return allReduce(type, op, size, count, 0);
    }

    /**
     * @param type      type.
     * @param op        op.
     * @param size      ranks.
     * @param count     elements.
     * @param firstElem index of the first element (for slices of a larger input).
     * @return the AllReduce result of elements firstElem..firstElem+count, native order.
     */
    public static byte[] allReduce(final DataType type, final ReduceOp op, final int size, final long count,
        final long firstElem)
    {
        final ByteBuffer out = ByteBuffer.allocate((int)(count * type.sizeBytes())).order(ByteOrder.nativeOrder());
        for (long i = firstElem; i < firstElem + count; i++)
        {
            long acc = value(type, op, 0, i);
            double facc = acc;
            for (int r = 1; r < size; r++)
            {
                final long v = value(type, op, r, i);
                acc = combine(type, op, acc, v);
                facc = fcombine(op, facc, v);
            }
            if (ReduceOp.AVG == op)
            {
                acc = acc / size;
                facc = facc / size;
            }
            put(out, type, acc, facc);
        }
        return out.array();
    }

    private static long combine(final DataType type, final ReduceOp op, final long a, final long b)
    {
        switch (op)
        {
            case SUM:
            case AVG:
                return a + b;
            case PROD:
                return a * b;
            case MIN:
                return DataType.UINT8 == type ? Math.min(a & 0xFF, b & 0xFF) : Math.min(a, b);
            case MAX:
                return DataType.UINT8 == type ? Math.max(a & 0xFF, b & 0xFF) : Math.max(a, b);
            case AND:
                return a & b;
            case OR:
                return a | b;
            default:
                return a ^ b;
        }
    }

    private static double fcombine(final ReduceOp op, final double a, final long b)
    {
        switch (op)
        {
            case PROD:
                return a * b;
            case MIN:
                return Math.min(a, b);
            case MAX:
                return Math.max(a, b);
            default:
                return a + b;
        }
    }

    private static void put(final ByteBuffer out, final DataType type, final long value, final double fvalue)
    {
        switch (type)
        {
            case INT8:
            case UINT8:
                out.put((byte)value);
                break;
            case INT32:
                out.putInt((int)value);
                break;
            case INT64:
                out.putLong(value);
                break;
            case FLOAT16:
                out.putShort(Float16.fromFloat((float)fvalue));
                break;
            case BFLOAT16:
                out.putShort(BFloat16.fromFloat((float)fvalue));
                break;
            case FLOAT32:
                out.putFloat((float)fvalue);
                break;
            default:
                out.putDouble(fvalue);
                break;
        }
    }
}
