// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import static io.verbs4j.bench.jmh.ConnectedPair.check;

import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.launch.JvmFlags;
import io.verbs4j.tcp.TcpConfiguration;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
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
 * The verbs data path in one JVM: two devices of the same provider, one RC queue pair each, connected through the
 * connection manager. Each benchmark posts on the client queue pair and polls the client CQ until the request's
 * completion is back; a server thread polls the server CQ and re-posts receives. Run with {@code -prof gc}: the
 * target is {@code gc.alloc.rate.norm} ≈ 0 B/op (it counts every thread of the JVM, the providers' I/O and progress
 * threads included).
 * <ul>
 *     <li>{@link #writeSignaled()}: one signaled RDMA WRITE of {@code size} bytes, polled to completion.</li>
 *     <li>{@link #writeUnsignaled()}: {@value #BATCH} WRITEs, unsignaled except the last, then its completion is
 *     polled; the score is per WRITE.</li>
 *     <li>{@link #sendInline()}: one signaled inline SEND of {@code size} bytes into a pre-posted receive, polled to
 *     the send completion.</li>
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.IGNORE_UNRECOGNIZED, JvmFlags.ADD_EXPORTS_MISC, JvmFlags.ENABLE_NATIVE_ACCESS,
    JvmFlags.UNSAFE_MEMORY_ACCESS })
public class VerbsPostPollBenchmark
{
    /** Requests per {@link #writeUnsignaled()} invocation; only the last is signaled. */
    public static final int BATCH = 16;
    private static final int DEPTH = 64;
    private static final int RECEIVES = 32;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    /** Verbs provider. */
    @Param({ "shm", "tcp" })
    public String provider;

    /** Payload bytes. */
    @Param({ "8", "64" })
    public int size;

    /** Device idle strategy {@code spin} and tcp {@code poll} mode instead of {@code backoff} / {@code event}. */
    @Param({ "false" })
    public boolean busyPoll;

    /**
     * {@code false}: no progress agent (the polling threads drive progress), so that the client's post and poll run
     * alone on their core, as in {@code perftest --busy-poll}; {@code true}: the default progress thread.
     */
    @Param({ "true" })
    public boolean progressThread;

    private ConnectedPair pair;
    private CompletionQueue clientCq;
    private QueuePair clientQp;
    private final SendRequest write = new SendRequest(1);
    private final SendRequest send = new SendRequest(1);
    private final Counter counter = new Counter();
    private ServerLoop serverLoop;
    private Thread serverThread;
    private long wrId;

    /**
     * Opens both devices, connects the queue pairs, starts the server thread.
     *
     * @throws Exception if set-up fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        pair = new ConnectedPair(provider, context(), context(), DEPTH, RECEIVES);
        clientCq = pair.clientCq;
        clientQp = pair.client;
        write.opcode(Opcode.RDMA_WRITE).sge(pair.clientRegion, 0, size).remote(pair.serverAddress + 2048,
            pair.serverRkey);
        send.opcode(Opcode.SEND).flags(SendRequest.SIGNALED | SendRequest.INLINE).sge(pair.clientRegion, 0, size);

        serverLoop = new ServerLoop(pair.server, pair.serverCq, pair.recv);
        serverThread = new Thread(serverLoop, "verbs4j-jmh-server");
        serverThread.setDaemon(true);
        serverThread.start();
    }

    private DeviceContext context()
    {
        final DeviceContext context = new DeviceContext().idleStrategy(busyPoll ? "spin" : "backoff")
            .progressThread(progressThread);
        if ("tcp".equals(provider))
        {
            context.property(TcpConfiguration.MODE_PROP_NAME, busyPoll ? "poll" : "event");
        }
        return context;
    }

    /**
     * Stops the server thread and closes both devices.
     *
     * @throws InterruptedException if interrupted while joining.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException
    {
        serverLoop.running = false;
        serverThread.join(10_000);
        pair.close();
        if (null != serverLoop.failure)
        {
            throw new IllegalStateException(serverLoop.failure);
        }
    }

    /**
     * One signaled WRITE, polled to completion.
     */
    @Benchmark
    public void writeSignaled()
    {
        final long id = ++wrId;
        check(clientQp.postSend(write.wrId(id).flags(SendRequest.SIGNALED)));
        await(id);
    }

    /**
     * {@value #BATCH} WRITEs, only the last signaled, polled to its completion.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void writeUnsignaled()
    {
        for (int i = 1; i < BATCH; i++)
        {
            check(clientQp.postSend(write.wrId(++wrId).flags(0)));
        }
        final long id = ++wrId;
        check(clientQp.postSend(write.wrId(id).flags(SendRequest.SIGNALED)));
        await(id);
    }

    /**
     * One signaled inline SEND, polled to its completion.
     */
    @Benchmark
    public void sendInline()
    {
        final long id = ++wrId;
        check(clientQp.postSend(send.wrId(id)));
        await(id);
    }

    private void await(final long id)
    {
        final long startNs = System.nanoTime();
        while (counter.lastWrId < id)
        {
            if (0 == clientCq.poll(counter, 16) && System.nanoTime() - startNs > TIMEOUT_NS)
            {
                throw new IllegalStateException("no completion for " + id);
            }
            if (WcStatus.SUCCESS != counter.failedStatus)
            {
                throw new IllegalStateException("completion failed: " + WcStatus.name(counter.failedStatus));
            }
        }
    }

    /**
     * Allocation-free completion handler: highest successful wrId, first failure.
     */
    static final class Counter implements CompletionHandler
    {
        long lastWrId;
        long receives;
        int failedStatus = WcStatus.SUCCESS;

        /**
         * {@inheritDoc}
         */
        @Override
        public void onCompletion(final long id, final int status, final int opcode, final int byteLength,
            final int immediateData, final int flags, final int qpNumber)
        {
            if (WcStatus.SUCCESS != status)
            {
                failedStatus = status;
            }
            else if (Opcode.RECV == opcode)
            {
                receives++;
            }
            else
            {
                lastWrId = id;
            }
        }
    }

    /**
     * The server side: polls its CQ and re-posts one receive per receive completion, backing off when idle.
     */
    static final class ServerLoop implements Runnable
    {
        volatile boolean running = true;
        volatile Throwable failure;
        private final QueuePair qp;
        private final CompletionQueue cq;
        private final RecvRequest recv;
        private final Counter counter = new Counter();
        private final IdleStrategy idle = new BackoffIdleStrategy(1000, 100, 1_000, 100_000);

        ServerLoop(final QueuePair qp, final CompletionQueue cq, final RecvRequest recv)
        {
            this.qp = qp;
            this.cq = cq;
            this.recv = recv;
        }

        /**
         * {@inheritDoc}
         */
        @Override
        public void run()
        {
            long reposted = 0;
            try
            {
                while (running)
                {
                    final int polled = cq.poll(counter, 16);
                    while (reposted < counter.receives)
                    {
                        check(qp.postRecv(recv));
                        reposted++;
                    }
                    idle.idle(polled);
                }
            }
            catch (final Throwable ex)
            {
                failure = ex;
            }
        }
    }
}
