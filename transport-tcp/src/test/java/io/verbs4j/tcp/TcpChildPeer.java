// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.nio.ByteBuffer;
import java.time.Duration;

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

/**
 * A passive peer in its own JVM for {@link TcpCrossProcessTest}: it listens, prints its endpoint, accepts one
 * connection, answers with its region's address and rkey, posts receives into the same region and then does
 * nothing: every WRITE, READ and atomic is served by its I/O thread alone.
 */
public final class TcpChildPeer
{
    /** Offset in the region where receives land. */
    static final int RECV_OFFSET = 1 << 16;

    private TcpChildPeer()
    {
    }

    /**
     * @param args unused.
     * @throws Exception on failure.
     */
    public static void main(final String[] args) throws Exception
    {
        try (Device device = Verbs.open("tcp");
            Listener listener = device.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(256);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq));
            final MemoryRegion region = pd.allocate(1 << 20, Access.ALL);
            qp.modify(QpState.INIT);
            for (int i = 0; i < 4; i++)
            {
                qp.postRecv(new RecvRequest(1).wrId(i).sge(region, RECV_OFFSET + i * 4096L, 4096));
            }
            System.out.println("ENDPOINT " + listener.endpoint());
            System.out.flush();
            final ConnectionRequest request = listener.accept(Duration.ofSeconds(30));
            final ByteBuffer info = ByteBuffer.allocate(12).putLong(region.address()).putInt(region.rkey());
            request.accept(qp, info.array());
            System.out.println("CONNECTED");
            System.out.flush();
            while (QpState.ERROR != qp.state())
            {
                Thread.sleep(20);
            }
        }
    }
}
