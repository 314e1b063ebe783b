// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.bench.spi.TestKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;

/**
 * Round-trip time over TCP loopback, 8 B to 4 MiB: verbs4j tcp WRITE ping-pong ({@code tcp-write}, ib_write_lat
 * style) and SEND/RECV ping-pong ({@code tcp-send}) against {@code java.net.Socket}, a blocking NIO
 * {@code SocketChannel} and plain Netty, responder on a second thread of the same JVM (for verbs: a second device).
 * One operation = one round trip. With {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes allocated per round
 * trip by all threads (application, responder, I/O threads). {@code busyPoll=true} spins every loop (and puts the
 * tcp provider in poll mode): only meaningful with at least four free cores.
 */
public class TcpPingPongBenchmark extends SessionFixture
{
    /** Transport under test. */
    @Param({ "tcp-write", "tcp-send", "socket", "nio", "netty" })
    public String transport;

    /** Message size in bytes. */
    @Param({ "8", "64", "4096", "65536", "1048576", "4194304" })
    public int size;

    /** Busy-spin instead of backing off. */
    @Param({ "false" })
    public boolean busyPoll;

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

    @Override
    protected boolean busyPoll()
    {
        return busyPoll;
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
