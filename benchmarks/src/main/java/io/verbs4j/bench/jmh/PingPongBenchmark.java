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
 * Round-trip time of the TCP baselines ({@code socket}, {@code nio}, {@code nio-poll}) over 127.0.0.1, responder
 * on a second thread of the same JVM, busy-polling. One operation = one round trip (halve it for perftest's
 * one-way latency). With {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes allocated per round trip by
 * the initiator and the responder together.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class PingPongBenchmark
{
    /** Transport under test. */
    @Param({ "socket", "nio", "nio-poll" })
    public String transport;

    /** Message size in bytes. */
    @Param({ "8", "64", "512", "4096", "65536", "1048576", "4194304" })
    public int size;

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
        session = SessionState.open(transport, TestKind.LATENCY, size, 1);
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
