// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.bench.spi.TestKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Single-thread {@code Unsafe.copyMemory} between two page-aligned off-heap buffers (the {@code memcpy} baseline).
 * One operation = one copy of {@code size} bytes; bandwidth = size / score.
 */
@State(Scope.Thread)
public class MemcpyBenchmark extends SessionFixture
{
    /** Bytes per copy. */
    @Param({ "8", "64", "512", "4096", "65536", "1048576", "4194304" })
    public int size;

    @Override
    protected String transport()
    {
        return "memcpy";
    }

    @Override
    protected TestKind kind()
    {
        return TestKind.BANDWIDTH;
    }

    @Override
    protected int messageBytes()
    {
        return size;
    }

    /**
     * One copy.
     *
     * @throws Exception never for memcpy (the initiator interface declares it).
     */
    @Benchmark
    public void copy() throws Exception
    {
        stream.sendWindow(1);
    }
}
