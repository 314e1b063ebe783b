// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.bench.spi.TestKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;

/**
 * Round-trip time of the TCP baselines ({@code socket}, {@code nio}, {@code nio-poll}) over 127.0.0.1, responder
 * on a second thread of the same JVM, busy-polling. One operation = one round trip (halve it for perftest's
 * one-way latency). With {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes allocated per round trip by
 * the initiator and the responder together.
 */
public class PingPongBenchmark extends SessionFixture
{
    /** Transport under test. */
    @Param({ "socket", "nio", "nio-poll" })
    public String transport;

    /** Message size in bytes. */
    @Param({ "8", "64", "512", "4096", "65536", "1048576", "4194304" })
    public int size;

    @Override
    protected String transport()
    {
        return transport;
    }

    @Override
    protected TestKind kind()
    {
        return TestKind.LATENCY;
    }

    @Override
    protected int messageBytes()
    {
        return size;
    }

    /**
     * One round trip.
     *
     * @throws Exception on a transport failure.
     */
    @Benchmark
    public void roundTrip() throws Exception
    {
        pingPong.roundTrip();
    }
}
