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
 * Streaming throughput over TCP loopback, 8 B to 4 MiB: verbs4j tcp WRITE and SEND windows (ib_write_bw /
 * ib_send_bw style, completion-counted) against {@code java.net.Socket}, NIO and plain Netty (windows acknowledged
 * by the receiver), in windows of {@value #WINDOW} messages. Score = time per message (bandwidth = size / score);
 * with {@code -prof gc}, {@code gc.alloc.rate.norm} = bytes allocated per message, all threads.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class TcpStreamBenchmark
{
    /** Messages per window. */
    public static final int WINDOW = 16;

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
    private StreamInitiator initiator;

    /**
     * Connects initiator and responder.
     *
     * @throws Exception if set-up fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        session = SessionState.open(transport, TestKind.BANDWIDTH, size, WINDOW, busyPoll);
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
     * One window.
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
