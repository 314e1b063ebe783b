// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.coll;

import io.verbs4j.MemoryRegion;
import io.verbs4j.collectives.types.BFloat16;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.Float16;
import io.verbs4j.collectives.types.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.LongUnaryOperator;

/**
 * The correctness check's data: every input element is a small integer that depends on the rank and the index, so
 * every result is exact in every type: sums and averages stay within 256 (exact in bfloat16) up to 13 ranks and within
 * int8 up to 10; beyond that, integer types wrap (the expected values wrap the same way, as the kernels do) while
 * 16-bit floats would round, so a check with many ranks can report rounding as wrong. Outputs are filled with {@link
 * #POISON} first, so a result that is
 * never written is counted wrong.
 * <pre>
 *   sum     in(r, i) = i mod 3 + (r + i) mod n             out(i) = n (i mod 3) + n(n-1)/2
 *   avg     in(r, i) = i mod 3 + 2 ((r + i) mod n)         out(i) = i mod 3 + n - 1         (the sum divides by n)
 *   prod    in(r, i) = 2 if (r + i) mod 3 = 0 else 1       out(i) = a power of two
 *   min/max in(r, i) = (5r + 3i) mod 11 - 5 (uint8: - 0)
 *   and/or/xor in(r, i) = (37r + 11i + 3) and 0x7f
 *   non-reducing collectives: block b of rank r, element k = (7r + k) mod 13 (gather family), (5 src + 3 dst + k)
 *   mod 17 (alltoall), (3 block + k + root) mod 17 (scatter)
 * </pre>
 * Elements are compared bit for bit after encoding the expected value in the type. Not thread-safe: one per rank.
 */
public final class DataPattern
{
    /** Byte that fills outputs before a checked call. */
    public static final byte POISON = 0x7B;
    private static final int STAGE_BYTES = 64 << 10;

    private final ByteBuffer stage = ByteBuffer.allocate(STAGE_BYTES).order(ByteOrder.nativeOrder());

    /**
     * Input of rank {@code r} at element {@code i} of a reduction.
     *
     * @param op    operator.
     * @param type  element type.
     * @param ranks world size.
     * @param r     rank.
     * @param i     element index in the full (unscattered) buffer.
     * @return the value.
     */
    public static long reduceInput(final ReduceOp op, final DataType type, final int ranks, final int r, final long i)
    {
        switch (op)
        {
            case SUM:
                return i % 3 + (r + i) % ranks;
            case AVG:
                return i % 3 + 2 * ((r + i) % ranks);
            case PROD:
                return 0 == (r + i) % 3 ? 2 : 1;
            case MIN:
            case MAX:
                return (5L * r + 3 * i) % 11 - (DataType.UINT8 == type ? 0 : 5);
            default:
                return (37L * r + 11 * i + 3) & 0x7f;
        }
    }

    /**
     * Expected result at element {@code i} of a reduction over all ranks.
     *
     * @param op    operator.
     * @param type  element type.
     * @param ranks world size.
     * @param i     element index.
     * @return the value (integers: before wrapping to the type, except for AVG, which wraps the sum first).
     */
    public static long reduceExpected(final ReduceOp op, final DataType type, final int ranks, final long i)
    {
        long acc = reduceInput(op, type, ranks, 0, i);
        for (int r = 1; r < ranks; r++)
        {
            final long v = reduceInput(op, type, ranks, r, i);
            switch (op)
            {
                case SUM:
                case AVG:
                    acc += v;
                    break;
                case PROD:
                    acc *= v;
                    break;
                case MIN:
                    acc = Math.min(acc, v);
                    break;
                case MAX:
                    acc = Math.max(acc, v);
                    break;
                case AND:
                    acc &= v;
                    break;
                case OR:
                    acc |= v;
                    break;
                default:
                    acc ^= v;
                    break;
            }
        }
        if (ReduceOp.AVG == op)
        {
            return type.isInteger() ? wrap(type, acc) / ranks : acc / ranks;
        }
        return acc;
    }

    /**
     * Element {@code k} of rank {@code r}'s block in the gather family (allgather, gather, broadcast, sendrecv).
     *
     * @param r rank.
     * @param k element index.
     * @return the value.
     */
    public static long block(final int r, final long k)
    {
        return (7L * r + k) % 13;
    }

