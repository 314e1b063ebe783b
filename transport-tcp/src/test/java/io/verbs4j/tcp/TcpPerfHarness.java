// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

import io.verbs4j.Access;
import io.verbs4j.CompletionHandler;
import io.verbs4j.CompletionQueue;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;

/**
 * A small side-by-side harness (not a test, not a benchmark of record): tcp-provider WRITE latency (8 bytes,
 * poll-on-memory, as {@code ib_write_lat} does) and WRITE/SEND/READ bandwidth against plain NIO ping-pong and
 * streaming over loopback, in the same run, in alternating rounds; prints medians and ratios.
 * <pre>
 * java -cp ... io.verbs4j.tcp.TcpPerfHarness [event|poll] [lat|bw|all] [rounds]
 * </pre>
 * In poll mode the NIO baseline busy-polls non-blocking sockets; in event mode it blocks.
 */
public final class TcpPerfHarness
{
    private static final int LAT_ITERATIONS = 20_000;
    private static final int LAT_WARMUP = 5_000;
    private static final long BW_BYTES = 256L << 20;
    private static final int BW_WINDOW = 16;
    /** Two cores are shared by both peers' application and I/O threads: a pure spin would starve the I/O threads. */
    private static final long IDLE_PARK_NS = Long.getLong("idle.park.ns", 0);
    private static final int SPINS_BEFORE_YIELD = Integer.getInteger("spins", 200);

    private TcpPerfHarness()
    {
    }

