// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.bench.spi.TestKind;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Round trip of the {@code shm-cacheline} baseline between two threads sharing a {@code /dev/shm} mapping
 * (perftest runs it between two processes). One operation = one round trip of one cache line each way.
 */
public class CacheLineBenchmark extends SessionFixture
{
    @Override
    protected String transport()
    {
        return "shm-cacheline";
    }

    @Override
    protected TestKind kind()
    {
        return TestKind.LATENCY;
    }

    @Override
    protected int messageBytes()
    {
        return Long.BYTES;
    }

    /**
     * One round trip.
     *
     * @throws Exception on timeout.
     */
    @Benchmark
    public void roundTrip() throws Exception
    {
        pingPong.roundTrip();
    }
}
