// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReductionsTest
{
    private static final int COUNT = 1031; // prime, so no loop happens to line up with a power of two

    static Stream<Arguments> validCombinations()
    {
        final List<Arguments> list = new ArrayList<>();
        for (final DataType type : DataType.values())
        {
            for (final ReduceOp op : ReduceOp.values())
            {
                if (op.supports(type))
                {
                    list.add(Arguments.of(type, op, 31L * type.ordinal() + op.ordinal()));
                }
            }
        }
        return list.stream();
    }

    @ParameterizedTest(name = "{0} {1} seed {2}")
    @MethodSource("validCombinations")
    void shouldMatchScalarReferenceInPlaceAndOutOfPlace(final DataType type, final ReduceOp op, final long seed)
    {
        final long bytes = type.byteLength(COUNT);
        try (OffHeap a = new OffHeap(bytes); OffHeap b = new OffHeap(bytes); OffHeap out = new OffHeap(bytes))
        {
            fillRandom(type, a.address, COUNT, new Random(seed));
            fillRandom(type, b.address, COUNT, new Random(~seed));

            Reductions.reduce(type, op, out.address, a.address, b.address, COUNT);
            for (int i = 0; i < COUNT; i++)
            {
                final long expected = reference(type, op, read(type, a.address, i), read(type, b.address, i));
                assertEquals(expected, read(type, out.address, i), type + " " + op + " element " + i);
            }

            // In place: dst = dst op src must give the same bits as the out-of-place form.
            Reductions.reduce(type, op, a.address, b.address, COUNT);
            for (int i = 0; i < COUNT; i++)
            {
                assertEquals(read(type, out.address, i), read(type, a.address, i), "in-place element " + i);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64"})
    void shouldRejectBitwiseOpsOnFloatTypes(final DataType type)
    {
        for (final ReduceOp op : new ReduceOp[]{ReduceOp.AND, ReduceOp.OR, ReduceOp.XOR})
        {
            final IllegalArgumentException ex = assertThrows(
                IllegalArgumentException.class, () -> Reductions.reduce(type, op, 8, 8, 0));
            assertTrue(ex.getMessage().contains(op.name()) && ex.getMessage().contains(type.name()), ex.getMessage());
        }
    }

    @Test
    void shouldRejectBadArguments()
    {
        assertThrows(IllegalArgumentException.class, () -> Reductions.reduce(null, ReduceOp.SUM, 8, 8, 1));
        assertThrows(IllegalArgumentException.class, () -> Reductions.reduce(DataType.INT32, null, 8, 8, 1));
        final IllegalArgumentException negative = assertThrows(
            IllegalArgumentException.class, () -> Reductions.reduce(DataType.INT32, ReduceOp.SUM, 8, 8, -1));
        assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
        final IllegalArgumentException nullAddress = assertThrows(
            IllegalArgumentException.class, () -> Reductions.reduce(DataType.INT32, ReduceOp.SUM, 0, 8, 1));
        assertTrue(nullAddress.getMessage().contains("dstAddr"), nullAddress.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> Reductions.reduce(DataType.INT64, ReduceOp.SUM, 8, 8, Long.MAX_VALUE / 4));
        assertThrows(IllegalArgumentException.class,
            () -> Reductions.finishAverage(DataType.FLOAT32, 8, 1, 0));
        // count 0 touches nothing, so null addresses are fine.
        Reductions.reduce(DataType.FLOAT32, ReduceOp.SUM, 0, 0, 0);
        Reductions.finishAverage(DataType.FLOAT32, 0, 0, 3);
    }

    @Test
    void shouldWrapIntegersOnOverflow()
    {
        try (OffHeap x = new OffHeap(8); OffHeap y = new OffHeap(8))
        {
            UnsafeApi.putByte(x.address, (byte)127);
            UnsafeApi.putByte(y.address, (byte)1);
            Reductions.reduce(DataType.INT8, ReduceOp.SUM, x.address, y.address, 1);
            assertEquals(-128, UnsafeApi.getByte(x.address));

            UnsafeApi.putByte(x.address, (byte)200);
            UnsafeApi.putByte(y.address, (byte)100);
            Reductions.reduce(DataType.UINT8, ReduceOp.SUM, x.address, y.address, 1);
            assertEquals(44, UnsafeApi.getByte(x.address) & 0xFF, "300 mod 256");

            UnsafeApi.putInt(x.address, Integer.MAX_VALUE);
            UnsafeApi.putInt(y.address, 1);
            Reductions.reduce(DataType.INT32, ReduceOp.SUM, x.address, y.address, 1);
            assertEquals(Integer.MIN_VALUE, UnsafeApi.getInt(x.address));

            UnsafeApi.putLong(x.address, Long.MAX_VALUE);
            UnsafeApi.putLong(y.address, 2);
            Reductions.reduce(DataType.INT64, ReduceOp.PROD, x.address, y.address, 1);
            assertEquals(-2L, UnsafeApi.getLong(x.address));
        }
    }

    @Test
    void shouldCompareUint8Unsigned()
    {
        try (OffHeap x = new OffHeap(1); OffHeap y = new OffHeap(1); OffHeap out = new OffHeap(1))
        {
            UnsafeApi.putByte(x.address, (byte)200);
            UnsafeApi.putByte(y.address, (byte)100);
            Reductions.reduce(DataType.UINT8, ReduceOp.MAX, out.address, x.address, y.address, 1);
            assertEquals(200, UnsafeApi.getByte(out.address) & 0xFF);
            Reductions.reduce(DataType.UINT8, ReduceOp.MIN, out.address, x.address, y.address, 1);
            assertEquals(100, UnsafeApi.getByte(out.address) & 0xFF);
            Reductions.reduce(DataType.INT8, ReduceOp.MAX, out.address, x.address, y.address, 1);
            assertEquals(100, UnsafeApi.getByte(out.address), "the same bits as INT8: 200 is -56");
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64"})
    void shouldPropagateNaNThroughMinAndMaxInEitherOrder(final DataType type)
    {
        final long size = type.sizeBytes();
        try (OffHeap nan = new OffHeap(size); OffHeap one = new OffHeap(size); OffHeap out = new OffHeap(size))
        {
            writeDouble(type, nan.address, Double.NaN);
            writeDouble(type, one.address, 1.0);
            for (final ReduceOp op : new ReduceOp[]{ReduceOp.MIN, ReduceOp.MAX, ReduceOp.SUM, ReduceOp.PROD})
            {
                Reductions.reduce(type, op, out.address, nan.address, one.address, 1);
                assertTrue(Double.isNaN(readDouble(type, out.address)), type + " " + op + " NaN first");
                Reductions.reduce(type, op, out.address, one.address, nan.address, 1);
                assertTrue(Double.isNaN(readDouble(type, out.address)), type + " " + op + " NaN second");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64"})
    void shouldOrderNegativeZeroBelowPositiveZero(final DataType type)
    {
        final long size = type.sizeBytes();
        try (OffHeap neg = new OffHeap(size); OffHeap pos = new OffHeap(size); OffHeap out = new OffHeap(size))
        {
            writeDouble(type, neg.address, -0.0);
            writeDouble(type, pos.address, 0.0);
            Reductions.reduce(type, ReduceOp.MIN, out.address, pos.address, neg.address, 1);
            assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(readDouble(type, out.address)));
            Reductions.reduce(type, ReduceOp.MAX, out.address, neg.address, pos.address, 1);
            assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(readDouble(type, out.address)));
        }
    }

    @Test
    void shouldRoundHalfPrecisionSumToNearestEven()
    {
        try (OffHeap x = new OffHeap(2); OffHeap y = new OffHeap(2))
        {
            // 2048 + 1 is exactly halfway between the FLOAT16 neighbours 2048 and 2050: ties to even gives 2048.
            UnsafeApi.putShort(x.address, Float16.fromFloat(2048f));
            UnsafeApi.putShort(y.address, Float16.fromFloat(1f));
            Reductions.reduce(DataType.FLOAT16, ReduceOp.SUM, x.address, y.address, 1);
            assertEquals(2048f, Float16.toFloat(UnsafeApi.getShort(x.address)));
            UnsafeApi.putShort(x.address, Float16.fromFloat(65504f));
            UnsafeApi.putShort(y.address, Float16.fromFloat(32f));
            Reductions.reduce(DataType.FLOAT16, ReduceOp.SUM, x.address, y.address, 1);
            assertEquals(Float.POSITIVE_INFINITY, Float16.toFloat(UnsafeApi.getShort(x.address)), "overflow to inf");
        }
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void shouldAverageAsSumThenOneDivision(final DataType type)
    {
        final int worldSize = 3;
        final long[] contributions = {-7, 0, 2}; // sum -5: integers give -1 (truncation), floats -5/3
        final boolean unsigned = type == DataType.UINT8;
        final long bytes = type.byteLength(1);
        try (OffHeap acc = new OffHeap(bytes); OffHeap in = new OffHeap(bytes))
        {
            writeDouble(type, acc.address, unsigned ? 100 : contributions[0]);
            for (int r = 1; r < worldSize; r++)
            {
                writeDouble(type, in.address, unsigned ? 100 : contributions[r]);
                Reductions.reduce(type, ReduceOp.AVG, acc.address, in.address, 1);
            }
            Reductions.finishAverage(type, acc.address, 1, worldSize);
            final double actual = readDouble(type, acc.address);
            if (unsigned)
            {
                assertEquals(44 / 3, (int)actual, "300 wraps to 44, then 44 / 3 truncates to 14");
            }
            else if (type.isInteger())
            {
                assertEquals(-1, (long)actual, "truncating division toward zero");
            }
            else
            {
                final double exact = -5.0 / 3;
                final double tolerance = type == DataType.FLOAT64 ? 1e-15 : type == DataType.FLOAT32 ? 1e-6 : 1e-2;
                assertEquals(exact, actual, tolerance);
            }
        }
    }

    @Test
    void shouldBeDeterministic()
    {
        final int count = 4099;
        try (OffHeap a = new OffHeap(count * 4L); OffHeap b = new OffHeap(count * 4L);
            OffHeap first = new OffHeap(count * 4L); OffHeap second = new OffHeap(count * 4L))
        {
            fillRandom(DataType.FLOAT32, a.address, count, new Random(7));
            fillRandom(DataType.FLOAT32, b.address, count, new Random(8));
            Reductions.reduce(DataType.FLOAT32, ReduceOp.SUM, first.address, a.address, b.address, count);
            Reductions.reduce(DataType.FLOAT32, ReduceOp.SUM, second.address, a.address, b.address, count);
            for (int i = 0; i < count; i++)
            {
                assertEquals(UnsafeApi.getInt(first.address + 4L * i), UnsafeApi.getInt(second.address + 4L * i));
            }
        }
    }

    // ---- reference model: every element as raw bits in a long ----

    private static void fillRandom(final DataType type, final long address, final int count, final Random random)
    {
        for (int i = 0; i < count; i++)
        {
            final long bits;
            switch (type)
            {
                case FLOAT16:
                    bits = Float16.fromFloat((float)(random.nextGaussian() * 100));
                    break;
                case BFLOAT16:
                    bits = BFloat16.fromFloat((float)(random.nextGaussian() * 100));
                    break;
                case FLOAT32:
                    bits = Float.floatToRawIntBits((float)(random.nextGaussian() * 1e3));
                    break;
                case FLOAT64:
                    bits = Double.doubleToRawLongBits(random.nextGaussian() * 1e6);
                    break;
                default:
                    bits = random.nextLong(); // integers: the whole range, so overflow and sign cases occur
                    break;
            }
            write(type, address, i, bits);
        }
    }

    private static long reference(final DataType type, final ReduceOp op, final long x, final long y)
    {
        switch (type)
        {
            case INT8:
                return (byte)integer(op, (byte)x, (byte)y);
            case UINT8:
                return (byte)integer(op, x & 0xFF, y & 0xFF);
            case INT32:
                return (int)integer(op, (int)x, (int)y);
            case INT64:
                return integer(op, x, y);
            case FLOAT16:
                return Float16.fromFloat(real(op, Float16.toFloat((short)x), Float16.toFloat((short)y)));
            case BFLOAT16:
                return BFloat16.fromFloat(real(op, BFloat16.toFloat((short)x), BFloat16.toFloat((short)y)));
            case FLOAT32:
                return Float.floatToRawIntBits(
                    real(op, Float.intBitsToFloat((int)x), Float.intBitsToFloat((int)y)));
            default:
                final double a = Double.longBitsToDouble(x);
                final double b = Double.longBitsToDouble(y);
                final double r = op == ReduceOp.PROD ? a * b : op == ReduceOp.MIN ? Math.min(a, b) :
                    op == ReduceOp.MAX ? Math.max(a, b) : a + b;
                return Double.doubleToRawLongBits(r);
        }
    }

    private static long integer(final ReduceOp op, final long x, final long y)
    {
        switch (op)
        {
            case PROD: return x * y;
            case MIN: return Math.min(x, y);
            case MAX: return Math.max(x, y);
            case AND: return x & y;
            case OR: return x | y;
            case XOR: return x ^ y;
            default: return x + y;
        }
    }

    private static float real(final ReduceOp op, final float x, final float y)
    {
        switch (op)
        {
            case PROD: return x * y;
            case MIN: return Math.min(x, y);
            case MAX: return Math.max(x, y);
            default: return x + y;
        }
    }

    private static long read(final DataType type, final long address, final long index)
    {
        switch (type.sizeBytes())
        {
            case 1: return UnsafeApi.getByte(address + index);
            case 2: return UnsafeApi.getShort(address + 2 * index);
            case 4: return UnsafeApi.getInt(address + 4 * index);
            default: return UnsafeApi.getLong(address + 8 * index);
        }
    }

    private static void write(final DataType type, final long address, final long index, final long bits)
    {
        switch (type.sizeBytes())
        {
            case 1:
                UnsafeApi.putByte(address + index, (byte)bits);
                break;
            case 2:
                UnsafeApi.putShort(address + 2 * index, (short)bits);
                break;
            case 4:
                UnsafeApi.putInt(address + 4 * index, (int)bits);
                break;
            default:
                UnsafeApi.putLong(address + 8 * index, bits);
                break;
        }
    }

    private static void writeDouble(final DataType type, final long address, final double value)
    {
        switch (type)
        {
            case FLOAT16:
                UnsafeApi.putShort(address, Float16.fromFloat((float)value));
                break;
            case BFLOAT16:
                UnsafeApi.putShort(address, BFloat16.fromFloat((float)value));
                break;
            case FLOAT32:
                UnsafeApi.putFloat(address, (float)value);
                break;
            case FLOAT64:
                UnsafeApi.putDouble(address, value);
                break;
            default:
                write(type, address, 0, (long)value);
                break;
        }
    }

    private static double readDouble(final DataType type, final long address)
    {
        switch (type)
        {
            case FLOAT16: return Float16.toFloat(UnsafeApi.getShort(address));
            case BFLOAT16: return BFloat16.toFloat(UnsafeApi.getShort(address));
            case FLOAT32: return UnsafeApi.getFloat(address);
            case FLOAT64: return UnsafeApi.getDouble(address);
            case UINT8: return UnsafeApi.getByte(address) & 0xFF;
            default: return read(type, address, 0);
        }
    }
}
