// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
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
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.system.support.Messages;

/**
 * The peer process of the verbs system tests (driven by {@link io.verbs4j.launch.ChildJvm}): a target that
 * accepts connections, exposes a region for one-sided work, keeps receives posted and checks self-checking messages
 * ({@link Messages}); or a sender that streams SENDs to the test. Prints {@code BAD ...} as soon as a message is not
 * intact. Commands (one per line, answered {@code OK ...} / {@code ERR ...}):
 * <pre>
 * LISTEN name                                          -> endpoint
 * SERVE count recvDepth recvSize regionBytes fill pdMode -> region address, rkey, length; accepts in the background
 *       (fill 1: the region holds {@link Messages#patternByte}; pdMode same | alt: odd connections in another PD)
 * SOAK recvDepth recvSize regionBytes                  -> region; accepts for ever, closes connections that flushed
 * STATS                                                -> recvs bytes bad errors accepted closed
 * PERQP                                                -> receive count of each accepted QP, comma separated
 * SEND_TO endpoint minSize maxSize                     -> connects and streams checked SENDs until the QP fails
 * EXIT
 * </pre>
 * Arguments: provider, {@code peerTimeoutMs=N}, then device properties {@code name=value}.
 */
public final class FaultPeerMain
{
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private final Device device;
    private final ProtectionDomain pd;
    private final ProtectionDomain otherPd;
    private Listener listener;
    private volatile boolean running = true;
    private final AtomicLong recvs = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong bad = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong closedQps = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile long[] perQp = new long[0];

    private FaultPeerMain(final String provider, final DeviceContext context)
    {
        device = Verbs.open(provider, context);
        pd = device.allocateProtectionDomain();
        otherPd = device.allocateProtectionDomain();
    }

