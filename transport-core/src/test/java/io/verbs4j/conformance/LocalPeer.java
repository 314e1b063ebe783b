// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionRequest;
import io.verbs4j.Device;
import io.verbs4j.Listener;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.Verbs;
import io.verbs4j.config.DeviceContext;

/**
 * A {@link Peer} that runs in this JVM on its own device. Also the engine behind {@link PeerMain} in a child JVM.
 */
public final class LocalPeer implements Peer
{
    private static final int MAX_RECVS = 1024;

    private final Device device;
    private final ProtectionDomain pd;
    private final ProtectionDomain otherPd;
    private final ConcurrentHashMap<Integer, MemoryRegion> regions = new ConcurrentHashMap<>();
    private int nextRegionId = 1;
    private Listener listener;
    private volatile CompletableFuture<byte[]> accepting;
    private volatile QueuePair qp;
    private CompletionQueue cq;
    private MemoryRegion recvRegion;
    private int recvSize;
    private long nextRecvWrId;
    private CompletableFuture<Void> adds;
    private volatile MixedTrafficSide mixed;
    private volatile CompletableFuture<String> mixedRound;
    private volatile int mixedRoundNumber;
    private volatile boolean mixedRoundAwaited;

    /**
     * @param providerName provider.
     * @param context      settings.
     */
    public LocalPeer(final String providerName, final DeviceContext context)
    {
        device = Verbs.open(providerName, context);
        pd = device.allocateProtectionDomain();
        otherPd = device.allocateProtectionDomain();
    }

    /** {@inheritDoc} */
    public synchronized String listen(final String uniqueName)
    {
        if (null == listener)
        {
            listener = device.connectionManager().listen(
                Verbs.provider(device.name()).listenEndpoint("127.0.0.1", uniqueName));
        }
        return listener.endpoint();
    }

    /** {@inheritDoc} */
    public synchronized RegionInfo allocate(final long length, final int access, final boolean useOtherPd)
    {
        final MemoryRegion region = (useOtherPd ? otherPd : pd).allocate(length, access);
        final int id = nextRegionId++;
        regions.put(id, region);
        return new RegionInfo(id, region.address(), region.rkey(), region.length());
    }

    /** {@inheritDoc} */
    public synchronized RegionInfo register(final int length, final int access)
    {
        final MemoryRegion region = pd.register(java.nio.ByteBuffer.allocateDirect(length), access);
        final int id = nextRegionId++;
        regions.put(id, region);
        return new RegionInfo(id, region.address(), region.rkey(), region.length());
    }

    /** {@inheritDoc} */
    public void deregister(final int regionId)
    {
        region(regionId).close();
    }

    /** {@inheritDoc} */
    public void write(final int regionId, final long offset, final byte[] data)
    {
        region(regionId).putBytes(offset, data, 0, data.length);
    }

    /** {@inheritDoc} */
    public byte[] read(final int regionId, final long offset, final int length)
    {
        final byte[] data = new byte[length];
        region(regionId).getBytes(offset, data, 0, length);
        return data;
    }

    /** {@inheritDoc} */
    public long getLongVolatile(final int regionId, final long offset)
    {
        return region(regionId).getLongVolatile(offset);
    }

    /** {@inheritDoc} */
    public synchronized void acceptAsync(
        final int recvCount, final int recvSize, final int rnrRetry, final byte[] replyData)
    {
        dropConnection();
        final int depth = Math.max(16, Math.min(MAX_RECVS, recvCount * 2));
        cq = device.createCompletionQueue(2 * depth);
        final QueuePair newQp = pd.createQueuePair(new QueuePairConfig(cq)
            .sendDepth(depth).recvDepth(depth).maxRecvSge(1).rnrRetry(rnrRetry));
        newQp.modify(QpState.INIT);
        this.recvSize = Math.max(1, recvSize);
        recvRegion = pd.allocate((long)this.recvSize * MAX_RECVS, Access.LOCAL_WRITE);
        nextRecvWrId = 0;
        qp = newQp;
        postRecvs(recvCount);
        final Listener l = listener;
        accepting = CompletableFuture.supplyAsync(() ->
        {
            final ConnectionRequest request = l.accept(Duration.ofSeconds(30));
            if (null == request)
            {
                throw new IllegalStateException("no connection request within 30 s");
            }
            request.accept(newQp, replyData);
            return request.privateData();
        });
    }

    /** {@inheritDoc} */
    public byte[] awaitAccepted(final long timeoutMs)
    {
        try
        {
            return accepting.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("accept failed: " + ex, ex);
        }
    }

    /** {@inheritDoc} */
    public synchronized void postRecvs(final int count)
    {
        final RecvRequest recv = new RecvRequest(1);
        for (int i = 0; i < count; i++)
        {
            final long wrId = nextRecvWrId++;
            recv.clearSges().wrId(wrId).sge(recvRegion, (wrId % MAX_RECVS) * recvSize, recvSize);
            final int rc = qp.postRecv(recv);
            if (QueuePair.OK != rc)
            {
                throw new IllegalStateException("peer postRecv failed: " + QueuePair.describe(rc));
            }
        }
    }

