// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.agrona.UnsafeApi;

/**
 * Entry point of the reduction kernels over off-heap memory addressed by raw {@code long} addresses.
 *
 * <p>Contract for every method:
 * <ul>
 *   <li>Elements are in native byte order, {@code count} consecutive elements of {@code type} at each address;
 *       the caller guarantees that the memory is valid for {@code type.byteLength(count)} bytes. Addresses should
 *       be aligned to the element size (required on platforms other than x86/aarch64).</li>
 *   <li>The destination may be the same address as either source (in-place); other partial overlaps are
 *       undefined.</li>
 *   <li>Hot path: no allocation, no locking; arguments are validated up front and only an invalid call
 *       throws.</li>
 *   <li>Deterministic: the same input bits give the same output bits on a given platform.</li>
 *   <li>Thread-safe (stateless); concurrent calls on disjoint memory do not interfere.</li>
 * </ul>
 *
 * <pre>{@code
 * Reductions.reduce(DataType.FLOAT32, ReduceOp.AVG, accumulator, incoming, count); // per peer
 * Reductions.finishAverage(DataType.FLOAT32, accumulator, count, worldSize);       // once at the end
 * }</pre>
 */
public final class Reductions
{
    private Reductions()
    {
    }

    /**
     * In-place reduction: {@code dst[i] = dst[i] op src[i]} for {@code i} in {@code [0, count)}.
     *
     * @param type    element type.
     * @param op      operator; AVG applies SUM (call {@link #finishAverage} once after the last step).
     * @param dstAddr address of the accumulator, read and written.
     * @param srcAddr address of the operand, only read.
     * @param count   number of elements, may be 0 (then nothing is touched).
     * @throws IllegalArgumentException if type/op is null, a bitwise op is used on a floating-point type, count is
     *                                  negative, or an address is 0 while count is positive.
     */
    public static void reduce(
        final DataType type, final ReduceOp op, final long dstAddr, final long srcAddr, final long count)
    {
        reduce(type, op, dstAddr, dstAddr, srcAddr, count);
    }

    /**
     * Out-of-place reduction: {@code dst[i] = a[i] op b[i]} for {@code i} in {@code [0, count)}.
     *
     * @param type    element type.
     * @param op      operator; AVG applies SUM (call {@link #finishAverage} once after the last step).
     * @param dstAddr address of the result; may equal {@code aAddr} or {@code bAddr}.
     * @param aAddr   address of the first operand.
     * @param bAddr   address of the second operand.
     * @param count   number of elements, may be 0.
     * @throws IllegalArgumentException as for {@link #reduce(DataType, ReduceOp, long, long, long)}.
     */
    public static void reduce(
        final DataType type,
        final ReduceOp op,
        final long dstAddr,
        final long aAddr,
        final long bAddr,
        final long count)
    {
        validate(type, op, count);
        if (0 == count)
        {
            return;
        }
        requireAddress("dstAddr", dstAddr);
        requireAddress("aAddr", aAddr);
        requireAddress("bAddr", bAddr);
        final long byteLength = type.byteLength(count); // rejects counts whose byte length overflows
        if (StagedKernels.handles(type, op, byteLength))
        {
            StagedKernels.reduce(type, op, dstAddr, aAddr, bAddr, count);
            return;
        }

        switch (type)
        {
            case INT8:
                IntegerKernels.int8(op, false, dstAddr, aAddr, bAddr, count);
                break;
            case UINT8:
                IntegerKernels.int8(op, true, dstAddr, aAddr, bAddr, count);
                break;
            case INT32:
                IntegerKernels.int32(op, dstAddr, aAddr, bAddr, count);
                break;
            case INT64:
                IntegerKernels.int64(op, dstAddr, aAddr, bAddr, count);
                break;
            case FLOAT16:
                HalfKernels.reduce(false, op, dstAddr, aAddr, bAddr, count);
                break;
            case BFLOAT16:
                HalfKernels.reduce(true, op, dstAddr, aAddr, bAddr, count);
                break;
            case FLOAT32:
                FloatKernels.float32(op, dstAddr, aAddr, bAddr, count);
                break;
            case FLOAT64:
                FloatKernels.float64(op, dstAddr, aAddr, bAddr, count);
                break;
            default:
                throw new IllegalStateException("unhandled data type " + type);
        }
    }

