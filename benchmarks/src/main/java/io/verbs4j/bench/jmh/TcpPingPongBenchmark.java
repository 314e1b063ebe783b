// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.launch.JvmFlags;
import io.verbs4j.bench.run.InProcessSession;
import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.TestKind;
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

import java.util.concurrent.TimeUnit;

/**
 * Round-trip time over TCP loopback, 8 B to 4 MiB: verbs4j tcp WRITE ping-pong ({@code tcp-write}, ib_write_lat
 * style) and SEND/RECV ping-pong ({@code tcp-send}) against {@code java.net.Socket}, a blocking NIO
 * {@code SocketChannel} and plain Netty, responder on a second thread of the same JVM (for verbs: a second device).
 * One operation = one round trip. With {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes allocated per round
 * trip by all threads (application, responder, I/O threads). {@code busyPoll=true} spins every loop (and puts the
 * tcp provider in poll mode): only meaningful with at least four free cores.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class TcpPingPongBenchmark
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

    private InProcessSession session;
    private PingPongInitiator initiator;

    /**
     * Connects initiator and responder.
     *
     * @throws Exception if set-up fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        session = SessionState.open(transport, TestKind.LATENCY, size, 1, busyPoll);
        initiator = session.pingPong();
    }

    /**
     * Stops both sides.
     */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        session.close();
    }

    /**
     * One round trip.
     *
     * @throws Exception on a transport failure.
     */
    @Benchmark
    public void roundTrip() throws Exception
    {
        initiator.roundTrip();
    }
}