    /** {@inheritDoc} */
    public Completion[] pollRecv(final int count, final long timeoutMs)
    {
        final List<Completion> out = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try
        {
            while (out.size() < count)
            {
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    break;
                }
                cq.poll((wrId, status, opcode, byteLength, imm, flags, qpNumber) ->
                    out.add(new Completion(wrId, status, opcode, byteLength, imm, flags, qpNumber)),
                    count - out.size(), left, TimeUnit.NANOSECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return out.toArray(new Completion[0]);
    }

    /** {@inheritDoc} */
    public byte[] recvData(final long wrId, final int length)
    {
        final byte[] data = new byte[length];
        recvRegion.getBytes((wrId % MAX_RECVS) * recvSize, data, 0, length);
        return data;
    }

    /** {@inheritDoc} */
    public QpState qpState()
    {
        return qp.state();
    }

    /** {@inheritDoc} */
    public synchronized void closeQp()
    {
        qp.close();
    }

    /** {@inheritDoc} */
    public synchronized void startLocalAdds(final int regionId, final long offset, final int count)
    {
        final MemoryRegion region = region(regionId);
        adds = CompletableFuture.runAsync(() ->
        {
            for (int i = 0; i < count; i++)
            {
                region.getAndAddLong(offset, 1);
            }
        });
    }

    /** {@inheritDoc} */
    public void awaitLocalAdds()
    {
        adds.join();
    }

    /** {@inheritDoc} */
    public synchronized String mixedAccept(final MixedSchedule.Limits limits, final long seed, final int rounds)
    {
        dropConnection();
        final MixedTrafficSide side = new MixedTrafficSide(device, pd, limits, seed, 1, rounds);
        mixed = side;
        final Listener l = listener;
        accepting = CompletableFuture.supplyAsync(() ->
        {
            final ConnectionRequest request = l.accept(Duration.ofSeconds(30));
            if (null == request)
            {
                throw new IllegalStateException("no connection request within 30 s");
            }
            request.accept(side.queuePair(), new byte[0]);
            return request.privateData();
        });
        return side.localInfo();
    }

    /** {@inheritDoc} */
    public synchronized void mixedRemote(final String info)
    {
        mixedSide().remote(info);
    }

    /** {@inheritDoc} */
    public synchronized void mixedStart(final int round)
    {
        final MixedTrafficSide side = mixedSide();
        mixedRoundNumber = round;
        mixedRoundAwaited = false;
        // A thread of its own: the round polls the completion queue all the time, which drives polling providers,
        // and goes on polling (idle) until the other side asks for the result, since its round may need this side.
        final CompletableFuture<String> result = new CompletableFuture<>();
        mixedRound = result;
        final Thread runner = new Thread(() ->
        {
            try
            {
                String failure = side.runRound(round);
                while (!mixedRoundAwaited)
                {
                    if (null == failure)
                    {
                        failure = side.idlePoll();
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(50_000);
                }
                result.complete(failure);
            }
            catch (final Throwable ex)
            {
                result.complete("role 1 round " + round + ": " + ex);
            }
        }, "mixed-traffic-peer");
        runner.setDaemon(true);
        runner.start();
    }

    /** {@inheritDoc} */
    public String mixedAwait(final long timeoutMs)
    {
        final CompletableFuture<String> round = mixedRound;
        if (null == round)
        {
            throw new IllegalStateException("no mixed round started");
        }
        mixedRoundAwaited = true;
        final String failure;
        try
        {
            failure = round.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            return "role 1 round " + mixedRoundNumber + ": not done within " + timeoutMs + " ms";
        }
        catch (final Exception ex)
        {
            return "role 1 round " + mixedRoundNumber + ": " + ex;
        }
        return null != failure ? failure : mixedSide().verifyIncoming(mixedRoundNumber);
    }

    /** {@inheritDoc} */
    public synchronized long[] mixedClose()
    {
        final MixedTrafficSide side = mixedSide();
        mixed = null;
        mixedRound = null;
        side.close();
        return new long[] {side.operations(), side.bytesChecked()};
    }

    private MixedTrafficSide mixedSide()
    {
        final MixedTrafficSide side = mixed;
        if (null == side)
        {
            throw new IllegalStateException("no mixed-traffic side");
        }
        return side;
    }

    /** {@inheritDoc} */
    public synchronized void close()
    {
        dropConnection();
        if (null != listener)
        {
            listener.close();
        }
        device.close();
    }

    private void dropConnection()
    {
        if (null != mixed)
        {
            mixed.close();
            mixed = null;
        }
        if (null != qp)
        {
            qp.close();
            qp = null;
        }
        if (null != recvRegion)
        {
            recvRegion.close();
            recvRegion = null;
        }
        if (null != cq)
        {
            cq.close();
            cq = null;
        }
    }

    private MemoryRegion region(final int regionId)
    {
        final MemoryRegion region = regions.get(regionId);
        if (null == region)
        {
            throw new IllegalArgumentException("no region " + regionId);
        }
        return region;
    }
}
