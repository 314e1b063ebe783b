// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.baseline;

import io.verbs4j.bench.coll.NcclTestsFormat;
import io.verbs4j.collectives.launch.LoopbackCluster;
import io.verbs4j.collectives.rendezvous.FileStore;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo's like-for-like baseline for a 2-rank AllReduce: the same float32 sum of the same sizes between two JVM
 * processes of a {@link LoopbackCluster}, written the plain way with {@code java.net.Socket} over loopback TCP. Each
 * call, both ranks send their vector and receive the peer's (in {@link #CHUNK_BYTES} pieces, sending and receiving
 * in turn so that neither blocks on a full socket buffer), then add the two. Out of place the sum goes to the
 * receive buffer; in place the sum goes back into the send buffer. Rank 0 prints an nccl-tests table
 * ({@link NcclTestsFormat}, the format of {@code verbs4j coll}): time is the mean over the two ranks of each rank's
 * mean per call, and every row is checked with one extra call on known data.
 * <pre>
 *   RANK, WORLD_SIZE=2, VERBS4J_RENDEZVOUS_DIR set by LoopbackCluster:
 *   java ... io.verbs4j.bench.baseline.SocketAllReduce SIZES ITERS WARMUP_CALLS TIMEOUT_SECONDS
 * </pre>
 * {@code SIZES} is a comma list of byte counts (multiples of 4); {@code WARMUP_CALLS} is the most untimed calls per
 * size and placement (fewer for big sizes: at most 64 MiB moved per warm-up).
 */
public final class SocketAllReduce
{
    /** Bytes sent before the matching receive: two of them in flight per direction fit any socket buffers. */
    public static final int CHUNK_BYTES = 64 << 10;
    private static final String PORT_KEY = "socket-allreduce-port";
    private static final long WARMUP_BYTES = 64L << 20;

    private final DataInputStream in;
    private final DataOutputStream out;
    private final int rank;

    private SocketAllReduce(final Socket socket, final int rank) throws IOException
    {
        final InputStream input = socket.getInputStream();
        final OutputStream output = socket.getOutputStream();
        this.in = new DataInputStream(input);
        this.out = new DataOutputStream(output);
        this.rank = rank;
    }

    /**
     * Runs one rank; exits 0 when every row was right.
     *
     * @param args sizes, iterations, warm-up calls, timeout in seconds.
     * @throws IOException if the peer cannot be reached or goes away.
     */
    public static void main(final String[] args) throws IOException
    {
        if (4 != args.length)
        {
            throw new IllegalArgumentException("usage: SocketAllReduce SIZES ITERS WARMUP_CALLS TIMEOUT_SECONDS");
        }
        final List<Long> sizes = new ArrayList<>();
        for (final String size : args[0].split(","))
        {
            final long bytes = Long.parseLong(size.trim());
            if (bytes < 4 || 0 != bytes % 4 || bytes > Integer.MAX_VALUE / 2)
            {
                throw new IllegalArgumentException("sizes must be positive multiples of 4 below 1 GiB: " + size);
            }
            sizes.add(bytes);
        }
        final int iters = Integer.parseInt(args[1]);
        final long warmup = Long.parseLong(args[2]);
        final int timeoutMs = (int)Duration.ofSeconds(Long.parseLong(args[3])).toMillis();
        final int rank = Integer.parseInt(System.getenv(LoopbackCluster.RANK_ENV));
        if (2 != Integer.parseInt(System.getenv(LoopbackCluster.WORLD_SIZE_ENV)))
        {
            throw new IllegalArgumentException("the socket AllReduce baseline runs on exactly 2 ranks");
        }
        try (FileStore store = new FileStore(Path.of(System.getenv(LoopbackCluster.RENDEZVOUS_DIR_ENV)));
             Socket socket = connect(store, rank, timeoutMs))
        {
            final long wrong = new SocketAllReduce(socket, rank).table(sizes, iters, warmup, System.out);
            System.out.flush();
            System.exit(0 == wrong ? 0 : 1);
        }
    }

