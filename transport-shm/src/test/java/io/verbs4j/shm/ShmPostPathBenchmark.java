// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.SendRequest;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

/**
 * A quick check of the shm post path (not a JMH suite: the benchmarks module owns those), run by hand:
 * {@code java -cp <test classpath> io.verbs4j.shm.ShmPostPathBenchmark}. Prints, for two devices of one JVM with
 * no progress threads: the unsignaled 8- and 64-byte RDMA WRITE post rate and bytes allocated per post, the one-way
 * latency of an 8-byte WRITE ping-pong (each side spins on its own region) and of a raw cache-line ping-pong.
 */
public final class ShmPostPathBenchmark
{
    private static final int BATCH = 256;

    private ShmPostPathBenchmark()
    {
    }

    /**
     * @param args optional: seconds per measurement (default 2).
     * @throws Exception on failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final long seconds = args.length > 0 ? Long.parseLong(args[0]) : 2;
        final Path dir = ShmTestSupport.newDir("bench");
        try (Device a = ShmTestSupport.open(dir, false); Device b = ShmTestSupport.open(dir, false))
        {
            final ProtectionDomain pdA = a.allocateProtectionDomain();
            final ProtectionDomain pdB = b.allocateProtectionDomain();
            final CompletionQueue cqA = a.createCompletionQueue(4096);
            final CompletionQueue cqB = b.createCompletionQueue(4096);
            final QueuePair qpA = pdA.createQueuePair(new QueuePairConfig(cqA).sendDepth(1024).recvDepth(16));
            final QueuePair qpB = pdB.createQueuePair(new QueuePairConfig(cqB).sendDepth(1024).recvDepth(16));
            qpA.modify(QpState.INIT);
            ShmTestSupport.connect(b, qpB, qpA, "bench" + System.nanoTime(), new byte[0], new byte[0]);
            final MemoryRegion localA = pdA.allocate(1 << 20, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final MemoryRegion localB = pdB.allocate(1 << 20, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            for (final int size : new int[]{8, 64})
            {
                rate(qpA, cqA, localA, localB, size, seconds);
            }
            pingPong(qpA, cqA, localA, qpB, cqB, localB, seconds);
            rawPingPong(seconds);
        }
        finally
        {
            ShmTestSupport.deleteDir(dir);
        }
    }

    private static void rate(
        final QueuePair qp, final CompletionQueue cq, final MemoryRegion local, final MemoryRegion remote,
        final int size, final long seconds)
    {
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(0).sge(local, 0, size)
            .remote(remote.address(), remote.rkey());
        final SendRequest last = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED)
            .sge(local, 0, size).remote(remote.address(), remote.rkey());
        final CompletionBatch batch = new CompletionBatch(16);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 2; round++)
        {
            final long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
            final long start = System.nanoTime();
            final long end = start + seconds * 1_000_000_000L;
            long ops = 0;
            while (System.nanoTime() < end)
            {
                for (int i = 0; i < BATCH - 1; i++)
                {
                    qp.postSend(write);
                }
                qp.postSend(last);
                ops += BATCH;
                batch.clear();
                while (0 == cq.poll(batch, 16))
                {
                    Thread.onSpinWait();
                }
            }
            final long elapsed = System.nanoTime() - start;
            final long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
            if (1 == round)
            {
                System.out.printf("WRITE %3d B unsignaled: %6.1f ns/post, %5.2f M posts/s, %.3f B allocated/post%n",
                    size, (double)elapsed / ops, ops * 1e3 / elapsed, (double)allocated / ops);
            }
        }
    }

    private static void pingPong(
        final QueuePair qpA, final CompletionQueue cqA, final MemoryRegion localA,
        final QueuePair qpB, final CompletionQueue cqB, final MemoryRegion localB, final long seconds)
        throws Exception
    {
        final long iterations = 200_000L * seconds;
        final Thread echo = new Thread(() -> bounce(qpB, cqB, localB, localA, iterations, false));
        echo.start();
        final long start = System.nanoTime();
        bounce(qpA, cqA, localA, localB, iterations, true);
        final long elapsed = System.nanoTime() - start;
        echo.join();
        System.out.printf("WRITE   8 B ping-pong: %6.1f ns one-way%n", (double)elapsed / iterations / 2);
    }

    private static void bounce(
        final QueuePair qp, final CompletionQueue cq, final MemoryRegion local, final MemoryRegion remote,
        final long iterations, final boolean first)
    {
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).flags(0).sge(local, 8, 8)
            .remote(remote.address(), remote.rkey());
        final CompletionBatch batch = new CompletionBatch(16);
        for (long i = 1; i <= iterations; i++)
        {
            if (!first || i > 1)
            {
                while (local.getLongVolatile(0) < (first ? i - 1 : i))
                {
                    Thread.onSpinWait();
                }
            }
            local.putLong(8, first ? i : i);
            if (0 == (i & 255))
            {
                write.flags(SendRequest.SIGNALED);
                qp.postSend(write);
                write.flags(0);
                batch.clear();
                while (0 == cq.poll(batch, 16))
                {
                    Thread.onSpinWait();
                }
            }
            else
            {
                qp.postSend(write);
            }
        }
        if (first)
        {
            while (local.getLongVolatile(0) < iterations)
            {
                Thread.onSpinWait();
            }
        }
    }

    private static void rawPingPong(final long seconds) throws Exception
    {
        final ByteBuffer buffer = BufferUtil.allocateDirectAligned(256, 128);
        final long ping = BufferUtil.address(buffer);
        final long pong = ping + 128;
        final long iterations = 400_000L * seconds;
        final Thread echo = new Thread(() ->
        {
            for (long i = 1; i <= iterations; i++)
            {
                while (UnsafeApi.getLongVolatile(null, ping) < i)
                {
                    Thread.onSpinWait();
                }
                UnsafeApi.putLongRelease(null, pong, i);
            }
        });
        echo.start();
        final long start = System.nanoTime();
        for (long i = 1; i <= iterations; i++)
        {
            UnsafeApi.putLongRelease(null, ping, i);
            while (UnsafeApi.getLongVolatile(null, pong) < i)
            {
                Thread.onSpinWait();
            }
        }
        final long elapsed = System.nanoTime() - start;
        echo.join();
        System.out.printf("raw cache-line ping-pong: %6.1f ns one-way%n", (double)elapsed / iterations / 2);
    }
}
