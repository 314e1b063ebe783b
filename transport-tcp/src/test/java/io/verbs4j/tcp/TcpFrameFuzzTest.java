// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.ConnectionException;
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
import io.verbs4j.tcp.protocol.FrameFlyweight;
import io.verbs4j.tcp.protocol.FrameType;
import io.verbs4j.tcp.protocol.HandshakeFlyweight;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzz targets for the bytes a tcp device reads from the network: the frame decoder and the handshake, both on the
 * listener side (a raw socket plays the connector) and on the connector side (a raw server socket plays the
 * listener). Everything runs against one real device over loopback, so the real pipeline, event loop and verbs
 * state machine are exercised.
 * <p>
 * Per input the targets assert: the device closes the connection (no hang once the peer sends EOF), every work
 * request the device had posted on that connection completes (no lost completion), no exception other than a
 * socket error reached {@code exceptionCaught} or Netty's logs, the guard bytes around a REMOTE-writable registered
 * region and the whole of a read-only registered region are untouched, and every {@value #HEALTH_CHECK_EVERY}
 * inputs (and at the end) a separate healthy connection of the same device still completes an RDMA WRITE.
 * <p>
 * Without {@code JAZZER_FUZZ} these run the inputs in {@code TcpFrameFuzzTestInputs/<method>/} as regression tests;
 * see docs/FUZZING.md for a campaign.
 */
class TcpFrameFuzzTest
{
    private static final int GUARD = 256;
    private static final int REGION = 4096;
    private static final byte GUARD_BYTE = (byte)0xA5;
    private static final byte RO_BYTE = (byte)0x3C;
    private static final int HEALTH_CHECK_EVERY = 64;
    private static final long WAIT_MS = 10_000;

    private static Fixture fixture;

    @AfterAll
    static void closeFixture()
    {
        if (null != fixture)
        {
            try
            {
                fixture.checkHealthy();
            }
            finally
            {
                fixture.close();
                fixture = null;
            }
        }
    }

    /**
     * Bytes after a valid handshake: a sequence of mostly well-formed frames (types, lengths, sequences, rkeys and
     * addresses near the registered regions, chosen by the fuzzer) mixed with raw bytes, while the device has
     * receives, a SEND, a READ and an atomic outstanding on the connection.
     */
    @FuzzTest
    void fuzzEstablishedFrames(final FuzzedDataProvider data) throws Exception
    {
        try (SilentCloseable ignored = allowLoopback())
        {
            fuzzEstablishedFramesBody(data);
        }
    }

    private static void fuzzEstablishedFramesBody(final FuzzedDataProvider data) throws Exception
    {
        final Fixture f = fixture();
        final QueuePair qp = f.newQp();
        final long peerInitial = data.consumeBoolean() ? 0 : data.consumeLong();
        int posted = 0;
        try (Socket socket = f.connectRaw())
        {
            final OutputStream out = socket.getOutputStream();
            out.write(handshake(FrameFlyweight.CURRENT_VERSION, FrameType.CONNECT_REQUEST, 0, HandshakeFlyweight.MAGIC,
                peerInitial));
            out.flush();
            final ConnectionRequest request = f.listener.accept(Duration.ofSeconds(5));
            assertNotNull(request, "no connection request for a valid handshake");
            request.accept(qp, new byte[0]);
            final byte[] answer = socket.getInputStream().readNBytes(HandshakeFlyweight.HEADER_LENGTH);
            assertEquals(HandshakeFlyweight.HEADER_LENGTH, answer.length);
            final ByteBuffer answerView = ByteBuffer.wrap(answer).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(FrameType.CONNECT_ACCEPT, answer[HandshakeFlyweight.TYPE_OFFSET]);
            final long serverInitial = answerView.getLong(HandshakeFlyweight.INITIAL_SEQUENCE_OFFSET);
            final CompletableFuture<Void> drained = drain(socket);
            posted = postServerWork(f, qp);
            final byte[] frames = frames(data, f, peerInitial, serverInitial);
            sendAndHalfClose(socket, frames);
            awaitClosed(drained, "established connection");
        }
        finally
        {
            f.finish(qp, posted);
        }
        f.afterInput();
    }

    /**
     * Arbitrary bytes from a raw socket in place of the handshake. A request that the bytes happened to form is
     * accepted after the socket closed: that must fail with a {@link ConnectionException} or leave a queue pair that
     * goes to ERROR.
     */
    @FuzzTest
    void fuzzHandshakeBytes(final byte[] bytes) throws Exception
    {
        try (SilentCloseable ignored = allowLoopback())
        {
            fuzzHandshakeBytesBody(bytes);
        }
    }

    private static void fuzzHandshakeBytesBody(final byte[] bytes) throws Exception
    {
        final Fixture f = fixture();
        try (Socket socket = f.connectRaw())
        {
            final CompletableFuture<Void> drained = drain(socket);
            sendAndHalfClose(socket, bytes);
            awaitClosed(drained, "handshake");
        }
        ConnectionRequest request;
        while (null != (request = f.listener.accept(Duration.ZERO)))
        {
            final QueuePair qp = f.newQp();
            try
            {
                request.accept(qp, new byte[]{9});
            }
            catch (final ConnectionException expected)
            {
                // the connector has gone: the documented failure
            }
            finally
            {
                f.finish(qp, 0);
            }
        }
        f.afterInput();
    }

    /**
     * The connector's side: a fake listener reads the CONNECT_REQUEST and answers with fuzzed bytes (mostly a
     * handshake header with fuzzed fields, then arbitrary bytes), then closes. {@code connect} must return or throw a
     * {@link ConnectionException} within its timeout, and a queue pair it connected must go to ERROR.
     */
    @FuzzTest
    void fuzzConnectorHandshake(final FuzzedDataProvider data) throws Exception
    {
        try (SilentCloseable ignored = allowLoopback())
        {
            fuzzConnectorHandshakeBody(data);
        }
    }

    private static void fuzzConnectorHandshakeBody(final FuzzedDataProvider data) throws Exception
    {
        final Fixture f = fixture();
        final QueuePair qp = f.newQp();
        try
        {
            final Future<byte[]> connecting = f.executor.submit(() -> f.device.connectionManager().connect(
                qp, "tcp://127.0.0.1:" + f.fakeListener.getLocalPort(), new byte[]{1, 2, 3}, Duration.ofSeconds(3)));
            try (Socket socket = f.fakeListener.accept())
            {
                socket.setSoTimeout((int)WAIT_MS);
                final byte[] request = socket.getInputStream().readNBytes(HandshakeFlyweight.HEADER_LENGTH + 3);
                assertEquals(HandshakeFlyweight.HEADER_LENGTH + 3, request.length);
                final CompletableFuture<Void> drained = drain(socket);
                sendAndHalfClose(socket, connectorAnswer(data));
                awaitClosed(drained, "connector");
            }
            try
            {
                connecting.get(WAIT_MS, TimeUnit.MILLISECONDS);
            }
            catch (final ExecutionException ex)
            {
                if (!(ex.getCause() instanceof ConnectionException))
                {
                    throw new AssertionError("connect failed with " + ex.getCause() + " (a ConnectionException " +
                        "was promised)", ex.getCause());
                }
            }
            catch (final TimeoutException ex)
            {
                fail("connect() did not return within " + WAIT_MS + " ms although its timeout is 3 s");
            }
        }
        finally
        {
            f.finish(qp, 0);
        }
        f.afterInput();
    }

    /**
     * Jazzer's SSRF detector flags socket connections made while fuzzing; these targets only talk to loopback.
     */
    static SilentCloseable allowLoopback()
    {
        return BugDetectors.allowNetworkConnections((host, port) -> isLoopback(host));
    }

    private static boolean isLoopback(final String host)
    {
        try
        {
            return InetAddress.getByName(host).isLoopbackAddress();
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    // ---------------------------------------------------------------- input shaping

    private static byte[] frames(
        final FuzzedDataProvider data, final Fixture f, final long peerInitial, final long serverInitial)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        long requests = 0;
        for (int frame = 0; frame < 24 && data.remainingBytes() > 0; frame++)
        {
            final int kind = data.consumeInt(0, FrameType.MAX_TYPE);
            if (0 == kind)
            {
                out.writeBytes(data.consumeBytes(data.consumeInt(1, 64)));
                continue;
            }
            final byte type = (byte)kind;
            final int version = 0 == data.consumeInt(0, 31) ? data.consumeByte() : FrameFlyweight.CURRENT_VERSION;
            final int flags = 0 == data.consumeInt(0, 15) ? data.consumeShort() & 0xFFFF : data.consumeInt(0, 7);
            final boolean request = type >= FrameType.SEND && type <= FrameType.ATOMIC_REQUEST &&
                type != FrameType.READ_RESPONSE;
            final long sequence;
            if (request)
            {
                sequence = peerInitial + requests++ + (0 == data.consumeInt(0, 7) ? data.consumeInt(-2, 2) : 0);
            }
            else
            {
                sequence = serverInitial + data.consumeInt(-1, 3);
            }
            final long address;
            switch (data.consumeInt(0, 3))
            {
                case 0:
                    address = f.ro.address() + data.consumeLong(-64, REGION + 64);
                    break;
                case 1:
                    address = data.consumeLong();
                    break;
                default:
                    address = f.rw.address() + data.consumeLong(-64, REGION + 64);
                    break;
            }
            final int rkey;
            switch (data.consumeInt(0, 3))
            {
                case 0:
                    rkey = f.ro.rkey();
                    break;
                case 1:
                    rkey = data.consumeInt();
                    break;
                default:
                    rkey = f.rw.rkey();
                    break;
            }
            final int argument = FrameType.READ_REQUEST == type && data.consumeBoolean() ?
                data.consumeInt(-8, REGION + 64) : data.consumeInt();
            final int naturalLength;
            switch (type)
            {
                case FrameType.SEND:
                case FrameType.WRITE:
                case FrameType.WRITE_WITH_IMM:
                case FrameType.READ_RESPONSE:
                    naturalLength = data.consumeInt(0, 2 * REGION);
                    break;
                case FrameType.ATOMIC_REQUEST:
                    naturalLength = FrameFlyweight.ATOMIC_OPERANDS_LENGTH;
                    break;
                case FrameType.CONNECT_REQUEST:
                case FrameType.CONNECT_ACCEPT:
                case FrameType.CONNECT_REJECT:
                    naturalLength = data.consumeInt(0, 64);
                    break;
                default:
                    naturalLength = 0;
                    break;
            }
            final int declared = 0 == data.consumeInt(0, 15) ? data.consumeInt() : naturalLength;
            final byte[] payload = data.consumeBytes(Math.max(0, Math.min(declared, 3 * REGION)));
            final ByteBuffer header = ByteBuffer.allocate(FrameFlyweight.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            header.put(FrameFlyweight.VERSION_OFFSET, (byte)version)
                .put(FrameFlyweight.TYPE_OFFSET, type)
                .putShort(FrameFlyweight.FLAGS_OFFSET, (short)flags)
                .putInt(FrameFlyweight.PAYLOAD_LENGTH_OFFSET, declared)
                .putLong(FrameFlyweight.SEQUENCE_OFFSET, sequence)
                .putLong(FrameFlyweight.ADDRESS_OFFSET, address)
                .putInt(FrameFlyweight.RKEY_OFFSET, rkey)
                .putInt(FrameFlyweight.ARGUMENT_OFFSET, argument);
            out.writeBytes(header.array());
            out.writeBytes(payload);
        }
        return out.toByteArray();
    }

    private static byte[] connectorAnswer(final FuzzedDataProvider data)
    {
        if (0 == data.consumeInt(0, 3))
        {
            return data.consumeRemainingAsBytes();
        }
        final byte type = 0 == data.consumeInt(0, 7) ? data.consumeByte() :
            data.consumeBoolean() ? FrameType.CONNECT_ACCEPT : FrameType.CONNECT_REJECT;
        final int version = 0 == data.consumeInt(0, 15) ? data.consumeByte() : FrameFlyweight.CURRENT_VERSION;
        final int magic = 0 == data.consumeInt(0, 15) ? data.consumeInt() : HandshakeFlyweight.MAGIC;
        final byte[] payload = data.consumeBytes(data.consumeInt(0, 64));
        final int declared = 0 == data.consumeInt(0, 7) ? data.consumeInt() : payload.length;
        final ByteBuffer header = ByteBuffer.allocate(HandshakeFlyweight.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        header.put(HandshakeFlyweight.VERSION_OFFSET, (byte)version)
            .put(HandshakeFlyweight.TYPE_OFFSET, type)
            .putShort(HandshakeFlyweight.FLAGS_OFFSET, (short)0)
            .putInt(HandshakeFlyweight.PAYLOAD_LENGTH_OFFSET, declared)
            .putInt(HandshakeFlyweight.MAGIC_OFFSET, magic)
            .putInt(HandshakeFlyweight.QP_NUMBER_OFFSET, data.consumeInt())
            .putLong(HandshakeFlyweight.INITIAL_SEQUENCE_OFFSET, data.consumeBoolean() ? 0 : data.consumeLong())
            .putInt(HandshakeFlyweight.HEARTBEAT_INTERVAL_OFFSET, data.consumeInt());
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(header.array());
        out.writeBytes(payload);
        out.writeBytes(data.consumeRemainingAsBytes());
        return out.toByteArray();
    }

    static byte[] handshake(final int version, final byte type, final int length, final int magic,
        final long initialSequence)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(HandshakeFlyweight.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        buffer.put(HandshakeFlyweight.VERSION_OFFSET, (byte)version)
            .put(HandshakeFlyweight.TYPE_OFFSET, type)
            .putInt(HandshakeFlyweight.PAYLOAD_LENGTH_OFFSET, length)
            .putInt(HandshakeFlyweight.MAGIC_OFFSET, magic)
            .putInt(HandshakeFlyweight.QP_NUMBER_OFFSET, 1)
            .putLong(HandshakeFlyweight.INITIAL_SEQUENCE_OFFSET, initialSequence)
            .putInt(HandshakeFlyweight.HEARTBEAT_INTERVAL_OFFSET, 100_000);
        return buffer.array();
    }

    /**
     * The device's own requests on the fuzzed connection, so that fuzzed responses (READ_RESPONSE, ATOMIC_RESPONSE,
     * ACK, NAK, RNR_NAK) have something to answer and fuzzed SENDs find receives. All signaled.
     *
     * @return how many work requests were posted.
     */
    private static int postServerWork(final Fixture f, final QueuePair qp)
    {
        int posted = 0;
        posted += ok(qp.postRecv(new RecvRequest(1).wrId(1).sge(f.rw, 1024, 1024)));
        posted += ok(qp.postRecv(new RecvRequest(1).wrId(2).sge(f.rw, 2048, 512)));
        posted += ok(qp.postSend(new SendRequest(1).wrId(3).opcode(Opcode.SEND).sge(f.rw, 0, 64)));
        posted += ok(qp.postSend(new SendRequest(1).wrId(4).opcode(Opcode.RDMA_READ).sge(f.rw, 3072, 256)
            .remote(0x10000, 77)));
        posted += ok(qp.postSend(new SendRequest(1).wrId(5).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(f.rw, 3584, 8)
            .remote(0x20000, 78).atomic(1, 0)));
        return posted;
    }

    private static int ok(final int status)
    {
        // The connection may already be gone (the queue pair in ERROR): a post then still succeeds and flushes.
        return QueuePair.OK == status ? 1 : 0;
    }

    // ---------------------------------------------------------------- socket helpers

    static CompletableFuture<Void> drain(final Socket socket)
    {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Thread thread = new Thread(() ->
        {
            final byte[] sink = new byte[16384];
            try
            {
                final InputStream in = socket.getInputStream();
                while (in.read(sink) >= 0)
                {
                    // discard what the device sends
                }
                done.complete(null);
            }
            catch (final SocketTimeoutException ex)
            {
                done.completeExceptionally(ex);
            }
            catch (final IOException ex)
            {
                done.complete(null); // reset by the device: closed as well
            }
        }, "fuzz-drain");
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    static void sendAndHalfClose(final Socket socket, final byte[] bytes)
    {
        try
        {
            final OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
            socket.shutdownOutput();
        }
        catch (final IOException closedByTheDevice)
        {
            // The device closed the connection part way: a protocol error, as it should be.
        }
    }

    static void awaitClosed(final CompletableFuture<Void> drained, final String what) throws Exception
    {
        try
        {
            drained.get(WAIT_MS + 1000, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException | ExecutionException ex)
        {
            fail("hang: the device did not close the " + what + " connection within " + WAIT_MS +
                " ms of the peer's EOF");
        }
    }

    private static synchronized Fixture fixture() throws IOException
    {
        if (null == fixture)
        {
            fixture = new Fixture();
        }
        return fixture;
    }

    // ---------------------------------------------------------------- the device under test

    /** One device with a listener, two guarded regions and one healthy connection, shared by all inputs. */
    private static final class Fixture implements AutoCloseable
    {
        final Device device;
        final Listener listener;
        final int port;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final ByteBuffer rwBacking = ByteBuffer.allocateDirect(GUARD + REGION + GUARD);
        final ByteBuffer roBacking = ByteBuffer.allocateDirect(GUARD + REGION + GUARD);
        final MemoryRegion rw;
        final MemoryRegion ro;
        final ServerSocket fakeListener;
        final ExecutorService executor = Executors.newSingleThreadExecutor(r ->
        {
            final Thread thread = new Thread(r, "fuzz-connector");
            thread.setDaemon(true);
            return thread;
        });
        final CompletionBatch batch = new CompletionBatch(64);
        final Device healthyDevice;
        final QueuePair healthyClient;
        final QueuePair healthyServer;
        final CompletionQueue healthyCq;
        final MemoryRegion healthySrc;
        final MemoryRegion healthyDst;
        long inputs;
        long healthyWrites;

        Fixture() throws IOException
        {
            FuzzLogWatch.instance().drain();
            // A generous peer timeout: fuzzing pauses the JVM (instrumentation, GC) and the default 500 ms would
            // then fail the healthy connection for reasons that have nothing to do with the inputs.
            final DeviceContext context = new DeviceContext()
                .peerTimeoutNs(TimeUnit.SECONDS.toNanos(30))
                .property(TcpConfiguration.HANDSHAKE_TIMEOUT_PROP_NAME, "3000");
            device = Verbs.open("tcp", context);
            healthyDevice = Verbs.open("tcp", context);
            listener = device.connectionManager().listen("tcp://127.0.0.1:0");
            port = TcpEndpoint.parse(listener.endpoint()).port();
            pd = device.allocateProtectionDomain();
            cq = device.createCompletionQueue(1024);
            for (int i = 0; i < rwBacking.capacity(); i++)
            {
                rwBacking.put(i, GUARD_BYTE);
                roBacking.put(i, GUARD_BYTE);
            }
            for (int i = GUARD; i < GUARD + REGION; i++)
            {
                roBacking.put(i, RO_BYTE);
            }
            rw = pd.register(rwBacking.slice(GUARD, REGION), Access.ALL);
            ro = pd.register(roBacking.slice(GUARD, REGION), Access.LOCAL_WRITE | Access.REMOTE_READ);
            fakeListener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            fakeListener.setSoTimeout((int)WAIT_MS);

            healthyServer = newQp();
            final ProtectionDomain healthyPd = healthyDevice.allocateProtectionDomain();
            healthyCq = healthyDevice.createCompletionQueue(256);
            healthyClient = healthyPd.createQueuePair(new QueuePairConfig(healthyCq));
            healthyClient.modify(QpState.INIT);
            healthySrc = healthyPd.allocate(64, Access.LOCAL_WRITE);
            healthyDst = pd.allocate(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final Future<byte[]> connecting = executor.submit(() -> healthyDevice.connectionManager().connect(
                healthyClient, listener.endpoint(), new byte[0], Duration.ofSeconds(10)));
            try
            {
                final ConnectionRequest request = listener.accept(Duration.ofSeconds(20));
                if (null == request)
                {
                    connecting.get(1, TimeUnit.SECONDS); // reports why the connector failed
                    throw new IllegalStateException("no request from the healthy connector within 20 s");
                }
                request.accept(healthyServer, new byte[0]);
                connecting.get(20, TimeUnit.SECONDS);
            }
            catch (final Exception ex)
            {
                close();
                throw new IllegalStateException("healthy connection failed", ex);
            }
            checkHealthy();
        }

        Socket connectRaw() throws IOException
        {
            final Socket socket = new Socket();
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            socket.setSoTimeout((int)WAIT_MS);
            socket.setTcpNoDelay(true);
            return socket;
        }

        QueuePair newQp()
        {
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(16).recvDepth(16));
            qp.modify(QpState.INIT);
            return qp;
        }

        /**
         * After an input: the connection is gone, so the queue pair must reach ERROR and every posted work request
         * must have completed; then it is closed.
         */
        void finish(final QueuePair qp, final int posted) throws InterruptedException
        {
            try
            {
                final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                int completed = 0;
                while (System.nanoTime() < deadline)
                {
                    batch.clear();
                    completed += cq.poll(batch, batch.capacity(), 10, TimeUnit.MILLISECONDS);
                    final QpState state = qp.state();
                    if (completed >= posted && (QpState.ERROR == state || QpState.INIT == state))
                    {
                        break;
                    }
                }
                final QpState state = qp.state();
                assertTrue(QpState.ERROR == state || QpState.INIT == state,
                    "queue pair in " + state + " after its connection closed");
                assertEquals(posted, completed, "completions for the " + posted + " posted work requests");
            }
            finally
            {
                qp.close();
            }
        }

        void afterInput() throws InterruptedException
        {
            checkMemory();
            final List<String> problems = FuzzLogWatch.instance().drain();
            assertTrue(problems.isEmpty(), () -> "exceptions escaped: " + problems);
            if (++inputs % HEALTH_CHECK_EVERY == 0)
            {
                checkHealthy();
            }
        }

        void checkMemory()
        {
            for (int i = 0; i < rwBacking.capacity(); i++)
            {
                if ((i < GUARD || i >= GUARD + REGION) && GUARD_BYTE != rwBacking.get(i))
                {
                    fail("write outside the registered region: guard byte " + (i - GUARD) + " changed");
                }
                final byte expected = i < GUARD || i >= GUARD + REGION ? GUARD_BYTE : RO_BYTE;
                if (expected != roBacking.get(i))
                {
                    fail("write into a region without REMOTE_WRITE, or its guard: byte " + (i - GUARD) + " changed");
                }
            }
        }

        void checkHealthy()
        {
            final long value = ++healthyWrites;
            healthySrc.putLong(0, value);
            assertEquals(QueuePair.OK, healthyClient.postSend(new SendRequest(1).wrId(value).opcode(Opcode.RDMA_WRITE)
                .sge(healthySrc, 0, 8).remote(healthyDst.address(), healthyDst.rkey())));
            final CompletionBatch done = TcpPair.await(healthyCq, 1);
            assertEquals(1, done.size(), "the healthy connection stopped completing");
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(done.status(0)), "healthy connection");
            assertEquals(value, healthyDst.getLong(0));
            assertEquals(QpState.RTS, healthyServer.state());
        }

        @Override
        public void close()
        {
            executor.shutdownNow();
            try
            {
                fakeListener.close();
            }
            catch (final IOException ignore)
            {
                // closing
            }
            healthyDevice.close();
            device.close();
        }
    }
}
