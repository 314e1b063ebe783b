// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import static io.verbs4j.bench.jmh.ConnectedPair.check;

import io.verbs4j.CompletionQueue;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.launch.JvmFlags;
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
 * The software cost of one request on shm, with no cross-core transfer in it: both devices in one JVM, no progress
 * agent, and the benchmark thread plays both sides, so every cache line the request touches stays in its core. What
 * a two-process latency run adds to these figures is the transfers between the cores (a raw cache-line ping-pong
 * costs 35-200 ns one way on this machine, depending on the placement of the two vCPUs).
 * <ul>
 *     <li>{@link #writeRound()}: one signaled 8 B RDMA WRITE (carried out inside {@code postSend} on the peer's
 *     mapped region), polled to its completion.</li>
 *     <li>{@link #sendRound()}: one signaled inline 8 B SEND; the server CQ is polled until the receive completes
 *     (the receive side consumes the ring record, fills the receive, acknowledges), the receive is re-posted, then the
 *     client CQ is polled until the send completes (the client takes the acknowledgement).</li>
 * </ul>
 * The difference between the two is what the two-sided protocol costs in instructions. With
 * {@link #threadSafePosting} both queue pairs take their posting lock on every post (uncontended here).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class VerbsSoftwareCostBenchmark
{
    private static final int DEPTH = 64;
    private static final int RECEIVES = 32;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    /** Payload bytes. */
    @Param({ "8" })
    public int size;

    /**
     * Both queue pairs created with {@code QueuePairConfig.threadSafePosting}: what the posting lock costs a poster
     * that never meets another.
     */
    @Param({ "false", "true" })
    public boolean threadSafePosting;

    private ConnectedPair pair;
    private CompletionQueue clientCq;
    private CompletionQueue serverCq;
    private QueuePair clientQp;
    private QueuePair serverQp;
    private RecvRequest recv;
    private final SendRequest write = new SendRequest(1);
    private final SendRequest send = new SendRequest(1);
    private final VerbsPostPollBenchmark.Counter client = new VerbsPostPollBenchmark.Counter();
    private final VerbsPostPollBenchmark.Counter server = new VerbsPostPollBenchmark.Counter();
    private long wrId;
    private long reposted;

    /**
     * Opens both devices (no progress agent: the benchmark thread's polls drive both) and connects the queue pairs.
     *
     * @throws Exception if set-up fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        pair = new ConnectedPair("shm", context(), context(), DEPTH, RECEIVES, threadSafePosting);
        clientCq = pair.clientCq;
        serverCq = pair.serverCq;
        clientQp = pair.client;
        serverQp = pair.server;
        recv = pair.recv;
        write.opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED).sge(pair.clientRegion, 0, size)
            .remote(pair.serverAddress + 2048, pair.serverRkey);
        send.opcode(Opcode.SEND).flags(SendRequest.SIGNALED | SendRequest.INLINE).sge(pair.clientRegion, 0, size);
    }

    private static DeviceContext context()
    {
        return new DeviceContext().idleStrategy("spin").progressThread(false);
    }

    /** Closes both devices. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        pair.close();
    }

    /**
     * One signaled WRITE, polled to its completion.
     */
    @Benchmark
    public void writeRound()
    {
        final long id = ++wrId;
        check(clientQp.postSend(write.wrId(id)));
        final long startNs = System.nanoTime();
        while (client.lastWrId < id)
        {
            if (0 == clientCq.poll(client, 16))
            {
                checkProgress(client, startNs);
            }
        }
    }

    /**
     * One signaled inline SEND: received, the receive re-posted, and its completion polled.
     */
    @Benchmark
    public void sendRound()
    {
        final long id = ++wrId;
        check(clientQp.postSend(send.wrId(id)));
        final long startNs = System.nanoTime();
        while (server.receives <= reposted)
        {
            if (0 == serverCq.poll(server, 16))
            {
                checkProgress(server, startNs);
            }
        }
        check(serverQp.postRecv(recv));
        reposted++;
        while (client.lastWrId < id)
        {
            if (0 == clientCq.poll(client, 16))
            {
                checkProgress(client, startNs);
            }
        }
    }

    /** Called only after an empty poll: a clock read per completion would be part of the figure. */
    private static void checkProgress(final VerbsPostPollBenchmark.Counter counter, final long startNs)
    {
        if (WcStatus.SUCCESS != counter.failedStatus)
        {
            throw new IllegalStateException("completion failed: " + WcStatus.name(counter.failedStatus));
        }
        if (System.nanoTime() - startNs > TIMEOUT_NS)
        {
            throw new IllegalStateException("no completion within " + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NS) +
                " s");
        }
    }
}
