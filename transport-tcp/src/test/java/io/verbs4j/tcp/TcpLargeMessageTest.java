// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.config.CoreConfiguration;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.launch.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * 4 MiB messages in both directions at once: every frame is larger than the socket buffers, so writes are partial
 * and the receiving side sends ACKs and responses while the sending side is half-way through a frame.
 * <p>
 * Between two processes, with direct writes on, several posting threads (one queue pair each) stream 4 MiB WRITEs
 * and SENDs both ways and every byte is checked: a frame a poster's {@code writev} left half-written must be finished
 * before any other writer's frame (the I/O thread's ACKs, the peer's responses) starts. Before {@link TcpOutbound}
 * this broke the stream (the peer saw a corrupt header or payload and closed the connection).
 */
@Timeout(180)
class TcpLargeMessageTest
{
    private static final int SIZE = 4 << 20;
    private static final int ROUNDS = 20;
    private static final int CROSS_PROCESS_QUEUE_PAIRS = 3;
    private static final int CROSS_PROCESS_ROUNDS = 12;
    private static final long PEER_TIMEOUT_MS = 10_000;

    @Test
    void shouldCarryFourMebibyteWritesBothWaysWithTheDefaultWritePath()
    {
        pingPong(new DeviceContext(), new DeviceContext());
    }

    @Test
    void shouldKeepFourMebibyteFramesWholeBetweenProcessesWithSeveralPosters() throws Exception
    {
        crossProcess("true");
    }

    @Test
    void shouldKeepFourMebibyteFramesWholeBetweenProcessesWithTheIoThreadWritingEverything() throws Exception
    {
        crossProcess("false");
    }

    private static void crossProcess(final String directWrite) throws Exception
    {
        // A generous peer timeout: on a loaded machine a silent half second is not what this test looks for (a
        // corrupt stream closes the connection at once, as a protocol error).
        final DeviceContext context = new DeviceContext().property(TcpConfiguration.DIRECT_WRITE_PROP_NAME,
            directWrite).peerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(PEER_TIMEOUT_MS));
        try (ChildJvm child = startChild(directWrite);
            Device device = Verbs.open("tcp", context))
        {
            final String endpoint = child.awaitLine("ENDPOINT ", ChildJvm.CALL_TIMEOUT_MS)
                .substring("ENDPOINT ".length());
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final LargeMessageStream[] streams = new LargeMessageStream[CROSS_PROCESS_QUEUE_PAIRS];
            for (int q = 0; q < CROSS_PROCESS_QUEUE_PAIRS; q++)
            {
                final CompletionQueue cq = device.createCompletionQueue(256);
                final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq));
                final MemoryRegion region = pd.allocate((long)LargeMessageStream.REGION_SLOTS * SIZE, Access.ALL);
                qp.modify(QpState.INIT);
                final byte[] mine = ByteBuffer.allocate(16).putInt(q).putLong(region.address()).putInt(region.rkey())
                    .array();
                LargeMessageStream.postInitialReceives(qp, region, SIZE);
                final ByteBuffer peer = ByteBuffer.wrap(device.connectionManager().connect(qp, endpoint, mine,
                    Duration.ofSeconds(20)));
                streams[q] = new LargeMessageStream(qp, cq, region, SIZE, peer.getLong(), peer.getInt(),
                    TcpLargeMessagePeer.parentSeed(q), TcpLargeMessagePeer.childSeed(q));
            }
            final String[] errors = new String[CROSS_PROCESS_QUEUE_PAIRS];
            final Thread[] threads = new Thread[CROSS_PROCESS_QUEUE_PAIRS];
            for (int q = 0; q < CROSS_PROCESS_QUEUE_PAIRS; q++)
            {
                final int index = q;
                threads[q] = new Thread(() -> errors[index] = streams[index].run(CROSS_PROCESS_ROUNDS),
                    "poster-" + q);
                threads[q].start();
            }
            for (int q = 0; q < CROSS_PROCESS_QUEUE_PAIRS; q++)
            {
                threads[q].join();
            }
            // The class timeout bounds the whole test; the child's stream may take most of it on a loaded machine.
            final String childResult = child.awaitLine("RESULT ", TimeUnit.SECONDS.toMillis(180));
            for (int q = 0; q < CROSS_PROCESS_QUEUE_PAIRS; q++)
            {
                assertEquals(null, errors[q], "parent queue pair " + q + " (child: " + childResult + ")");
            }
            assertEquals("RESULT OK", childResult);
        }
    }

    private static ChildJvm startChild(final String directWrite)
    {
        return ChildJvm.builder("tcp large-message peer", TcpLargeMessagePeer.class)
            .jvmArgs(List.of("-Xmx256m", "-D" + TcpConfiguration.DIRECT_WRITE_PROP_NAME + "=" + directWrite,
                "-D" + CoreConfiguration.PEER_TIMEOUT_PROP_NAME + "=" + PEER_TIMEOUT_MS))
            .args(List.of(String.valueOf(CROSS_PROCESS_QUEUE_PAIRS), String.valueOf(SIZE),
                String.valueOf(CROSS_PROCESS_ROUNDS)))
            .start();
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
