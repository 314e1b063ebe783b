// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import io.verbs4j.bench.spi.TestKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/**
 * Streaming throughput over TCP loopback, 8 B to 4 MiB: verbs4j tcp WRITE and SEND windows (ib_write_bw /
 * ib_send_bw style, completion-counted) against {@code java.net.Socket}, NIO and plain Netty (windows acknowledged
 * by the receiver), in windows of {@value #WINDOW} messages. Score = time per message (bandwidth = size / score);
 * with {@code -prof gc}, {@code gc.alloc.rate.norm} = bytes allocated per message, all threads.
 */
public class TcpStreamBenchmark extends SessionFixture
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

    @Override
    protected boolean busyPoll()
    {
        return busyPoll;
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
        stream.sendWindow(WINDOW);
    }
}
