// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.jmh;

import java.nio.ByteBuffer;

import io.verbs4j.Access;
import io.verbs4j.CompletionQueue;
import io.verbs4j.Device;
import io.verbs4j.MemoryRegion;
import io.verbs4j.ProtectionDomain;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.config.DeviceContext;

/**
 * The fixture of the in-JVM verbs benchmarks: two devices of one provider ({@link DevicePair}), one RC queue pair
 * each, connected through the connection manager, with a 4 KiB region on each side and the server's receives posted.
 * The server's region address and rkey come back in the accept's private data, as an application would pass them.
 */
final class ConnectedPair implements AutoCloseable
{
    /** Bytes of each side's region. */
    static final int REGION_BYTES = 4096;

    final DevicePair devices;
    final CompletionQueue clientCq;
    final CompletionQueue serverCq;
    final QueuePair client;
    final QueuePair server;
    final MemoryRegion clientRegion;
    /** The receive the server posts (the whole server region). */
    final RecvRequest recv;
    final long serverAddress;
    final int serverRkey;

    /**
     * @param provider      the provider.
     * @param serverContext the server device's context.
     * @param clientContext the client device's context.
     * @param depth         send depth of both queue pairs, receive depth of the server's.
     * @param receives      receives the server posts before connecting.
     * @throws InterruptedException if interrupted while connecting.
     */
    ConnectedPair(final String provider, final DeviceContext serverContext, final DeviceContext clientContext,
        final int depth, final int receives) throws InterruptedException
    {
        this(provider, serverContext, clientContext, depth, receives, false);
    }

    /**
     * @param provider          the provider.
     * @param serverContext     the server device's context.
     * @param clientContext     the client device's context.
     * @param depth             send depth of both queue pairs, receive depth of the server's.
     * @param receives          receives the server posts before connecting.
     * @param threadSafePosting whether both queue pairs serialize posts with a lock
     *                          ({@link QueuePairConfig#threadSafePosting(boolean)}).
     * @throws InterruptedException if interrupted while connecting.
     */
    ConnectedPair(final String provider, final DeviceContext serverContext, final DeviceContext clientContext,
        final int depth, final int receives, final boolean threadSafePosting) throws InterruptedException
    {
        devices = new DevicePair(provider, serverContext, clientContext, 2 * depth);
        final ProtectionDomain serverPd = devices.server.allocateProtectionDomain();
        serverCq = devices.server.createCompletionQueue(2 * depth);
        final MemoryRegion serverRegion = serverPd.allocate(REGION_BYTES, Access.ALL);
        server = serverPd.createQueuePair(new QueuePairConfig(serverCq)
            .sendDepth(depth).recvDepth(depth).maxInlineLength(maxInline(devices.server))
            .threadSafePosting(threadSafePosting));
        server.modify(QpState.INIT);
        recv = new RecvRequest(1).sge(serverRegion, 0, REGION_BYTES);
        for (int i = 0; i < receives; i++)
        {
            check(server.postRecv(recv));
        }
        clientCq = devices.clientCq;
        clientRegion = devices.clientPd.allocate(REGION_BYTES, Access.ALL);
        client = devices.clientPd.createQueuePair(new QueuePairConfig(clientCq)
            .sendDepth(depth).recvDepth(1).maxInlineLength(maxInline(devices.client))
            .threadSafePosting(threadSafePosting));
        final ByteBuffer peer = ByteBuffer.wrap(devices.connectOnce(client, request -> request.accept(server,
            ByteBuffer.allocate(12).putLong(serverRegion.address()).putInt(serverRegion.rkey()).array())));
        devices.stopListening();
        serverAddress = peer.getLong();
        serverRkey = peer.getInt();
    }

    private static int maxInline(final Device device)
    {
        return Math.min(256, device.capabilities().maxInlineLength());
    }

    /**
     * @param rc a post's return code.
     * @throws IllegalStateException unless it is {@link QueuePair#OK}.
     */
    static void check(final int rc)
    {
        if (QueuePair.OK != rc)
        {
            throw new IllegalStateException("post refused: " + QueuePair.describe(rc));
        }
    }

    @Override
    public void close()
    {
        devices.close();
    }
}