    private static Socket connect(final FileStore store, final int rank, final int timeoutMs) throws IOException
    {
        final Socket socket;
        if (0 == rank)
        {
            try (ServerSocket server = new ServerSocket())
            {
                server.setReceiveBufferSize(4 * CHUNK_BYTES);
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
                server.setSoTimeout(timeoutMs);
                store.set(PORT_KEY, Integer.toString(server.getLocalPort()).getBytes(StandardCharsets.US_ASCII));
                socket = server.accept();
            }
        }
        else
        {
            final int port = Integer.parseInt(
                new String(store.get(PORT_KEY, Duration.ofMillis(timeoutMs)), StandardCharsets.US_ASCII));
            socket = new Socket();
            socket.setReceiveBufferSize(4 * CHUNK_BYTES);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMs);
        }
        socket.setTcpNoDelay(true);
        socket.setSendBufferSize(4 * CHUNK_BYTES);
        socket.setSoTimeout(timeoutMs);
        return socket;
    }

    private long table(final List<Long> sizes, final int iters, final long maxWarmup, final PrintStream print)
        throws IOException
    {
        if (0 == rank)
        {
            print.println("# java.net.Socket AllReduce (nccl-tests all_reduce_perf format)");
            print.println("# nRanks 2 (processes) transport: java.net.Socket over loopback TCP (TCP_NODELAY, " +
                "blocking streams) iters: " + iters + " time: mean");
            print.println("# Each call: both ranks send their vector and receive the peer's in " +
                (CHUNK_BYTES >> 10) + " KiB pieces, then add");
            print.println("# Warm-up: " + maxWarmup + " calls per size and placement (fewer above " +
                WARMUP_BYTES / maxWarmup + " B: " + (WARMUP_BYTES >> 20) + " MiB moved at most), just before each");
            print.println("#");
            for (final String line : NcclTestsFormat.columnHeader())
            {
                print.println(line);
            }
            print.flush();
        }
        long wrongTotal = 0;
        double busBwSum = 0;
        for (final long bytes : sizes)
        {
            final int count = (int)(bytes / 4);
            final byte[] send = new byte[(int)bytes];
            final byte[] receive = new byte[(int)bytes];
            final FloatBuffer sendFloats = floats(send);
            final FloatBuffer receiveFloats = floats(receive);
            final long warmup = Math.max(Math.min(2, maxWarmup), Math.min(maxWarmup, WARMUP_BYTES / bytes));
            final StringBuilder row = new StringBuilder(NcclTestsFormat.preamble(bytes, count, "float", "sum", -1));
            for (final boolean inPlace : new boolean[] { false, true })
            {
                fill(sendFloats, count);
                for (long i = 0; i < warmup; i++)
                {
                    call(send, receive, sendFloats, receiveFloats, count, inPlace);
                }
                call(send, receive, sendFloats, receiveFloats, count, inPlace); // both ranks leave together
                final long start = System.nanoTime();
                for (int i = 0; i < iters; i++)
                {
                    call(send, receive, sendFloats, receiveFloats, count, inPlace);
                }
                final double myUs = (System.nanoTime() - start) / 1e3 / iters;
                fill(sendFloats, count);
                call(send, receive, sendFloats, receiveFloats, count, inPlace);
                final long myWrong = wrong(inPlace ? sendFloats : receiveFloats, count);
                out.writeDouble(myUs);
                out.writeLong(myWrong);
                out.flush();
                final double timeUs = (myUs + in.readDouble()) / 2;
                final long wrong = myWrong + in.readLong();
                final double algBw = bytes / (timeUs * 1e3);
                wrongTotal += wrong;
                busBwSum += algBw; // 2 ranks: busbw = algbw x 2(n-1)/n = algbw
                row.append(NcclTestsFormat.body(timeUs, algBw, algBw, wrong));
            }
            if (0 == rank)
            {
                print.println(row);
                print.flush();
            }
        }
        if (0 == rank)
        {
            for (final String line : NcclTestsFormat.footer(wrongTotal, busBwSum / Math.max(1, 2 * sizes.size())))
            {
                print.println(line);
            }
        }
        return wrongTotal;
    }

    /**
     * One AllReduce: exchange the vectors piece by piece, then add.
     */
    private void call(final byte[] send, final byte[] receive, final FloatBuffer sendFloats,
        final FloatBuffer receiveFloats, final int count, final boolean inPlace) throws IOException
    {
        for (int offset = 0; offset < send.length; offset += CHUNK_BYTES)
        {
            final int length = Math.min(CHUNK_BYTES, send.length - offset);
            out.write(send, offset, length);
            out.flush();
            in.readFully(receive, offset, length);
        }
        final FloatBuffer sum = inPlace ? sendFloats : receiveFloats;
        for (int i = 0; i < count; i++)
        {
            sum.put(i, sendFloats.get(i) + receiveFloats.get(i));
        }
    }

    private void fill(final FloatBuffer floats, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            floats.put(i, (rank + 1) * (i % 13 + 1));
        }
    }

    private static long wrong(final FloatBuffer sum, final int count)
    {
        long wrong = 0;
        for (int i = 0; i < count; i++)
        {
            wrong += 3 * (i % 13 + 1) == sum.get(i) ? 0 : 1;
        }
        return wrong;
    }

    private static FloatBuffer floats(final byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    }
}
