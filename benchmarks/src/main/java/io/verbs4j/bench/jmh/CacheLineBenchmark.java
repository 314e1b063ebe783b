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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Round trip of the {@code shm-cacheline} baseline between two threads sharing a {@code /dev/shm} mapping
 * (perftest runs it between two processes). One operation = one round trip of one cache line each way.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class CacheLineBenchmark
{
    private InProcessSession session;
    private PingPongInitiator initiator;

    /**
     * Maps the line and starts the responder thread.
     *
     * @throws Exception if set-up fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        session = SessionState.open("shm-cacheline", TestKind.LATENCY, Long.BYTES, 1);
        initiator = session.pingPong();
    }

    /**
     * Stops the responder and removes the file.
     */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        session.close();
    }

    /**
     * One round trip.
     *
     * @throws Exception on timeout.
     */
    @Benchmark
    public void roundTrip() throws Exception
    {
        initiator.roundTrip();
    }
}
