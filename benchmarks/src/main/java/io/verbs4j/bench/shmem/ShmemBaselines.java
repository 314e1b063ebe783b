// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.shmem;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

import io.verbs4j.Access;
import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.bench.report.Histograms;
import org.HdrHistogram.Histogram;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The same-run baselines the shmem tool prints next to its rows: what the heap's direct and verbs paths cannot beat.
 * <ul>
 *   <li>{@link #cacheLinePingPong}: two threads bounce a sequence number through two cache lines (release-store,
 *       acquire-spin): the floor of any same-host put+flag latency. Round trips, halved when reported.</li>
 *   <li>{@link #memcpy}: copies between two off-heap buffers: the floor of a direct-path put/get bandwidth.</li>
 *   <li>{@link #tcpWritePingPong}: two tcp queue pairs on loopback, an 8-byte inline RDMA WRITE each way, the
 *       receiver spinning on memory ({@code ib_write_lat}): the floor of the heap's verbs-path put latency.</li>
 * </ul>
 * Measurement code; allocation happens only in set-up.
 */
final class ShmemBaselines
{
    /** Completions of the baseline's signaled writes only recycle send-queue slots. */
    private static final CompletionHandler DRAIN = (wrId, status, opcode, length, imm, flags, qpn) ->
    {
    };

    private ShmemBaselines()
    {
    }

    /** @return round trips (ns) of a cache-line ping-pong between this thread and a helper thread. */
    static Histogram cacheLinePingPong(final int warmup, final int iterations)
    {
        final UnsafeBuffer lines = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 128));
        final int total = warmup + iterations;
        final Thread responder = new Thread(() ->
        {
            for (long i = 1; i <= total; i++)
            {
                while (lines.getLongAcquire(0) != i)
                {
                    Thread.onSpinWait();
                }
                lines.putLongRelease(128, i);
            }
        }, "shmem-baseline-cacheline");
        responder.setDaemon(true);
        responder.start();
        final Histogram rtt = Histograms.newNanosHistogram();
        for (long i = 1; i <= total; i++)
        {
            final long start = System.nanoTime();
            lines.putLongRelease(0, i);
            while (lines.getLongAcquire(128) != i)
            {
                Thread.onSpinWait();
            }
            if (i > warmup)
            {
                Histograms.record(rtt, System.nanoTime() - start);
            }
        }
        join(responder);
        return rtt;
    }

    /**
     * @return elapsed ns of {@code iterations} copies of {@code bytes} between two off-heap buffers, in windows.
     */
    static long memcpy(final int bytes, final int iterations, final int window, final Histogram windowsNs)
    {
        final UnsafeBuffer from = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(8, bytes)));
        final UnsafeBuffer to = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(8, bytes)));
        final long start = System.nanoTime();
        for (int done = 0; done < iterations; done += window)
        {
            final long windowStart = System.nanoTime();
            final int n = Math.min(window, iterations - done);
            for (int i = 0; i < n; i++)
            {
                to.putBytes(0, from, 0, bytes);
            }
            if (n == window)
            {
                Histograms.record(windowsNs, System.nanoTime() - windowStart);
            }
        }
        return System.nanoTime() - start;
    }

    /** @return round trips (ns) of 8-byte inline RDMA WRITEs between two tcp queue pairs on loopback. */
    static Histogram tcpWritePingPong(final int warmup, final int iterations)
    {
        try (Device a = Verbs.open("tcp"); Device b = Verbs.open("tcp"))
        {
            final Side left = new Side(a);
            final Side right = new Side(b);
            try (Listener listener = b.connectionManager().listen(
                Verbs.provider("tcp").listenEndpoint("127.0.0.1", "shmem-baseline")))
            {
                final Thread acceptor = new Thread(() ->
                {
                    final ConnectionRequest request = listener.accept(Duration.ofSeconds(10));
                    right.connected(request.privateData());
                    request.accept(right.qp, right.info());
                }, "shmem-baseline-accept");
                acceptor.start();
                left.qp.modify(QpState.INIT);
                right.qp.modify(QpState.INIT);
                left.connected(a.connectionManager().connect(left.qp, listener.endpoint(), left.info(),
                    Duration.ofSeconds(10)));
                join(acceptor);
            }
            final int total = warmup + iterations;
            final Thread responder = new Thread(() ->
            {
                for (long i = 1; i <= total; i++)
                {
                    right.await(i);
                    right.write(i);
                }
            }, "shmem-baseline-tcp");
            responder.setDaemon(true);
            responder.start();
            final Histogram rtt = Histograms.newNanosHistogram();
            for (long i = 1; i <= total; i++)
            {
                final long start = System.nanoTime();
                left.write(i);
                left.await(i);
                if (i > warmup)
                {
                    Histograms.record(rtt, System.nanoTime() - start);
                }
            }
            join(responder);
            return rtt;
        }
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join(30_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    /** One end of the tcp baseline: a queue pair, a 64-byte region the peer writes into, a word to send from. */
    private static final class Side
    {
        final QueuePair qp;
        final CompletionQueue cq;
        final MemoryRegion region;
        final UnsafeBuffer memory = new UnsafeBuffer(0, 0);
        final SendRequest write = new SendRequest(1);
        long peerAddress;
        int peerRkey;

        Side(final Device device)
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            cq = device.createCompletionQueue(256);
            qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(64).recvDepth(4).maxInlineLength(64));
            region = pd.allocate(128, Access.ALL);
            region.wrap(memory, 0, 128);
        }

        byte[] info()
        {
            final ByteBuffer b = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
            b.putLong(0, region.address()).putInt(8, region.rkey());
            return b.array();
        }

        void connected(final byte[] peer)
        {
            final ByteBuffer b = ByteBuffer.wrap(peer).order(ByteOrder.LITTLE_ENDIAN);
            peerAddress = b.getLong(0);
            peerRkey = b.getInt(8);
            write.opcode(Opcode.RDMA_WRITE).flags(SendRequest.SIGNALED | SendRequest.INLINE)
                .sge(region.address() + 64, 8, region.lkey()).remote(peerAddress, peerRkey);
        }

        void write(final long value)
        {
            memory.putLong(64, value);
            while (QueuePair.BACK_PRESSURED == qp.postSend(write))
            {
                cq.poll(DRAIN, 64);
            }
        }

        void await(final long value)
        {
            while (memory.getLongVolatile(0) != value)
            {
                cq.poll(DRAIN, 64);
            }
        }
    }
}
