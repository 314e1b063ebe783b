// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.bench.run.InProcessSession;
import io.verbs4j.bench.spi.PingPongInitiator;
import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.StreamInitiator;
import io.verbs4j.bench.spi.TestKind;
import io.verbs4j.launch.JvmFlags;
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

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The set-up the perftest-transport suites share: one unbounded {@link InProcessSession} per trial (responder on a
 * thread of this JVM, initiator connected), closed at the end of the trial, and the settings common to them (average
 * time in ns, 3 x 1 s warm-up, 5 x 1 s measurement, one fork with {@link JvmFlags}; JMH annotations are inherited).
 * A suite names its session through the four abstract methods (usually from its {@code @Param} fields) and times
 * {@link #pingPong} or {@link #stream}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public abstract class SessionFixture
{
    /** Timeout of any single wait inside a benchmark. */
    static final long TIMEOUT_MS = 60_000;

    /** The latency initiator of a {@link TestKind#LATENCY} session, else {@code null}. */
    protected PingPongInitiator pingPong;
    /** The bandwidth initiator of a {@link TestKind#BANDWIDTH} session, else {@code null}. */
    protected StreamInitiator stream;
    private InProcessSession session;

    /**
     * Opens the session.
     *
     * @throws IOException if either side cannot be set up.
     */
    @Setup(Level.Trial)
    public void openSession() throws IOException
    {
        final SessionSpec spec = new SessionSpec(
            transport(), kind(), messageBytes(), 0, SessionSpec.UNBOUNDED, windowMessages(), busyPoll(), TIMEOUT_MS);
        session = InProcessSession.open(spec);
        pingPong = TestKind.LATENCY == spec.kind() ? session.pingPong() : null;
        stream = TestKind.BANDWIDTH == spec.kind() ? session.stream() : null;
    }

    /**
     * Stops both sides.
     */
    @TearDown(Level.Trial)
    public void closeSession()
    {
        session.close();
    }

    /**
     * @return the transport's name, a {@link io.verbs4j.bench.run.PerftestTransport} row.
     */
    protected abstract String transport();

    /**
     * @return latency or bandwidth.
     */
    protected abstract TestKind kind();

    /**
     * @return the message size in bytes.
     */
    protected abstract int messageBytes();

    /**
     * @return messages per window (bandwidth); 1 for latency.
     */
    protected int windowMessages()
    {
        return 1;
    }

    /**
     * JMH measures the data path, not the idle strategy, so sessions busy-poll unless a suite says otherwise.
     *
     * @return busy-spin (verbs: device idle {@code spin}, tcp {@code poll} mode) or back off.
     */
    protected boolean busyPoll()
    {
        return true;
    }
}
