// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import java.util.concurrent.TimeUnit;

import io.verbs4j.collectives.CollectivesConfiguration;
import io.verbs4j.collectives.types.DataType;
import io.verbs4j.collectives.types.ReduceOp;
import io.verbs4j.collectives.types.Reductions;
import io.verbs4j.launch.JvmFlags;
import org.agrona.UnsafeApi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One out-of-place reduction {@code dst = a op b} of {@code size} bytes on one thread, the kernel the collectives
 * run on every received piece: the element-per-step scalar kernels against the vectorized staged kernels
 * ({@code kernel}). JMH forks a JVM per parameter set, so the kernel choice is made before the first reduction.
 * Bandwidth = size / score (bytes of one operand per nanosecond).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class ReductionBenchmark
{
    /** Bytes of each operand. */
    @Param({"256", "4096", "65536", "524288", "8388608"})
    public int size;

    /** Element type. */
    @Param({"FLOAT32", "FLOAT64", "INT32"})
    public DataType type;

    /** Operator. */
    @Param({"SUM", "MAX"})
    public ReduceOp op;

    /** {@code staged} (the default) or {@code scalar}. */
    @Param({"staged", "scalar"})
    public String kernel;

    private long a;
    private long b;
    private long dst;
    private long count;

    /** Allocates and fills the operands; picks the kernel before anything reduces. */
    @Setup(Level.Trial)
    public void setUp()
    {
        System.setProperty(CollectivesConfiguration.STAGED_KERNELS_MIN_BYTES_PROP_NAME,
            "scalar".equals(kernel) ? Long.toString(Long.MAX_VALUE) : "1");
        a = UnsafeApi.allocateMemory(size);
        b = UnsafeApi.allocateMemory(size);
        dst = UnsafeApi.allocateMemory(size);
        count = size / type.sizeBytes();
        for (int i = 0; i < size; i += 4)
        {
            // Small positive integers: ordinary floats and ints, no denormals or NaNs to slow either kernel.
            UnsafeApi.putInt(a + i, DataType.INT32 == type ? i : Float.floatToRawIntBits(i));
            UnsafeApi.putInt(b + i, DataType.INT32 == type ? 3 * i : Float.floatToRawIntBits(3 * i));
        }
        if (DataType.FLOAT64 == type)
        {
            for (long i = 0; i < count; i++)
            {
                UnsafeApi.putDouble(a + 8 * i, i);
                UnsafeApi.putDouble(b + 8 * i, 3.0 * i);
            }
        }
    }

    /** Frees the operands. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        UnsafeApi.freeMemory(a);
        UnsafeApi.freeMemory(b);
        UnsafeApi.freeMemory(dst);
    }

    /** One reduction. */
    @Benchmark
    public void reduce()
    {
        Reductions.reduce(type, op, dst, a, b, count);
    }
}
