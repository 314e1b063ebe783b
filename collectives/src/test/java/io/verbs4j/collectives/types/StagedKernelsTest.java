// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.types;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The staged kernels' invariant: for every type and op they take, the result is bit for bit the scalar kernels'
 * (signed zeros, infinities, subnormals and integer wrap-around included; a NaN is a NaN, whatever its payload), in
 * and out of place, for lengths around the block size, and from several threads at once.
 */
class StagedKernelsTest
{
    private static final DataType[] TYPES = {DataType.FLOAT32, DataType.FLOAT64, DataType.INT32, DataType.INT64};

    static Stream<Arguments> stagedCombinations()
    {
        final List<Arguments> list = new ArrayList<>();
        for (final DataType type : TYPES)
        {
            for (final ReduceOp op : ReduceOp.values())
            {
                if (op.supports(type))
                {
                    list.add(Arguments.of(type, op));
                }
            }
        }
        return list.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("stagedCombinations")
    void shouldEqualTheScalarKernelsBitForBit(final DataType type, final ReduceOp op)
    {
        final int perBlock = StagedKernels.BLOCK_BYTES / type.sizeBytes();
        final long[] counts = {StagedKernels.MIN_BYTES / type.sizeBytes(), perBlock - 1, perBlock, perBlock + 1,
            3L * perBlock + 7, 10_007};
        for (final long count : counts)
        {
            assertTrue(StagedKernels.handles(type, op, type.byteLength(count)), type + " " + op + " " + count);
            compare(type, op, count, 17 * count + op.ordinal());
        }
    }

    @Test
    void shouldLeaveSmallBuffersAndOtherTypesToTheScalarKernels()
    {
        assertFalse(StagedKernels.handles(DataType.FLOAT32, ReduceOp.SUM, StagedKernels.MIN_BYTES - 4));
        assertFalse(StagedKernels.handles(DataType.FLOAT16, ReduceOp.SUM, 1 << 20));
        assertFalse(StagedKernels.handles(DataType.INT8, ReduceOp.SUM, 1 << 20));
        assertFalse(StagedKernels.handles(DataType.FLOAT64, ReduceOp.XOR, 1 << 20));
        assertTrue(StagedKernels.handles(DataType.INT64, ReduceOp.XOR, 1 << 20));
    }

    @Test
    void shouldGiveEachThreadItsOwnBlocks() throws InterruptedException
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++)
        {
            final int seed = t;
            threads[t] = new Thread(() ->
            {
                try
                {
                    for (int round = 0; round < 50; round++)
                    {
                        compare(DataType.FLOAT32, ReduceOp.SUM, 5_000 + seed, 1000L * seed + round);
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertNull(failure.get());
    }

    private static void compare(final DataType type, final ReduceOp op, final long count, final long seed)
    {
        final long bytes = type.byteLength(count);
        try (OffHeap a = new OffHeap(bytes); OffHeap b = new OffHeap(bytes);
            OffHeap staged = new OffHeap(bytes); OffHeap scalar = new OffHeap(bytes))
        {
            fill(type, a.address, count, new Random(seed));
            fill(type, b.address, count, new Random(~seed));

            StagedKernels.reduce(type, op, staged.address, a.address, b.address, count);
            scalar(type, op, scalar.address, a.address, b.address, count);
            assertSameBits(type, scalar, staged, type + " " + op + " count " + count + " out of place");

            // In place, with the accumulator as either operand.
            UnsafeApi.copyMemory(a.address, staged.address, bytes);
            StagedKernels.reduce(type, op, staged.address, staged.address, b.address, count);
            assertSameBits(type, scalar, staged, type + " " + op + " count " + count + " dst == a");
            UnsafeApi.copyMemory(b.address, staged.address, bytes);
            StagedKernels.reduce(type, op, staged.address, a.address, staged.address, count);
            assertSameBits(type, scalar, staged, type + " " + op + " count " + count + " dst == b");
        }
    }

    private static void scalar(final DataType type, final ReduceOp op, final long dst, final long a, final long b,
        final long count)
    {
        switch (type)
        {
            case FLOAT32 -> FloatKernels.float32(op, dst, a, b, count);
            case FLOAT64 -> FloatKernels.float64(op, dst, a, b, count);
            case INT32 -> IntegerKernels.int32(op, dst, a, b, count);
            case INT64 -> IntegerKernels.int64(op, dst, a, b, count);
            default -> throw new IllegalArgumentException(type.name());
        }
    }

    /**
     * Equal bits, except that a NaN matches any NaN: Java leaves a NaN result's payload unspecified, and the JIT
     * may hand either operand's payload on (it commutes the vector add, not the scalar one).
     */
    private static void assertSameBits(final DataType type, final OffHeap expected, final OffHeap actual,
        final String what)
    {
        final int size = type.sizeBytes();
        for (long o = 0; o < expected.length; o += size)
        {
            final long want = read(size, expected.address + o);
            final long got = read(size, actual.address + o);
            if (isNaN(type, want))
            {
                assertTrue(isNaN(type, got), what + " at byte " + o + ": NaN expected, got " + Long.toHexString(got));
            }
            else
            {
                assertEquals(want, got, what + " at byte " + o);
            }
        }
    }

    private static long read(final int size, final long address)
    {
        return 4 == size ? UnsafeApi.getInt(address) : UnsafeApi.getLong(address);
    }

    private static boolean isNaN(final DataType type, final long bits)
    {
        return switch (type)
        {
            case FLOAT32 -> Float.isNaN(Float.intBitsToFloat((int)bits));
            case FLOAT64 -> Double.isNaN(Double.longBitsToDouble(bits));
            default -> false;
        };
    }

    /** Random values, with every tenth element one of the special values the IEEE and integer edges are made of. */
    private static void fill(final DataType type, final long address, final long count, final Random random)
    {
        final float[] floats = {Float.NaN, Float.intBitsToFloat(0x7fc0_1234), Float.intBitsToFloat(0xffa0_0001),
            -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, -Float.MIN_VALUE,
            Float.MAX_VALUE};
        final double[] doubles = {Double.NaN, Double.longBitsToDouble(0x7ff8_0000_0000_1234L),
            Double.longBitsToDouble(0xfff4_0000_0000_0001L), -0.0, 0.0, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE};
        final long[] integers = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE, 1, 2,
            0x5555_5555_5555_5555L, 0xAAAA_AAAA_AAAA_AAAAL};
        for (long i = 0; i < count; i++)
        {
            final boolean special = 0 == random.nextInt(10);
            final int pick = random.nextInt(10);
            switch (type)
            {
                case FLOAT32 -> UnsafeApi.putFloat(address + 4 * i,
                    special ? floats[pick] : (float)(random.nextGaussian() * 1e3));
                case FLOAT64 -> UnsafeApi.putDouble(address + 8 * i,
                    special ? doubles[pick] : random.nextGaussian() * 1e6);
                case INT32 -> UnsafeApi.putInt(address + 4 * i, special ? (int)integers[pick] : random.nextInt());
                case INT64 -> UnsafeApi.putLong(address + 8 * i, special ? integers[pick] : random.nextLong());
                default -> throw new IllegalArgumentException(type.name());
            }
        }
    }
}
