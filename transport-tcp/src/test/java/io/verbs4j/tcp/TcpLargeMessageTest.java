// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QueuePair;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * 4 MiB WRITEs in both directions at once (a ping-pong of large messages): every frame is larger than the socket
 * buffers, so writes are partial and the receiving side sends ACKs and responses while the sending side is half-way
 * through a frame. With {@code verbs4j.tcp.direct.write=true} the same traffic between two processes breaks the
 * stream (reproducer: {@code JAVA_TOOL_OPTIONS=-Dverbs4j.tcp.direct.write=true ./verbs4j perftest -T tcp-write
 * -s 4194304 --test lat -n 50}); in one JVM it does not show, so this test covers the default path only.
 */
class TcpLargeMessageTest
{
    private static final int SIZE = 4 << 20;
    private static final int ROUNDS = 20;

    @Test
    void shouldCarryFourMebibyteWritesBothWaysWithTheDefaultWritePath()
    {
        pingPong(new DeviceContext(), new DeviceContext());
    }

    private static void pingPong(final DeviceContext clientContext, final DeviceContext serverContext)
    {
        try (TcpPair pair = new TcpPair(config -> { }, clientContext, serverContext))
        {
            final MemoryRegion clientMr = pair.clientPd.allocate(2L * SIZE, Access.ALL);
            final MemoryRegion serverMr = pair.serverPd.allocate(2L * SIZE, Access.ALL);
            final SendRequest toServer = new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(clientMr, 0, SIZE)
                .remote(serverMr.address() + SIZE, serverMr.rkey());
            final SendRequest toClient = new SendRequest(1).opcode(Opcode.RDMA_WRITE).sge(serverMr, 0, SIZE)
                .remote(clientMr.address() + SIZE, clientMr.rkey());
            for (int round = 0; round < ROUNDS; round++)
            {
                clientMr.putLong(0, round);
                serverMr.putLong(0, -round);
                assertEquals(QueuePair.OK, pair.client.postSend(toServer.wrId(round)));
                assertEquals(QueuePair.OK, pair.server.postSend(toClient.wrId(round)));
                final CompletionBatch c = TcpPair.await(pair.clientCq, 1);
                assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(c.status(0)), "client round " + round);
                final CompletionBatch s = TcpPair.await(pair.serverCq, 1);
                assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(s.status(0)), "server round " + round);
                assertEquals(round, serverMr.getLong(SIZE));
                assertEquals(-round, clientMr.getLong(SIZE));
            }
        }
    }
}