    /**
     * Element {@code k} of the block rank {@code src} sends to rank {@code dst} in alltoall.
     *
     * @param src sender.
     * @param dst receiver.
     * @param k   element index.
     * @return the value.
     */
    public static long allToAll(final int src, final int dst, final long k)
    {
        return (5L * src + 3L * dst + k) % 17;
    }

    /**
     * Element {@code k} of the root's block for rank {@code b} in scatter.
     *
     * @param root the root.
     * @param b    the destination rank.
     * @param k    element index.
     * @return the value.
     */
    public static long scatter(final int root, final int b, final long k)
    {
        return (3L * b + k + root) % 17;
    }

    /**
     * Fills bytes with {@link #POISON}.
     *
     * @param region region.
     * @param offset first byte.
     * @param bytes  length.
     */
    public void poison(final MemoryRegion region, final long offset, final long bytes)
    {
        if (bytes > 0)
        {
            region.setMemory(offset, bytes, POISON);
        }
    }

    /**
     * Writes {@code count} elements.
     *
     * @param region  region.
     * @param offset  byte offset of element 0.
     * @param count   elements.
     * @param type    element type.
     * @param valueAt value of element {@code i}.
     */
    public void write(final MemoryRegion region, final long offset, final long count, final DataType type,
        final LongUnaryOperator valueAt)
    {
        final int es = type.sizeBytes();
        final int perStage = STAGE_BYTES / es;
        for (long first = 0; first < count; first += perStage)
        {
            final int n = (int)Math.min(perStage, count - first);
            stage.clear();
            for (int j = 0; j < n; j++)
            {
                put(type, encode(type, valueAt.applyAsLong(first + j)));
            }
            stage.flip();
            region.putBytes(offset + first * es, stage);
        }
    }

    /**
     * Counts elements that differ (bit for bit) from the expected values.
     *
     * @param region     region.
     * @param offset     byte offset of element 0.
     * @param count      elements.
     * @param type       element type.
     * @param expectedAt expected value of element {@code i}.
     * @return number of wrong elements.
     */
    public long countWrong(final MemoryRegion region, final long offset, final long count, final DataType type,
        final LongUnaryOperator expectedAt)
    {
        final int es = type.sizeBytes();
        final int perStage = STAGE_BYTES / es;
        long wrong = 0;
        for (long first = 0; first < count; first += perStage)
        {
            final int n = (int)Math.min(perStage, count - first);
            stage.clear().limit(n * es);
            region.getBytes(offset + first * es, stage);
            stage.flip();
            for (int j = 0; j < n; j++)
            {
                if (get(type) != encode(type, expectedAt.applyAsLong(first + j)))
                {
                    wrong++;
                }
            }
        }
        return wrong;
    }

    /**
     * The bits of an integer value stored in a type, zero-extended to 64 bits.
     *
     * @param type the type.
     * @param v    the value (integers wrap to the type's width).
     * @return the bits.
     */
    public static long encode(final DataType type, final long v)
    {
        switch (type)
        {
            case INT8:
            case UINT8:
                return v & 0xFFL;
            case INT32:
                return v & 0xFFFF_FFFFL;
            case INT64:
                return v;
            case FLOAT16:
                return Float16.fromFloat((float)v) & 0xFFFFL;
            case BFLOAT16:
                return BFloat16.fromFloat((float)v) & 0xFFFFL;
            case FLOAT32:
                return Float.floatToRawIntBits((float)v) & 0xFFFF_FFFFL;
            default:
                return Double.doubleToRawLongBits(v);
        }
    }

    private static long wrap(final DataType type, final long v)
    {
        switch (type)
        {
            case INT8:
                return (byte)v;
            case UINT8:
                return v & 0xFF;
            case INT32:
                return (int)v;
            default:
                return v;
        }
    }

    private void put(final DataType type, final long bits)
    {
        switch (type.sizeBytes())
        {
            case 1:
                stage.put((byte)bits);
                break;
            case 2:
                stage.putShort((short)bits);
                break;
            case 4:
                stage.putInt((int)bits);
                break;
            default:
                stage.putLong(bits);
                break;
        }
    }

    private long get(final DataType type)
    {
        switch (type.sizeBytes())
        {
            case 1:
                return stage.get() & 0xFFL;
            case 2:
                return stage.getShort() & 0xFFFFL;
            case 4:
                return stage.getInt() & 0xFFFF_FFFFL;
            default:
                return stage.getLong();
        }
    }
}