    /**
     * Completes an AVG reduction in place: {@code x[i] = x[i] / worldSize}, applied once after the SUM steps.
     *
     * <p>Floating-point types divide in their own precision (FLOAT16/BFLOAT16 in float32, then rounded to nearest
     * even). Integer types use truncating division toward zero, as Java's {@code /} and C's do; so the integer
     * average of {-3, 0} over 2 ranks is -1, and UINT8 divides the unsigned value. Because the divide happens after
     * the sum, an integer sum that wrapped gives a wrapped average; use a wider type if that can happen.
     *
     * @param type      element type.
     * @param addr      address of the summed elements, read and written.
     * @param count     number of elements, may be 0.
     * @param worldSize number of contributions summed, at least 1 (1 leaves the data unchanged).
     * @throws IllegalArgumentException if type is null, count is negative, worldSize is below 1 or addr is 0
     *                                  while count is positive.
     */
    public static void finishAverage(final DataType type, final long addr, final long count, final int worldSize)
    {
        validate(type, ReduceOp.AVG, count);
        if (worldSize < 1)
        {
            throw new IllegalArgumentException("worldSize must be >= 1 but was " + worldSize);
        }
        if (0 == count || 1 == worldSize)
        {
            return;
        }
        requireAddress("addr", addr);
        final long byteLength = type.byteLength(count);

        switch (type)
        {
            case INT8:
                for (long o = 0; o < byteLength; o++)
                {
                    UnsafeApi.putByte(addr + o, (byte)(UnsafeApi.getByte(addr + o) / worldSize));
                }
                break;
            case UINT8:
                for (long o = 0; o < byteLength; o++)
                {
                    UnsafeApi.putByte(addr + o, (byte)((UnsafeApi.getByte(addr + o) & 0xFF) / worldSize));
                }
                break;
            case INT32:
                for (long o = 0; o < byteLength; o += 4)
                {
                    UnsafeApi.putInt(addr + o, UnsafeApi.getInt(addr + o) / worldSize);
                }
                break;
            case INT64:
                for (long o = 0; o < byteLength; o += 8)
                {
                    UnsafeApi.putLong(addr + o, UnsafeApi.getLong(addr + o) / worldSize);
                }
                break;
            case FLOAT16:
                HalfKernels.divide(false, addr, count, worldSize);
                break;
            case BFLOAT16:
                HalfKernels.divide(true, addr, count, worldSize);
                break;
            case FLOAT32:
                for (long o = 0; o < byteLength; o += 4)
                {
                    UnsafeApi.putFloat(addr + o, UnsafeApi.getFloat(addr + o) / worldSize);
                }
                break;
            case FLOAT64:
                for (long o = 0; o < byteLength; o += 8)
                {
                    UnsafeApi.putDouble(addr + o, UnsafeApi.getDouble(addr + o) / worldSize);
                }
                break;
            default:
                throw new IllegalStateException("unhandled data type " + type);
        }
    }

    private static void validate(final DataType type, final ReduceOp op, final long count)
    {
        if (null == op)
        {
            throw new IllegalArgumentException("reduce op must not be null");
        }
        op.validateFor(type);
        if (count < 0)
        {
            throw new IllegalArgumentException("count must be >= 0 but was " + count);
        }
    }

    private static void requireAddress(final String name, final long address)
    {
        if (0 == address)
        {
            throw new IllegalArgumentException(name + " is 0 (null pointer) but count is positive; pass the address of "
                + "allocated memory");
        }
    }
}