    /**
     * @param args provider, peerTimeoutMs=N, properties.
     * @throws Exception on pipe failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final DeviceContext context = new DeviceContext();
        for (int i = 1; i < args.length; i++)
        {
            final int eq = args[i].indexOf('=');
            final String key = args[i].substring(0, eq);
            final String value = args[i].substring(eq + 1);
            if ("peerTimeoutMs".equals(key))
            {
                context.peerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(Long.parseLong(value)));
            }
            else
            {
                context.property(key, value);
            }
        }
        final FaultPeerMain peer = new FaultPeerMain(args[0], context);
        OUT.println("READY " + ProcessHandle.current().pid());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = in.readLine()))
            {
                final String[] w = line.trim().split(" ");
                if ("EXIT".equals(w[0]))
                {
                    break;
                }
                try
                {
                    final String reply = peer.run(w);
                    OUT.println(null == reply ? "OK" : "OK " + reply);
                }
                catch (final Throwable ex)
                {
                    OUT.println("ERR " + String.valueOf(ex).replace('\n', ' '));
                }
            }
        }
        peer.close();
        OUT.println("OK bye");
        System.exit(0);
    }

    private String run(final String[] w) throws Exception
    {
        switch (w[0])
        {
            case "LISTEN":
                listener = device.connectionManager().listen(
                    "shm".equals(device.name()) ? "shm://" + w[1] : "tcp://127.0.0.1:0");
                return listener.endpoint();
            case "SERVE":
                return serve(Integer.parseInt(w[1]), Integer.parseInt(w[2]), Integer.parseInt(w[3]),
                    Long.parseLong(w[4]), "1".equals(w[5]), "alt".equals(w[6]));
            case "STATS":
                return recvs.get() + " " + bytes.get() + " " + bad.get() + " " + errors.get() + " " +
                    accepted.get() + " " +
                    closedQps.get();
            case "PERQP":
            {
                final StringBuilder sb = new StringBuilder();
                for (final long n : perQp)
                {
                    sb.append(sb.length() == 0 ? "" : ",").append(n);
                }
                return sb.toString();
            }
            case "SOAK":
                return soak(Integer.parseInt(w[1]), Integer.parseInt(w[2]), Long.parseLong(w[3]));
            case "SEND_TO":
                sendTo(w[1], Integer.parseInt(w[2]), Integer.parseInt(w[3]));
                return null;
            default:
                throw new IllegalArgumentException("unknown command " + w[0]);
        }
    }

    private String serve(final int count, final int recvDepth, final int recvSize, final long regionBytes,
        final boolean fill, final boolean altPd)
    {
        final MemoryRegion region = pd.allocate(regionBytes, Access.ALL);
        if (fill)
        {
            Messages.fillPattern(region);
        }
        final CompletionQueue cq = device.createCompletionQueue(Math.min(1 << 20, count * (recvDepth + 1)));
        final MemoryRegion recvRegion = pd.allocate((long)count * recvDepth * recvSize, Access.LOCAL_WRITE);
        final MemoryRegion otherRecvRegion = altPd ? otherPd.allocate((long)count * recvDepth * recvSize,
            Access.LOCAL_WRITE) : recvRegion;
        perQp = new long[count];
        final Thread server = new Thread(() -> serveLoop(count, recvDepth, recvSize, region, cq, recvRegion,
            otherRecvRegion, altPd), "fault-peer-server");
        server.setDaemon(true);
        server.start();
        threads.add(server);
        return region.address() + " " + region.rkey() + " " + region.length();
    }

    private void serveLoop(final int count, final int recvDepth, final int recvSize, final MemoryRegion region,
        final CompletionQueue cq, final MemoryRegion recvRegion, final MemoryRegion otherRecvRegion,
        final boolean altPd)
    {
        final QueuePair[] qps = new QueuePair[count];
        final long[] expectedSeq = new long[count];
        final long[] expectedWriteSeq = new long[count];
        final long[] perQpLocal = perQp;
        final RecvRequest recv = new RecvRequest(1);
        try
        {
            for (int i = 0; i < count && running; i++)
            {
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(120));
                if (null == request)
                {
                    OUT.println("EVENT accept timed out after " + i);
                    return;
                }
                final ProtectionDomain qpPd = altPd && 1 == (i & 1) ? otherPd : pd;
                final MemoryRegion rr = qpPd == pd ? recvRegion : otherRecvRegion;
                final QueuePair qp = qpPd.createQueuePair(new QueuePairConfig(cq).sendDepth(1).recvDepth(recvDepth)
                    .maxRecvSge(1).rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE));
                qp.modify(QpState.INIT);
                for (int s = 0; s < recvDepth; s++)
                {
                    final long offset = ((long)i * recvDepth + s) * recvSize;
                    check(qp.postRecv(recv.clearSges().wrId(((long)i << 32) | s).sge(rr, offset, recvSize)));
                }
                request.accept(qp, new byte[0]);
                qps[i] = qp;
                accepted.incrementAndGet();
            }
            final CompletionBatch batch = new CompletionBatch(256);
            while (running)
            {
                final int n = cq.poll(batch);
                for (int k = 0; k < n; k++)
                {
                    final long wrId = batch.wrId(k);
                    final int i = (int)(wrId >>> 32);
                    final int s = (int)wrId;
                    if (WcStatus.SUCCESS != batch.status(k))
                    {
                        errors.incrementAndGet();
                        continue;
                    }
                    if (Opcode.RECV != batch.opcode(k) && Opcode.RECV_RDMA_WITH_IMM != batch.opcode(k))
                    {
                        continue;
                    }
                    final MemoryRegion rr = altPd && 1 == (i & 1) ? otherRecvRegion : recvRegion;
                    final long offset = ((long)i * recvDepth + s) * recvSize;
                    final int length = batch.byteLength(k);
                    if (length >= Messages.HEADER_LENGTH)
                    {
                        final String problem = check(rr, offset, length, region, i, expectedSeq, expectedWriteSeq);
                        if (null != problem)
                        {
                            bad.incrementAndGet();
                            OUT.println("BAD qp " + i + ": " + problem);
                        }
                    }
                    recvs.incrementAndGet();
                    bytes.addAndGet(length);
                    perQpLocal[i]++;
                    final int rc = qps[i].postRecv(recv.clearSges().wrId(wrId).sge(rr, offset, recvSize));
                    if (QueuePair.OK != rc)
                    {
                        errors.incrementAndGet();
                    }
                }
                if (0 == n)
                {
                    LockSupport.parkNanos(20_000);
                }
            }
        }
        catch (final Throwable t)
        {
            OUT.println("EVENT server failed: " + t);
        }
    }

    /** A connection of the soak server. */
    private static final class SoakQp
    {
        final QueuePair qp;
        final MemoryRegion recvRegion;
        long expectedSeq;
        int flushed;

