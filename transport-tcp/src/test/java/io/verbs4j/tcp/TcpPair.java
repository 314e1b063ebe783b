// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

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
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;

/**
 * Two tcp devices in one JVM with one connected queue pair each: "client" connects, "server" accepts.
 */
final class TcpPair implements AutoCloseable
{
    final Device clientDevice;
    final Device serverDevice;
    final ProtectionDomain clientPd;
    final ProtectionDomain serverPd;
    final CompletionQueue clientCq;
    final CompletionQueue serverCq;
    final QueuePair client;
    final QueuePair server;
    byte[] serverGot;
    byte[] clientGot;

    TcpPair()
    {
        this(config -> { }, new DeviceContext(), new DeviceContext());
    }

    TcpPair(final Consumer<QueuePairConfig> qpSettings, final DeviceContext clientContext,
        final DeviceContext serverContext)
    {
        clientDevice = Verbs.open("tcp", clientContext);
        serverDevice = Verbs.open("tcp", serverContext);
        clientPd = clientDevice.allocateProtectionDomain();
        serverPd = serverDevice.allocateProtectionDomain();
        clientCq = clientDevice.createCompletionQueue(4096);
        serverCq = serverDevice.createCompletionQueue(4096);
        final QueuePairConfig clientConfig = new QueuePairConfig(clientCq).maxSendSge(4).maxRecvSge(4)
            .maxInlineLength(128).sendDepth(256).recvDepth(256);
        final QueuePairConfig serverConfig = new QueuePairConfig(serverCq).maxSendSge(4).maxRecvSge(4)
            .maxInlineLength(128).sendDepth(256).recvDepth(256);
        qpSettings.accept(clientConfig);
        qpSettings.accept(serverConfig);
        client = clientPd.createQueuePair(clientConfig);
        server = serverPd.createQueuePair(serverConfig);
        client.modify(QpState.INIT);
        server.modify(QpState.INIT);
        try (Listener listener = serverDevice.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final CompletableFuture<Void> accepted = CompletableFuture.runAsync(() ->
            {
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(10));
                serverGot = request.privateData();
                request.accept(server, new byte[]{4, 5, 6});
            });
            clientGot = clientDevice.connectionManager().connect(client, listener.endpoint(), new byte[]{1, 2, 3},
                Duration.ofSeconds(10));
            accepted.get(10, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            close();
            throw new IllegalStateException(ex);
        }
    }

    TcpDevice clientTcp()
    {
        return (TcpDevice)clientDevice;
    }

    TcpDevice serverTcp()
    {
        return (TcpDevice)serverDevice;
    }

    /**
     * Posts {@code messages} RDMA WRITEs of {@code length} bytes back to back from {@code src} to the same offsets of
     * {@code dst} (only the last signaled) and awaits that completion, which must be SUCCESS.
     */
    void writeStream(final MemoryRegion src, final MemoryRegion dst, final int messages, final int length)
    {
        final SendRequest write = new SendRequest(1);
        for (int m = 0; m < messages; m++)
        {
            final long offset = (long)m * length;
            write.clearSges().wrId(m).opcode(Opcode.RDMA_WRITE)
                .flags(m == messages - 1 ? SendRequest.SIGNALED : 0).sge(src, offset, length)
                .remote(dst.address() + offset, dst.rkey());
            if (QueuePair.OK != client.postSend(write))
            {
                throw new IllegalStateException("post of WRITE " + m + " refused");
            }
        }
        final CompletionBatch done = await(clientCq, 1);
        if (1 != done.size() || WcStatus.SUCCESS != done.status(0))
        {
            throw new IllegalStateException("stream ended with " +
                (0 == done.size() ? "no completion" : WcStatus.name(done.status(0))));
        }
    }

    /**
     * Polls until {@code count} completions arrived or 10 s passed.
     */
    static CompletionBatch await(final CompletionQueue cq, final int count)
    {
        final CompletionBatch all = new CompletionBatch(Math.max(1, count));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (all.size() < count && System.nanoTime() < deadline)
        {
            try
            {
                cq.poll(all, count - all.size(), 100, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
        return all;
    }

    public void close()
    {
        clientDevice.close();
        serverDevice.close();
    }
}
