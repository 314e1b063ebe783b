// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.bench.spi.TestKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/**
 * Streaming cost of the TCP baselines and the two-process-style shm ring ({@code shm-memcpy}, here two threads),
 * in windows of {@value #WINDOW} acknowledged messages, busy-polling. Scores are per message (average time);
 * bandwidth = size / score. With {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes allocated per message.
 */
public class StreamBenchmark extends SessionFixture
{
    /** Messages per acknowledged window. */
    public static final int WINDOW = 16;

    /** Transport under test. */
    @Param({ "socket", "nio", "nio-poll", "shm-memcpy" })
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
        return TestKind.BANDWIDTH;
    }

    @Override
    protected int messageBytes()
    {
        return size;
    }

    @Override
    protected int windowMessages()
    {
        return WINDOW;
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
        stream.sendWindow(WINDOW);
    }
}
