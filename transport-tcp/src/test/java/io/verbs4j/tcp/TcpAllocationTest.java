// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import io.netty.util.ResourceLeakDetector;
import io.verbs4j.Access;
import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.PostList;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Steady state allocates nothing per operation, on the posting thread and on the I/O threads of both sides:
 * measured with {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes} around a few thousand
 * SEND/WRITE/inline-WRITE/READ/atomic operations and post lists (a WRITE and an injected WRITE in one call)
 * after a warm-up.
 * <p>
 * Netty's leak detector is switched off for the measured part: at any level but DISABLED it allocates a tracking
 * record (with a stack trace) for sampled buffers (every buffer under PARANOID), which is its cost, not ours.
 */
@Timeout(60)
class TcpAllocationTest
{
    private static final int WARMUP_ROUNDS = 4000;
    private static final int MEASURED_ROUNDS = 4000;
    private static final int OPS_PER_ROUND = 9;
    private static final double MAX_BYTES_PER_OP = 16;

    private ResourceLeakDetector.Level leakLevel;
    private TcpPair pair;
    private MemoryRegion clientMemory;
    private MemoryRegion serverMemory;
    private final SendRequest send = new SendRequest(1);
    private final SendRequest write = new SendRequest(1);
    private final SendRequest inlineWrite = new SendRequest(1);
    private final SendRequest read = new SendRequest(1);
    private final SendRequest atomic = new SendRequest(1);
    private final SendRequest injectWrite = new SendRequest(1);
    private final PostList<SendRequest> list = new PostList<>(2);
    private final RecvRequest recv = new RecvRequest(1);
    private final Counter clientDone = new Counter();
    private final Counter serverDone = new Counter();

    @BeforeEach
    void setUp()
    {
        leakLevel = ResourceLeakDetector.getLevel();
        open(new DeviceContext(), new DeviceContext());
    }

