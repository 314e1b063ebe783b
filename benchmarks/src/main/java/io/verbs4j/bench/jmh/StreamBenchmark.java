// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.launch.JvmFlags;
import io.verbs4j.bench.run.InProcessSession;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.TestKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Streaming cost of the TCP baselines and the two-process-style shm ring ({@code shm-memcpy}, here two threads),
 * in windows of {@value #WINDOW} acknowledged messages, busy-polling. Scores are per message (average time);
 * bandwidth = size / score. With {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes allocated per message.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class StreamBenchmark
{
    /** Messages per acknowledged window. */
    public static final int WINDOW = 16;

    /** Transport under test. */
    @Param({ "socket", "nio", "nio-poll", "shm-memcpy" })
    public String transport;

    /** Message size in bytes. */
    @Param({ "8", "64", "512", "4096", "65536", "1048576", "4194304" })
    public int size;

    private InProcessSession session;
    private StreamInitiator initiator;

    /**
     * Connects initiator and responder.
     *
     * @throws Exception if set-up fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        session = SessionState.open(transport, TestKind.BANDWIDTH, size, WINDOW);
        initiator = session.stream();
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
     * One acknowledged window.
     *
     * @throws Exception on a transport failure.
     */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public void window() throws Exception
    {
        initiator.sendWindow(WINDOW);
    }
}