        SoakQp(final QueuePair qp, final MemoryRegion recvRegion)
        {
            this.qp = qp;
            this.recvRegion = recvRegion;
        }
    }

    /**
     * Accepts connections for ever; each gets its own receive region; receives are checked and re-posted; a
     * connection whose receives all flushed (the test closed its end) is closed with its region.
     */
    private String soak(final int recvDepth, final int recvSize, final long regionBytes)
    {
        final MemoryRegion region = pd.allocate(regionBytes, Access.ALL);
        Messages.fillPattern(region);
        final CompletionQueue cq = device.createCompletionQueue(1 << 16);
        final java.util.concurrent.ConcurrentHashMap<Integer, SoakQp> live =
            new java.util.concurrent.ConcurrentHashMap<>();
        final Thread acceptor = new Thread(() ->
        {
            final RecvRequest recv = new RecvRequest(1);
            while (running)
            {
                try
                {
                    final ConnectionRequest request = listener.accept(Duration.ofMillis(200));
                    if (null == request)
                    {
                        continue;
                    }
                    final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(1).recvDepth(recvDepth)
                        .rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE));
                    final MemoryRegion rr = pd.allocate((long)recvDepth * recvSize, Access.LOCAL_WRITE);
                    qp.modify(QpState.INIT);
                    for (int s = 0; s < recvDepth; s++)
                    {
                        check(qp.postRecv(recv.clearSges().wrId(s).sge(rr, (long)s * recvSize, recvSize)));
                    }
                    live.put(qp.qpNumber(), new SoakQp(qp, rr));
                    request.accept(qp, new byte[0]);
                    accepted.incrementAndGet();
                }
                catch (final RuntimeException ex)
                {
                    if (running)
                    {
                        OUT.println("EVENT soak accept: " + ex);
                    }
                }
            }
        }, "fault-peer-soak-accept");
        final Thread poller = new Thread(() ->
        {
            final RecvRequest recv = new RecvRequest(1);
            final CompletionBatch batch = new CompletionBatch(256);
            while (running)
            {
                final int n = cq.poll(batch);
                for (int k = 0; k < n; k++)
                {
                    final SoakQp c = live.get(batch.qpNumber(k));
                    if (null == c)
                    {
                        continue;
                    }
                    final long wrId = batch.wrId(k);
                    if (WcStatus.SUCCESS != batch.status(k))
                    {
                        if (++c.flushed == recvDepth)
                        {
                            live.remove(batch.qpNumber(k));
                            c.qp.close();
                            c.recvRegion.close();
                            closedQps.incrementAndGet();
                        }
                        continue;
                    }
                    final long offset = wrId * recvSize;
                    if (batch.byteLength(k) >= Messages.HEADER_LENGTH &&
                        Messages.SEND_MAGIC == c.recvRegion.getInt(offset))
                    {
                        final String problem = Messages.checkSend(c.recvRegion, offset, batch.byteLength(k),
                            c.expectedSeq++);
                        if (null != problem)
                        {
                            bad.incrementAndGet();
                            OUT.println("BAD soak qp " + batch.qpNumber(k) + ": " + problem);
                        }
                    }
                    recvs.incrementAndGet();
                    bytes.addAndGet(batch.byteLength(k));
                    c.qp.postRecv(recv.clearSges().wrId(wrId).sge(c.recvRegion, offset, recvSize));
                }
                if (0 == n)
                {
                    LockSupport.parkNanos(50_000);
                }
            }
        }, "fault-peer-soak-poll");
        acceptor.setDaemon(true);
        poller.setDaemon(true);
        acceptor.start();
        poller.start();
        threads.add(acceptor);
        threads.add(poller);
        return region.address() + " " + region.rkey() + " " + region.length();
    }

    private static String check(final MemoryRegion rr, final long offset, final int length,
        final MemoryRegion region, final int qp, final long[] expectedSeq, final long[] expectedWriteSeq)
    {
        final int magic = rr.getInt(offset);
        if (Messages.WRITE_MAGIC == magic)
        {
            final int len = rr.getInt(offset + Messages.LENGTH_OFFSET);
            final long seq = rr.getLong(offset + Messages.SEQ_OFFSET);
            final long at = rr.getLong(offset + Messages.REMOTE_OFFSET_OFFSET);
            if (seq != expectedWriteSeq[qp]++)
            {
                return "write seq " + seq + " where " + (expectedWriteSeq[qp] - 1) + " was expected";
            }
            final int crc = Messages.crc(region, at, len);
            return crc == rr.getInt(offset + Messages.CRC_OFFSET) ? null :
                "CRC32C mismatch of WRITE seq " + seq + " at " + at + " length " + len;
        }
        if (Messages.SEND_MAGIC == magic)
        {
            return Messages.checkSend(rr, offset, length, expectedSeq[qp]++);
        }
        return null; // unchecked traffic (load tests)
    }

    private void sendTo(final String endpoint, final int minSize, final int maxSize)
    {
        final int depth = 32;
        final CompletionQueue cq = device.createCompletionQueue(2 * depth);
        final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(depth).recvDepth(1)
            .rnrRetry(QueuePairConfig.RNR_RETRY_INFINITE));
        final int slotSize = Messages.HEADER_LENGTH + maxSize;
        final MemoryRegion mr = pd.allocate((long)depth * slotSize, Access.LOCAL_WRITE);
        device.connectionManager().connect(qp, endpoint, new byte[0], Duration.ofSeconds(30));
        final Thread sender = new Thread(() ->
        {
            final SplittableRandom random = new SplittableRandom(ProcessHandle.current().pid());
            final byte[] pool = new byte[maxSize + 4096];
            random.nextBytes(pool);
            final SendRequest send = new SendRequest(1).opcode(Opcode.SEND);
            final CompletionBatch batch = new CompletionBatch(depth);
            long posted = 0;
            long completed = 0;
            while (running)
            {
                while (posted - completed < depth)
                {
                    final int size = minSize + random.nextInt(maxSize - minSize + 1);
                    final long slot = (posted % depth) * slotSize;
                    Messages.writeSend(mr, slot, posted, pool, random.nextInt(4096), size);
                    final int rc = qp.postSend(send.clearSges().wrId(posted).sge(mr, slot,
                        Messages.HEADER_LENGTH + size));
                    if (QueuePair.OK != rc)
                    {
                        OUT.println("EVENT sender post " + QueuePair.describe(rc));
                        return;
                    }
                    posted++;
                }
                final int n = cq.poll(batch);
                for (int k = 0; k < n; k++)
                {
                    completed++;
                    if (WcStatus.SUCCESS != batch.status(k))
                    {
                        OUT.println("EVENT sender " + WcStatus.name(batch.status(k)));
                        return;
                    }
                }
                if (0 == n)
                {
                    LockSupport.parkNanos(20_000);
                }
            }
        }, "fault-peer-sender");
        sender.setDaemon(true);
        sender.start();
        threads.add(sender);
    }

    private static void check(final int rc)
    {
        if (QueuePair.OK != rc)
        {
            throw new IllegalStateException("post failed: " + QueuePair.describe(rc));
        }
    }

    private void close()
    {
        running = false;
        for (final Thread t : threads)
        {
            try
            {
                t.join(5_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        device.close();
    }
}