    /**
     * @param args mode, what, rounds.
     * @throws Exception on failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final String mode = args.length > 0 ? args[0] : "event";
        final String what = args.length > 1 ? args[1] : "all";
        final int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        final boolean poll = "poll".equals(mode);
        System.out.println("# mode=" + mode + " rounds=" + rounds + " (medians over rounds; one-way latency = RTT/2)");
        if (!"bw".equals(what))
        {
            final double[] ours = new double[rounds];
            final double[] nio = new double[rounds];
            try (TcpPair pair = pair(mode))
            {
                for (int r = 0; r < rounds; r++)
                {
                    ours[r] = writeLatency(pair);
                    nio[r] = nioLatency(poll);
                    System.out.printf(Locale.ROOT, "  round %d: WRITE 8B %.2f us, NIO %.2f us%n", r, ours[r], nio[r]);
                }
            }
            final double o = median(ours);
            final double n = median(nio);
            System.out.printf(Locale.ROOT, "lat 8B one-way median: verbs4j WRITE %.2f us, NIO %s ping-pong %.2f us, " +
                "ratio %.2f%n", o, poll ? "busy-poll" : "blocking", n, o / n);
        }
        if (!"lat".equals(what))
        {
            for (final int size : new int[]{Integer.getInteger("size", 64 << 10)})
            {
                final double[][] r = new double[4][rounds];
                final double[][] ratio = new double[3][rounds];
                try (TcpPair pair = pair(mode))
                {
                    bandwidth(pair, Opcode.RDMA_WRITE, size);
                    bandwidth(pair, Opcode.SEND, size);
                    bandwidth(pair, Opcode.RDMA_READ, size);
                    for (int i = 0; i < rounds; i++)
                    {
                        // NIO between each of ours, so each ratio compares neighbours in time (the machine is noisy).
                        final double n0 = nioBandwidth(size);
                        r[0][i] = bandwidth(pair, Opcode.RDMA_WRITE, size);
                        final double n1 = nioBandwidth(size);
                        r[1][i] = bandwidth(pair, Opcode.SEND, size);
                        final double n2 = nioBandwidth(size);
                        r[2][i] = bandwidth(pair, Opcode.RDMA_READ, size);
                        final double n3 = nioBandwidth(size);
                        r[3][i] = median(new double[]{n0, n1, n2, n3});
                        ratio[0][i] = r[0][i] / ((n0 + n1) / 2);
                        ratio[1][i] = r[1][i] / ((n1 + n2) / 2);
                        ratio[2][i] = r[2][i] / ((n2 + n3) / 2);
                        System.out.printf(Locale.ROOT, "  round %d size %d: WRITE %.0f SEND %.0f READ %.0f " +
                            "NIO %.0f %.0f " +
                            "%.0f %.0f MB/s%n", i, size, r[0][i], r[1][i], r[2][i], n0, n1, n2, n3);
                    }
                }
                System.out.printf(Locale.ROOT, "bw %7d B median MB/s: WRITE %.0f SEND %.0f READ %.0f " +
                    "NIO stream %.0f; " +
                    "median of per-round ratios to the neighbouring NIO runs: WRITE %.2fx SEND %.2fx READ %.2fx%n",
                    size, median(r[0]), median(r[1]), median(r[2]), median(r[3]), median(ratio[0]),
                    median(ratio[1]), median(ratio[2]));
            }
        }
    }

    private static TcpPair pair(final String mode)
    {
        final DeviceContext client = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, mode)
            .peerTimeoutNs(5_000_000_000L);
        final DeviceContext server = new DeviceContext().property(TcpConfiguration.MODE_PROP_NAME, mode)
            .peerTimeoutNs(5_000_000_000L);
        return new TcpPair(config -> config.sendDepth(1024).recvDepth(1024).maxInlineLength(64), client, server);
    }

    static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2] :
            (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }

    // ---------------------------------------------------------------- latency

    private static final CompletionHandler IGNORE = (wrId, status, opcode, byteLength, imm, flags, qp) ->
    {
        if (WcStatus.SUCCESS != status)
        {
            throw new IllegalStateException("completion " + WcStatus.name(status));
        }
    };

    private static double writeLatency(final TcpPair pair) throws Exception
    {
        final MemoryRegion clientBuf = pair.clientPd.allocate(4096, Access.ALL);
        final MemoryRegion serverBuf = pair.serverPd.allocate(4096, Access.ALL);
        try
        {
            final int total = LAT_WARMUP + LAT_ITERATIONS;
            watched = pair;
            watchdog = System.nanoTime();
            final CompletableFuture<Void> pong = CompletableFuture.runAsync(() ->
                pingPong(pair.server, pair.serverCq, serverBuf, clientBuf, total, false, null));
            final long[] rtt = new long[total];
            pingPong(pair.client, pair.clientCq, clientBuf, serverBuf, total, true, rtt);
            pong.get();
            final long[] measured = Arrays.copyOfRange(rtt, LAT_WARMUP, total);
            Arrays.sort(measured);
            return measured[measured.length / 2] / 2000.0;
        }
        finally
        {
            clientBuf.close();
            serverBuf.close();
        }
    }

    private static void pingPong(
        final QueuePair qp,
        final CompletionQueue cq,
        final MemoryRegion local,
        final MemoryRegion remote,
        final int total,
        final boolean initiator,
        final long[] rtt)
    {
        final SendRequest write = new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(local, 64, 8)
            .remote(remote.address(), remote.rkey());
        for (int i = 1; i <= total; i++)
        {
            final long start = System.nanoTime();
            if (!initiator)
            {
                int spins = 0;
                while (local.getLongVolatile(0) != i)
                {
                    cq.poll(IGNORE, 16);
                    if (++spins > SPINS_BEFORE_YIELD)
                    {
                        Thread.yield();
                        checkState(qp);
                    }
                }
            }
            local.putLong(64, i);
            write.flags(SendRequest.INLINE | (0 == (i & 31) ? SendRequest.SIGNALED : 0));
            while (QueuePair.OK != qp.postSend(write))
            {
                cq.poll(IGNORE, 16);
            }
            checkState(qp);
            if (initiator)
            {
                int spins = 0;
                while (local.getLongVolatile(0) != i)
                {
                    cq.poll(IGNORE, 16);
                    if (++spins > SPINS_BEFORE_YIELD)
                    {
                        Thread.yield();
                        checkState(qp);
                    }
                }
                rtt[i - 1] = System.nanoTime() - start;
            }
        }
        // Reap the last signaled completions so the next round starts with an empty send queue.
        final long deadline = System.nanoTime() + 1_000_000_000L;
        while (qp.sendQueueFree() < qp.config().sendDepth() - 31 && System.nanoTime() < deadline)
        {
            cq.poll(IGNORE, 16);
        }
    }

    private static void checkState(final QueuePair qp)
    {
        if (System.nanoTime() - watchdog > 3_000_000_000L && null != watched)
        {
            watchdog = System.nanoTime();
            final StringBuilder sb = new StringBuilder("stuck: ");
            for (final TcpCounter c : TcpCounter.values())
            {
                sb.append(c).append('=').append(watched.clientTcp().counter(c)).append('/')
                    .append(watched.serverTcp().counter(c)).append(' ');
            }
            sb.append(" free=").append(watched.client.sendQueueFree()).append('/')
                .append(watched.server.sendQueueFree());
            System.out.println(sb);
        }
        if (io.verbs4j.QpState.ERROR == qp.state())
        {
            throw new IllegalStateException("queue pair in ERROR");
        }
    }

    static volatile long watchdog = System.nanoTime();
    static volatile TcpPair watched;

    private static double nioLatency(final boolean busy) throws Exception
    {
        try (ServerSocketChannel server = ServerSocketChannel.open())
        {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            final int total = LAT_WARMUP + LAT_ITERATIONS;
            final CompletableFuture<Void> pong = CompletableFuture.runAsync(() ->
            {
                try (SocketChannel channel = server.accept())
                {
                    nioPingPong(channel, busy, total, false, null);
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final long[] rtt = new long[total];
            try (SocketChannel channel = SocketChannel.open(server.getLocalAddress()))
            {
                nioPingPong(channel, busy, total, true, rtt);
            }
            pong.get();
            final long[] measured = Arrays.copyOfRange(rtt, LAT_WARMUP, total);
            Arrays.sort(measured);
            return measured[measured.length / 2] / 2000.0;
        }
    }

    private static void nioPingPong(
        final SocketChannel channel, final boolean busy, final int total, final boolean initiator, final long[] rtt)
        throws IOException
    {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.configureBlocking(!busy);
        final ByteBuffer out = ByteBuffer.allocateDirect(8);
        final ByteBuffer in = ByteBuffer.allocateDirect(8);
        for (int i = 1; i <= total; i++)
        {
            final long start = System.nanoTime();
            if (!initiator)
            {
                readFully(channel, in);
            }
            out.clear();
            out.putLong(0, i);
            while (out.hasRemaining())
            {
                channel.write(out);
            }
            if (initiator)
            {
                readFully(channel, in);
                rtt[i - 1] = System.nanoTime() - start;
            }
        }
    }

    private static void readFully(final SocketChannel channel, final ByteBuffer in) throws IOException
    {
        in.clear();
        while (in.hasRemaining())
        {
            if (channel.read(in) < 0)
            {
                throw new IOException("closed");
            }
        }
    }

    // ---------------------------------------------------------------- bandwidth

    private static double bandwidth(final TcpPair pair, final int opcode, final int size) throws Exception
    {
        final int count = (int)(BW_BYTES / size);
        final MemoryRegion local = pair.clientPd.allocate((long)size * BW_WINDOW, Access.ALL);
        final MemoryRegion remote = pair.serverPd.allocate((long)size * BW_WINDOW, Access.ALL);
        try
        {
            CompletableFuture<Void> receiver = CompletableFuture.completedFuture(null);
            if (Opcode.SEND == opcode)
            {
                receiver = CompletableFuture.runAsync(() -> receive(pair, remote, size, count));
            }
            final SendRequest request = new SendRequest(1).opcode(opcode).flags(SendRequest.SIGNALED);
            final int[] done = new int[1];
            final CompletionHandler handler = (wrId, status, op, byteLength, imm, flags, qp) ->
            {
                if (WcStatus.SUCCESS != status)
                {
                    throw new IllegalStateException("completion " + WcStatus.name(status));
                }
                done[0]++;
            };
            final long start = System.nanoTime();
            int posted = 0;
            while (done[0] < count)
            {
                while (posted < count && posted - done[0] < BW_WINDOW)
                {
                    final int slot = posted % BW_WINDOW;
                    request.clearSges().sge(local, (long)slot * size, size)
                        .remote(remote.address() + (long)slot * size, remote.rkey());
                    if (QueuePair.OK != pair.client.postSend(request))
                    {
                        break;
                    }
                    posted++;
                }
                if (0 == pair.clientCq.poll(handler, 64))
                {
                    idle();
                }
            }
            final long elapsed = System.nanoTime() - start;
            receiver.get();
            return (double)count * size / elapsed * 1000.0;
        }
        finally
        {
            local.close();
            remote.close();
        }
    }

    private static void receive(final TcpPair pair, final MemoryRegion buffer, final int size, final int count)
    {
        final RecvRequest recv = new RecvRequest(1);
        final int[] done = new int[1];
        final CompletionHandler handler = (wrId, status, op, byteLength, imm, flags, qp) -> done[0]++;
        int posted = 0;
        while (done[0] < count)
        {
            while (posted < count && posted - done[0] < BW_WINDOW * 4)
            {
                recv.clearSges().sge(buffer, (long)(posted % BW_WINDOW) * size, size);
                if (QueuePair.OK != pair.server.postRecv(recv))
                {
                    break;
                }
                posted++;
            }
            if (0 == pair.serverCq.poll(handler, 64))
            {
                idle();
            }
        }
    }

    /** Waiting for completions: give the CPU to the I/O threads (two shared cores), as a blocking socket would. */
    private static void idle()
    {
        if (IDLE_PARK_NS > 0)
        {
            java.util.concurrent.locks.LockSupport.parkNanos(IDLE_PARK_NS);
        }
        else
        {
            Thread.yield();
        }
    }

    private static double nioBandwidth(final int size) throws Exception
    {
        final long total = BW_BYTES;
        try (ServerSocketChannel server = ServerSocketChannel.open())
        {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            final CompletableFuture<Long> reader = CompletableFuture.supplyAsync(() ->
            {
                try (SocketChannel channel = server.accept())
                {
                    final ByteBuffer in = ByteBuffer.allocateDirect(size);
                    long got = 0;
                    while (got < total)
                    {
                        in.clear();
                        final int n = channel.read(in);
                        if (n < 0)
                        {
                            throw new IOException("closed");
                        }
                        got += n;
                    }
                    return System.nanoTime();
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            try (SocketChannel channel = SocketChannel.open(server.getLocalAddress()))
            {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                final ByteBuffer out = ByteBuffer.allocateDirect(size);
                final long start = System.nanoTime();
                for (long sent = 0; sent < total; sent += size)
                {
                    out.clear();
                    while (out.hasRemaining())
                    {
                        channel.write(out);
                    }
                }
                return (double)total / (reader.get() - start) * 1000.0;
            }
        }
    }
}
