// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
import io.verbs4j.SendRequest;
import io.verbs4j.Verbs;
import io.verbs4j.WcStatus;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Raw sockets that send garbage, a wrong version, impossible lengths, or go silent: each is disconnected, and a
 * healthy connection of the same device carries on.
 */
@Timeout(30)
class TcpProtocolErrorTest
{
    @Test
    void shouldDisconnectBadPeersAndKeepServingGoodOnes() throws Exception
    {
        try (TcpPair pair = new TcpPair();
            Listener listener = pair.serverDevice.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final TcpEndpoint endpoint = TcpEndpoint.parse(listener.endpoint());
            final byte[] garbage = new byte[64];
            for (int i = 0; i < garbage.length; i++)
            {
                garbage[i] = (byte)(i * 37 + 11);
            }
            assertClosedAfter(endpoint, garbage);
            assertClosedAfter(endpoint, handshake(9, FrameType.CONNECT_REQUEST, 0, HandshakeFlyweight.MAGIC));
            assertClosedAfter(endpoint, handshake(FrameFlyweight.CURRENT_VERSION, FrameType.CONNECT_REQUEST, -5,
                HandshakeFlyweight.MAGIC));
            assertClosedAfter(endpoint, handshake(FrameFlyweight.CURRENT_VERSION, FrameType.CONNECT_REQUEST,
                1 << 30, HandshakeFlyweight.MAGIC));
            assertClosedAfter(endpoint, handshake(FrameFlyweight.CURRENT_VERSION, FrameType.WRITE, 0,
                HandshakeFlyweight.MAGIC));
            assertClosedAfter(endpoint, handshake(FrameFlyweight.CURRENT_VERSION, FrameType.CONNECT_REQUEST, 0,
                0x12345678));
            assertEquals(6, pair.serverTcp().counter(TcpCounter.PROTOCOL_ERRORS));

            // The established connection is unaffected.
            final MemoryRegion src = pair.clientPd.allocate(4096, Access.LOCAL_WRITE);
            final MemoryRegion dst = pair.serverPd.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            src.putLong(0, 7);
            assertEquals(QueuePair.OK, pair.client.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE)
                .sge(src, 0, 8).remote(dst.address(), dst.rkey())));
            final CompletionBatch done = TcpPair.await(pair.clientCq, 1);
            assertEquals(WcStatus.SUCCESS, done.status(0));
            assertEquals(7, dst.getLong(0));
        }
    }

    @Test
    void shouldDisconnectAPeerThatBreaksTheProtocolAfterTheHandshake() throws Exception
    {
        try (Device device = Verbs.open("tcp");
            Listener listener = device.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(256);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq));
            final TcpEndpoint endpoint = TcpEndpoint.parse(listener.endpoint());
            try (Socket socket = new Socket("127.0.0.1", endpoint.port()))
            {
                socket.setSoTimeout(5000);
                socket.getOutputStream().write(handshake(FrameFlyweight.CURRENT_VERSION, FrameType.CONNECT_REQUEST, 0,
                    HandshakeFlyweight.MAGIC));
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(5));
                request.accept(qp, new byte[0]);
                readFully(socket.getInputStream(), HandshakeFlyweight.HEADER_LENGTH);
                // A request with a sequence the target does not expect.
                final ByteBuf frame = Unpooled.buffer(32).writerIndex(32);
                new FrameFlyweight().wrap(frame, 0).encode(FrameType.WRITE, 0, 0, 12345, 0, 0, 0);
                socket.getOutputStream().write(frame.array());
                assertEquals(-1, drainUntilClosed(socket.getInputStream()));
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (QpState.ERROR != qp.state() && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            assertEquals(QpState.ERROR, qp.state());
            assertEquals(1, ((TcpDevice)device).counter(TcpCounter.PROTOCOL_ERRORS));
        }
    }

    @Test
    void shouldDetectAHalfOpenPeerWithinThePeerTimeout() throws Exception
    {
        final DeviceContext context = new DeviceContext().peerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300));
        try (Device device = Verbs.open("tcp", context);
            Listener listener = device.connectionManager().listen("tcp://127.0.0.1:0"))
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(256);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq));
            final MemoryRegion src = pd.allocate(4096, Access.LOCAL_WRITE);
            final TcpEndpoint endpoint = TcpEndpoint.parse(listener.endpoint());
            try (Socket socket = new Socket("127.0.0.1", endpoint.port()))
            {
                socket.getOutputStream().write(handshake(FrameFlyweight.CURRENT_VERSION, FrameType.CONNECT_REQUEST, 0,
                    HandshakeFlyweight.MAGIC));
                final CompletableFuture<Void> accepted = CompletableFuture.runAsync(() ->
                    listener.accept(Duration.ofSeconds(5)).accept(qp, new byte[0]));
                accepted.get(5, TimeUnit.SECONDS);
                // The "peer" never reads or answers again: the WRITE is never acknowledged, no heartbeat comes.
                final long start = System.nanoTime();
                assertEquals(QueuePair.OK, qp.postSend(new SendRequest(1).wrId(1).opcode(Opcode.RDMA_WRITE)
                    .sge(src, 0, 8).remote(0, 0)));
                final CompletionBatch done = TcpPair.await(cq, 1);
                final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertEquals(WcStatus.name(WcStatus.RETRY_EXC_ERR), WcStatus.name(done.status(0)));
                assertTrue(elapsedMs < 5_000, "detected after " + elapsedMs + " ms");
                assertEquals(QpState.ERROR, qp.state());
                assertEquals(1, ((TcpDevice)device).counter(TcpCounter.PEER_TIMEOUTS));
            }
        }
    }

    private static byte[] handshake(final int version, final byte type, final int length, final int magic)
    {
        final ByteBuf buffer = Unpooled.buffer(32).writerIndex(32);
        new HandshakeFlyweight().wrap(buffer, 0).encode(type, length, 1, 0, 100_000);
        buffer.setByte(HandshakeFlyweight.VERSION_OFFSET, version);
        buffer.setIntLE(HandshakeFlyweight.MAGIC_OFFSET, magic);
        return buffer.array();
    }

    private static void assertClosedAfter(final TcpEndpoint endpoint, final byte[] bytes) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", endpoint.port()))
        {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(bytes);
            assertEquals(-1, drainUntilClosed(socket.getInputStream()), "the server must close the connection");
        }
    }

    private static int drainUntilClosed(final InputStream in) throws IOException
    {
        try
        {
            while (true)
            {
                final int b = in.read();
                if (b < 0)
                {
                    return -1;
                }
            }
        }
        catch (final java.net.SocketException reset)
        {
            return -1;
        }
    }

    private static void readFully(final InputStream in, final int length) throws IOException
    {
        final byte[] bytes = in.readNBytes(length);
        assertEquals(length, bytes.length);
    }
}