    private void open(final DeviceContext client, final DeviceContext server)
    {
        pair = new TcpPair(config -> config.sendDepth(64).recvDepth(64), client, server);
        clientMemory = pair.clientPd.allocate(1 << 16, Access.ALL);
        serverMemory = pair.serverPd.allocate(1 << 16, Access.ALL);
        send.opcode(Opcode.SEND).flags(SendRequest.SIGNALED).clearSges().sge(clientMemory, 0, 256);
        write.opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED).clearSges().sge(clientMemory, 1024, 4096)
            .remote(serverMemory.address() + 1024, serverMemory.rkey());
        inlineWrite.opcode(Opcode.RDMA_WRITE).flags(SendRequest.INLINE).clearSges().sge(clientMemory, 8192, 64)
            .remote(serverMemory.address() + 8192, serverMemory.rkey());
        read.opcode(Opcode.RDMA_READ).flags(SendRequest.SIGNALED).clearSges().sge(clientMemory, 16384, 2048)
            .remote(serverMemory.address() + 16384, serverMemory.rkey());
        atomic.opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendRequest.SIGNALED).clearSges().sge(clientMemory, 32768, 8)
            .remote(serverMemory.address() + 32768, serverMemory.rkey()).atomic(1, 0);
        injectWrite.opcode(Opcode.RDMA_WRITE).flags(SendRequest.INJECT).clearSges().sge(clientMemory, 49152, 32)
            .remote(serverMemory.address() + 49152, serverMemory.rkey());
        list.clear().add(write).add(injectWrite);
        recv.clearSges().sge(serverMemory, 40960, 256);
    }

    @AfterEach
    void tearDown()
    {
        ResourceLeakDetector.setLevel(leakLevel);
        clientMemory.close();
        serverMemory.close();
        pair.close();
    }

    @Test
    void shouldAllocateNothingPerOperationWhenPostsAreHandedToTheIoThread()
    {
        clientMemory.close();
        serverMemory.close();
        pair.close();
        open(new DeviceContext().property(TcpConfiguration.DIRECT_WRITE_PROP_NAME, "false"),
            new DeviceContext().property(TcpConfiguration.DIRECT_WRITE_PROP_NAME, "false"));
        shouldAllocateNothingPerOperationInSteadyState();
    }

    @Test
    void shouldAllocateNothingPerOperationInPollingMode()
    {
        clientMemory.close();
        serverMemory.close();
        pair.close();
        open(new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll"),
            new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, "poll"));
        shouldAllocateNothingPerOperationInSteadyState();
    }

    @Test
    void shouldAllocateNothingPerOperationInSteadyState()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);

        run(WARMUP_ROUNDS);
        final long[] ids = measuredThreads();
        assertTrue(ids.length >= 3, "posting thread and both devices' I/O threads");
        final long[] before = new long[ids.length];
        final long[] after = new long[ids.length];
        allocated(threads, ids, before);
        run(MEASURED_ROUNDS);
        allocated(threads, ids, after);

        final long ops = (long)MEASURED_ROUNDS * OPS_PER_ROUND;
        final StringBuilder report = new StringBuilder();
        long total = 0;
        for (int i = 0; i < ids.length; i++)
        {
            final long bytes = after[i] - before[i];
            total += bytes;
            report.append(String.format(" thread %d: %.2f B/op", ids[i], (double)bytes / ops));
        }
        final double perOp = (double)total / ops;
        System.out.printf("TcpAllocationTest: %.2f B/op in total over %d ops;%s%n", perOp, ops, report);
        assertTrue(perOp < MAX_BYTES_PER_OP, "allocated " + perOp + " B/op (" + report + ")");
    }

    private void run(final int rounds)
    {
        for (int i = 0; i < rounds; i++)
        {
            post(pair.server, recv);
            post(pair.client, send);
            post(pair.client, write);
            post(pair.client, inlineWrite);
            post(pair.client, read);
            post(pair.client, atomic);
            post(pair.client, inlineWrite.flags(SendRequest.INLINE | SendRequest.SIGNALED));
            inlineWrite.flags(SendRequest.INLINE);
            assertEquals(QueuePair.OK, pair.client.postSend(list));
            // 6 signaled client completions (the unsignaled inline WRITE and the inject complete silently), 1 receive.
            await(pair.clientCq, clientDone, 6);
            await(pair.serverCq, serverDone, 1);
        }
    }

    private static void post(final QueuePair qp, final SendRequest request)
    {
        final int status = qp.postSend(request);
        assertEquals(QueuePair.OK, status);
    }

    private static void post(final QueuePair qp, final RecvRequest request)
    {
        final int status = qp.postRecv(request);
        assertEquals(QueuePair.OK, status);
    }

    private static void await(final CompletionQueue cq, final Counter counter, final int count)
    {
        counter.count = 0;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (counter.count < count)
        {
            if (0 == cq.poll(counter, count - counter.count))
            {
                Thread.yield();
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("completions did not arrive");
                }
            }
        }
    }

    private static long[] measuredThreads()
    {
        final List<Long> ids = new ArrayList<>();
        ids.add(Thread.currentThread().getId());
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            if (thread.getName().startsWith("verbs4j-tcp-io-"))
            {
                ids.add(thread.getId());
            }
        }
        final long[] result = new long[ids.size()];
        for (int i = 0; i < result.length; i++)
        {
            result[i] = ids.get(i);
        }
        return result;
    }

    private static void allocated(final com.sun.management.ThreadMXBean threads, final long[] ids, final long[] into)
    {
        for (int i = 0; i < ids.length; i++)
        {
            into[i] = threads.getThreadAllocatedBytes(ids[i]);
        }
    }

    /** A reusable, non-capturing completion handler. */
    private static final class Counter implements CompletionHandler
    {
        int count;

        public void onCompletion(
            final long wrId,
            final int status,
            final int opcode,
            final int byteLength,
            final int immediateData,
            final int flags,
            final int qpNumber)
        {
            if (WcStatus.SUCCESS != status)
            {
                throw new AssertionError("completion " + WcStatus.name(status));
            }
            count++;
        }
    }
}
