// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
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
import io.verbs4j.shm.protocol.ConnectRequestDescriptor;
import io.verbs4j.shm.protocol.ConnectionSegmentDescriptor;
import io.verbs4j.shm.protocol.DeviceSegmentDescriptor;
import io.verbs4j.shm.protocol.FrameDescriptor;
import io.verbs4j.shm.protocol.ListenerSegmentDescriptor;
import io.verbs4j.shm.protocol.RegionEntryDescriptor;
import io.verbs4j.shm.protocol.SegmentHeader;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzz targets for what an shm device reads from a peer: the records in the peer's data ring, the peer's control
 * block (acks, RNR NAK, error, closed), the peer's shared region table, and connection requests in a listener's
 * ring. The "peer" is a real client device of the same JVM whose progress is never driven: the test writes its
 * structures with fuzzed contents, the way a buggy or hostile process could.
 * <p>
 * Per input the targets assert: the server's progress (driven by polling its CQ, on a worker thread with a deadline)
 * never throws and never hangs; the queue pair ends in ERROR once the peer closes and every posted work request
 * completes exactly once; the guard bytes around the receive buffers and a region without remote access are
 * untouched; nothing is logged with an exception; and every {@value #HEALTH_CHECK_EVERY} inputs a healthy connection
 * of the same device still works.
 */
class ShmRecordFuzzTest
{
    private static final int PAGE = 4096;
    private static final byte GUARD_BYTE = (byte)0xA5;
    private static final byte RO_BYTE = (byte)0x3C;
    private static final int HEALTH_CHECK_EVERY = 64;
    private static final long WAIT_MS = 5_000;

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
     * Fuzzed data-ring records (well-formed or not, with inline payloads and rendezvous sources pointing at the
     * peer's regions), raw corruption of the ring bytes, the peer's control block and region table entries, while
     * the server has receives, SENDs, a READ, a WRITE and an atomic outstanding towards that peer.
     */
    @FuzzTest
    void fuzzPeerRecords(final FuzzedDataProvider data) throws Exception
    {
        final Fixture f = fixture();
        final QueuePair server = f.serverPd.createQueuePair(f.qpConfig(f.serverCq));
        final QueuePair client = f.clientPd.createQueuePair(f.qpConfig(f.clientCq));
        server.modify(QpState.INIT);
        client.modify(QpState.INIT);
        ShmTestSupport.connect(f.serverDevice, server, client, "fz" + f.inputs, new byte[0], new byte[0]);
        final ShmConnection peerSide = ((ShmQueuePair)client).connection();
        final byte[] tableBefore = f.clientTable();
        int posted = 0;
        boolean clientClosed = false;
        try
        {
            fuzzTable(data, f);
            posted += postServerWork(f, server);
            fuzzRing(data, f, peerSide);
            fuzzControl(data, peerSide);
            f.progress(() -> f.drive(64));
            client.close();
            clientClosed = true;
            final int expected = posted;
            f.progress(() -> f.awaitDone(server, expected));
        }
        finally
        {
            f.restoreClientTable(tableBefore);
            if (!clientClosed)
            {
                client.close();
            }
            server.close();
        }
        f.afterInput();
    }

    /**
     * Fuzzed connection requests in a listener's ring, written the way a connector does (through the mapped
     * listener file). Accepting or rejecting what comes out must fail with a {@link ConnectionException} or connect a
     * queue pair that then behaves; a malformed request is dropped.
     */
    @FuzzTest
    void fuzzListenerRequests(final FuzzedDataProvider data) throws Exception
    {
        final Fixture f = fixture();
        final String name = "fzl" + f.inputs;
        try (Listener listener = f.serverDevice.connectionManager().listen("shm://" + name))
        {
            final Path file = ((ShmDevice)f.serverDevice).files().listener(name);
            final RegionMemory memory = MappedMemory.open(file, ListenerSegmentDescriptor.RING_OFFSET);
            final UnsafeBuffer header = new UnsafeBuffer(memory.addressOf(0), ListenerSegmentDescriptor.RING_OFFSET);
            final int capacity = header.getInt(ListenerSegmentDescriptor.RING_CAPACITY_OFFSET);
            MappedMemory.unmap(memory);
            final int length = ListenerSegmentDescriptor.length(capacity);
            final RegionMemory mapped = MappedMemory.open(file, length);
            try
            {
                final ManyToOneRingBuffer ring = new ManyToOneRingBuffer(new UnsafeBuffer(
                    mapped.addressOf(ListenerSegmentDescriptor.RING_OFFSET),
                    capacity + RingBufferDescriptor.TRAILER_LENGTH));
                for (int i = 0; i < 4 && data.remainingBytes() > 0; i++)
                {
                    writeConnectRequest(data, f, ring);
                }
            }
            finally
            {
                MappedMemory.unmap(mapped);
            }
            for (int i = 0; i < 4; i++)
            {
                final ConnectionRequest request = listener.accept(Duration.ofMillis(1));
                if (null == request)
                {
                    break;
                }
                final QueuePair qp = f.serverPd.createQueuePair(f.qpConfig(f.serverCq));
                qp.modify(QpState.INIT);
                try
                {
                    if (data.consumeBoolean())
                    {
                        request.reject("fuzz");
                    }
                    else
                    {
                        request.accept(qp, new byte[]{7});
                    }
                }
                catch (final ConnectionException expected)
                {
                    // the documented failure for a request whose connector or segment is not usable
                }
                finally
                {
                    qp.close();
                }
            }
        }
        f.afterInput();
    }

    // ---------------------------------------------------------------- input shaping

    private static int postServerWork(final Fixture f, final QueuePair qp)
    {
        int posted = 0;
        posted += ok(qp.postRecv(new RecvRequest(2).wrId(1).sge(f.dst, PAGE, 1024)));
        posted += ok(qp.postRecv(new RecvRequest(2).wrId(2).sge(f.dst, PAGE + 1024, 512).sge(f.dst, PAGE + 2048, 256)));
        posted += ok(qp.postSend(new SendRequest(1).wrId(3).opcode(Opcode.SEND).sge(f.dst, 0, 64)));
        posted += ok(qp.postSend(new SendRequest(1).wrId(4).opcode(Opcode.RDMA_READ).sge(f.dst, PAGE + 3072, 256)
            .remote(f.clientRegion.address() + 128, f.clientRegion.rkey())));
        posted += ok(qp.postSend(new SendRequest(1).wrId(5).opcode(Opcode.ATOMIC_FETCH_AND_ADD)
            .sge(f.dst, PAGE + 3584, 8).remote(f.clientRegion.address() + 64, f.clientRegion.rkey()).atomic(1, 0)));
        posted += ok(qp.postSend(new SendRequest(1).wrId(6).opcode(Opcode.RDMA_WRITE).sge(f.dst, 0, 128)
            .remote(f.clientRegion.address() + 256, f.clientRegion.rkey())));
        posted += ok(qp.postSend(new SendRequest(1).wrId(7).opcode(Opcode.SEND_WITH_IMM).immediateData(5)
            .sge(f.dst, 0, 32)));
        return posted;
    }

    private static int ok(final int status)
    {
        return QueuePair.OK == status ? 1 : 0;
    }

    /** Corrupts a few fields of the peer's region table (restored after the input). */
    private static void fuzzTable(final FuzzedDataProvider data, final Fixture f)
    {
        final int edits = data.consumeInt(0, 3);
        for (int i = 0; i < edits; i++)
        {
            final int entry = DeviceSegmentDescriptor.entryOffset(data.consumeInt(0, 7));
            switch (data.consumeInt(0, 5))
            {
                case 0:
                    f.clientTable.putLongVolatile(entry + RegionEntryDescriptor.CONTROL_OFFSET,
                        RegionEntryDescriptor.control(pickRkey(data, f), data.consumeInt(), data.consumeInt(0, 3)));
                    break;
                case 1:
                    f.clientTable.putLong(entry + RegionEntryDescriptor.LENGTH_OFFSET,
                        data.consumeBoolean() ? data.consumeLong(-8, 4 * PAGE) : data.consumeLong());
                    break;
                case 2:
                    f.clientTable.putLong(entry + RegionEntryDescriptor.ADDRESS_OFFSET, data.consumeLong());
                    break;
                case 3:
                    f.clientTable.putInt(entry + RegionEntryDescriptor.ACCESS_OFFSET, data.consumeInt());
                    break;
                case 4:
                    f.clientTable.putLong(entry + RegionEntryDescriptor.PD_ID_OFFSET, data.consumeLong());
                    break;
                default:
                    f.clientTable.putLong(entry + RegionEntryDescriptor.FILE_ID_OFFSET,
                        data.consumeBoolean() ? data.consumeLong(0, 16) : data.consumeLong());
                    break;
            }
        }
    }

    private static void fuzzRing(final FuzzedDataProvider data, final Fixture f, final ShmConnection peerSide)
    {
        final OneToOneRingBuffer ring = peerSide.out;
        long msn = 0;
        for (int i = 0; i < 16 && data.remainingBytes() > 0; i++)
        {
            final int action = data.consumeInt(0, 15);
            if (0 == action)
            {
                // Raw corruption anywhere in the ring's data area (record headers included).
                final int words = ring.capacity() / 4;
                ring.buffer().putInt(4 * data.consumeInt(0, Math.min(words - 1, 255)), data.consumeInt());
                continue;
            }
            final int type = 1 == action ? data.consumeInt(1, Integer.MAX_VALUE) :
                data.consumeInt(FrameDescriptor.TYPE_SEND_INLINE, FrameDescriptor.TYPE_WRITE_IMM);
            final int count = FrameDescriptor.TYPE_SEND_RENDEZVOUS == type ?
                (0 == data.consumeInt(0, 7) ? data.consumeInt() : data.consumeInt(1, 4)) : 0;
            final int payload;
            if (FrameDescriptor.TYPE_SEND_INLINE == type)
            {
                payload = data.consumeInt(0, 2048);
            }
            else if (FrameDescriptor.TYPE_SEND_RENDEZVOUS == type)
            {
                payload = FrameDescriptor.SOURCE_LENGTH * Math.max(0, Math.min(count, 16));
            }
            else
            {
                payload = 0;
            }
            final int recordLength = 0 == data.consumeInt(0, 15) ? data.consumeInt(0, 4096) :
                FrameDescriptor.HEADER_LENGTH + payload;
            final UnsafeBuffer record = new UnsafeBuffer(new byte[Math.max(recordLength, 1)]);
            if (recordLength >= FrameDescriptor.HEADER_LENGTH)
            {
                record.putShort(FrameDescriptor.VERSION_OFFSET,
                    0 == data.consumeInt(0, 15) ? data.consumeShort() : (short)SegmentHeader.VERSION);
                record.putShort(FrameDescriptor.FLAGS_OFFSET, (short)data.consumeInt(0, 3));
                record.putInt(FrameDescriptor.IMMEDIATE_OFFSET, data.consumeInt());
                record.putLong(FrameDescriptor.MSN_OFFSET, 0 == data.consumeInt(0, 7) ? data.consumeLong() : msn++);
                final int messageLength = sourcesOrPayload(data, f, record, type, count, payload);
                record.putInt(FrameDescriptor.MESSAGE_LENGTH_OFFSET,
                    0 == data.consumeInt(0, 7) ? data.consumeInt() : messageLength);
                record.putInt(FrameDescriptor.SOURCE_COUNT_OFFSET, count);
            }
            else
            {
                record.putBytes(0, data.consumeBytes(recordLength));
            }
            if (recordLength > ring.maxMsgLength() || !ring.write(type, record, 0, recordLength))
            {
                break;
            }
        }
    }

    private static int sourcesOrPayload(
        final FuzzedDataProvider data, final Fixture f, final UnsafeBuffer record, final int type, final int count,
        final int payload)
    {
        if (FrameDescriptor.TYPE_SEND_INLINE == type)
        {
            final int length = Math.min(payload, record.capacity() - FrameDescriptor.PAYLOAD_OFFSET);
            record.putBytes(FrameDescriptor.PAYLOAD_OFFSET, data.consumeBytes(length));
            return payload;
        }
        if (FrameDescriptor.TYPE_SEND_RENDEZVOUS != type)
        {
            return data.consumeInt(0, 4096);
        }
        long total = 0;
        for (int i = 0; i < count && FrameDescriptor.PAYLOAD_OFFSET + (i + 1) * FrameDescriptor.SOURCE_LENGTH <=
            record.capacity(); i++)
        {
            final int at = FrameDescriptor.PAYLOAD_OFFSET + i * FrameDescriptor.SOURCE_LENGTH;
            final long offset = data.consumeBoolean() ? data.consumeLong(-8, 4 * PAGE) : data.consumeLong();
            final long length = data.consumeBoolean() ? data.consumeLong(-8, 2 * PAGE) : data.consumeLong();
            record.putInt(at + FrameDescriptor.SOURCE_RKEY_OFFSET, pickRkey(data, f));
            record.putLong(at + FrameDescriptor.SOURCE_OFFSET_OFFSET, offset);
            record.putLong(at + FrameDescriptor.SOURCE_LENGTH_OFFSET, length);
            total += length;
        }
        return (int)total;
    }

    private static int pickRkey(final FuzzedDataProvider data, final Fixture f)
    {
        switch (data.consumeInt(0, 3))
        {
            case 0:
                return f.clientLocalOnly.rkey();
            case 1:
                return data.consumeInt();
            default:
                return f.clientRegion.rkey();
        }
    }

    private static void fuzzControl(final FuzzedDataProvider data, final ShmConnection peerSide)
    {
        final int control = ConnectionSegmentDescriptor.controlOffset(peerSide.side);
        final int edits = data.consumeInt(0, 3);
        for (int i = 0; i < edits; i++)
        {
            final long value = data.consumeBoolean() ? data.consumeLong(-2, 8) : data.consumeLong();
            switch (data.consumeInt(0, 5))
            {
                case 0:
                    // Any value, huge ones included: acks beyond what was sent are a protocol error (ERROR).
                    peerSide.segment.putLongRelease(control + ConnectionSegmentDescriptor.ACKED_MSN_OFFSET, value);
                    break;
                case 1:
                    peerSide.segment.putLong(control + ConnectionSegmentDescriptor.RNR_MSN_OFFSET, value);
                    peerSide.segment.putLongRelease(control + ConnectionSegmentDescriptor.RNR_COUNT_OFFSET,
                        data.consumeLong(0, 3));
                    break;
                case 2:
                    peerSide.segment.putInt(control + ConnectionSegmentDescriptor.ERROR_STATUS_OFFSET,
                        data.consumeInt());
                    peerSide.segment.putLongRelease(control + ConnectionSegmentDescriptor.ERROR_MSN_OFFSET, value);
                    break;
                case 3:
                    peerSide.segment.putIntVolatile(control + ConnectionSegmentDescriptor.CLOSED_OFFSET,
                        data.consumeInt());
                    break;
                default:
                    break;
            }
        }
    }

    private static void writeConnectRequest(final FuzzedDataProvider data, final Fixture f,
        final ManyToOneRingBuffer ring)
    {
        final int type = 0 == data.consumeInt(0, 7) ? data.consumeInt(1, Integer.MAX_VALUE) :
            ConnectRequestDescriptor.TYPE_CONNECT;
        final byte[] privateData = data.consumeBytes(data.consumeInt(0, 64));
        final int length = 0 == data.consumeInt(0, 7) ? data.consumeInt(0, 4200) :
            ConnectRequestDescriptor.PRIVATE_DATA_OFFSET + privateData.length;
        final UnsafeBuffer record = new UnsafeBuffer(new byte[Math.max(1, length)]);
        if (length >= ConnectRequestDescriptor.PRIVATE_DATA_OFFSET)
        {
            final ShmDevice client = (ShmDevice)f.clientDevice;
            record.putInt(ConnectRequestDescriptor.VERSION_OFFSET,
                0 == data.consumeInt(0, 15) ? data.consumeInt() : SegmentHeader.VERSION);
            record.putInt(ConnectRequestDescriptor.QPN_OFFSET, data.consumeInt());
            record.putLong(ConnectRequestDescriptor.PID_OFFSET, data.consumeBoolean() ? client.pid() :
                data.consumeLong());
            record.putLong(ConnectRequestDescriptor.DEVICE_ID_OFFSET, data.consumeBoolean() ? client.deviceId() :
                data.consumeLong());
            record.putLong(ConnectRequestDescriptor.CONNECTION_ID_OFFSET, data.consumeLong(0, 64));
            record.putInt(ConnectRequestDescriptor.PRIVATE_DATA_LENGTH_OFFSET,
                0 == data.consumeInt(0, 7) ? data.consumeInt() : privateData.length);
            record.putBytes(ConnectRequestDescriptor.PRIVATE_DATA_OFFSET, privateData, 0,
                Math.min(privateData.length, length - ConnectRequestDescriptor.PRIVATE_DATA_OFFSET));
        }
        if (length <= ring.maxMsgLength())
        {
            ring.write(type, record, 0, length);
        }
    }

    private static DeviceContext context(final Path dir)
    {
        // No progress thread (the test drives progress) and a generous peer timeout: fuzzing pauses the JVM.
        return ShmTestSupport.context(dir, false).peerTimeoutNs(TimeUnit.SECONDS.toNanos(30));
    }

    private static synchronized Fixture fixture()
    {
        if (null == fixture)
        {
            fixture = new Fixture();
        }
        return fixture;
    }

    // ---------------------------------------------------------------- devices under test

    /** A server device, a passive client device (the fuzzed peer) and a healthy peer device. */
    private static final class Fixture implements AutoCloseable
    {
        final Path dir = ShmTestSupport.newDir("fuzz");
        final Device serverDevice = Verbs.open("shm", context(dir));
        final Device clientDevice = Verbs.open("shm", context(dir));
        final Device healthyDevice = Verbs.open("shm", context(dir));
        final ProtectionDomain serverPd = serverDevice.allocateProtectionDomain();
        final ProtectionDomain clientPd = clientDevice.allocateProtectionDomain();
        final CompletionQueue serverCq = serverDevice.createCompletionQueue(1024);
        final CompletionQueue clientCq = clientDevice.createCompletionQueue(1024);
        final MemoryRegion dst = serverPd.allocate(3 * PAGE, Access.ALL);
        final MemoryRegion serverReadOnly = serverPd.allocate(PAGE, Access.LOCAL_WRITE | Access.REMOTE_READ);
        final MemoryRegion clientRegion = clientPd.allocate(4 * PAGE, Access.ALL);
        final MemoryRegion clientLocalOnly = clientPd.allocate(PAGE, Access.LOCAL_WRITE);
        final RegionMemory clientTableMemory;
        final UnsafeBuffer clientTable;
        final ExecutorService progressThread = Executors.newSingleThreadExecutor(r ->
        {
            final Thread thread = new Thread(r, "fuzz-shm-progress");
            thread.setDaemon(true);
            return thread;
        });
        final CompletionBatch batch = new CompletionBatch(64);
        final CompletionQueue healthyCq = healthyDevice.createCompletionQueue(64);
        final QueuePair healthyServer;
        final QueuePair healthyClient;
        final MemoryRegion healthySrc;
        final MemoryRegion healthyDst;
        final ConcurrentLinkedQueue<String> logged = new ConcurrentLinkedQueue<>();
        final Logger shmLogger = Logger.getLogger("io.verbs4j.shm");
        final Handler logWatch = new Handler()
        {
            public void publish(final LogRecord record)
            {
                if (null != record.getThrown() || record.getLevel().intValue() >= Level.SEVERE.intValue())
                {
                    logged.add(record.getMessage() + " " + record.getThrown());
                }
            }

            public void flush()
            {
            }

            public void close()
            {
            }
        };
        int completed;
        long inputs;
        long healthyWrites;

        Fixture()
        {
            shmLogger.addHandler(logWatch);
            fillPattern(dst, 0, 3 * PAGE, GUARD_BYTE);
            fillPattern(serverReadOnly, 0, PAGE, RO_BYTE);
            final Path table = ((ShmDevice)clientDevice).segmentFile();
            clientTableMemory = MappedMemory.open(table, DeviceSegmentDescriptor.entryOffset(8));
            clientTable = new UnsafeBuffer(clientTableMemory.addressOf(0), DeviceSegmentDescriptor.entryOffset(8));
            final ProtectionDomain healthyPd = healthyDevice.allocateProtectionDomain();
            healthySrc = healthyPd.allocate(64, Access.LOCAL_WRITE);
            healthyDst = serverPd.allocate(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            healthyServer = serverPd.createQueuePair(qpConfig(serverDevice.createCompletionQueue(64)));
            healthyClient = healthyPd.createQueuePair(qpConfig(healthyCq));
            healthyServer.modify(QpState.INIT);
            healthyClient.modify(QpState.INIT);
            ShmTestSupport.connect(serverDevice, healthyServer, healthyClient, "fzhealthy", new byte[0], new byte[0]);
            checkHealthy();
        }

        QueuePairConfig qpConfig(final CompletionQueue cq)
        {
            return new QueuePairConfig(cq).sendDepth(16).recvDepth(16).maxSendSge(2).maxRecvSge(2)
                .maxInlineLength(64).rnrRetry(1).rnrTimerNs(1_000);
        }

        byte[] clientTable()
        {
            final byte[] copy = new byte[clientTable.capacity() - DeviceSegmentDescriptor.TABLE_OFFSET];
            clientTable.getBytes(DeviceSegmentDescriptor.TABLE_OFFSET, copy);
            return copy;
        }

        void restoreClientTable(final byte[] saved)
        {
            clientTable.putBytes(DeviceSegmentDescriptor.TABLE_OFFSET, saved);
        }

        /** Runs server progress on the worker thread; a hang or an exception fails the input. */
        void progress(final Runnable task) throws Exception
        {
            final Future<?> done = progressThread.submit(task);
            try
            {
                done.get(WAIT_MS * 2, TimeUnit.MILLISECONDS);
            }
            catch (final TimeoutException ex)
            {
                fail("hang: server progress did not return within " + (WAIT_MS * 2) + " ms");
            }
            catch (final ExecutionException ex)
            {
                if (ex.getCause() instanceof Error)
                {
                    throw (Error)ex.getCause();
                }
                throw new AssertionError("server progress threw " + ex.getCause(), ex.getCause());
            }
        }

        void drive(final int rounds)
        {
            for (int i = 0; i < rounds; i++)
            {
                batch.clear();
                completed += serverCq.poll(batch, batch.capacity());
            }
        }

        void awaitDone(final QueuePair server, final int posted)
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (System.nanoTime() < deadline && (completed < posted || QpState.ERROR != server.state()))
            {
                drive(1);
                Thread.yield();
            }
            final int got = completed;
            completed = 0;
            assertEquals(QpState.ERROR, server.state(), "server queue pair once the peer closed");
            assertEquals(posted, got, "completions for the " + posted + " posted work requests");
        }

        void afterInput()
        {
            inputs++;
            checkPattern(dst, 0, PAGE, GUARD_BYTE, "guard below the receive buffers");
            checkPattern(dst, 2 * PAGE, PAGE, GUARD_BYTE, "guard above the receive buffers");
            checkPattern(serverReadOnly, 0, PAGE, RO_BYTE, "region without remote write");
            final List<String> problems = new ArrayList<>(logged);
            logged.clear();
            assertTrue(problems.isEmpty(), () -> "logged with an exception: " + problems);
            if (inputs % HEALTH_CHECK_EVERY == 0)
            {
                checkHealthy();
            }
        }

        void checkHealthy()
        {
            final long value = ++healthyWrites;
            healthySrc.putLong(0, value);
            assertEquals(QueuePair.OK, healthyClient.postSend(new SendRequest(1).wrId(value).opcode(Opcode.RDMA_WRITE)
                .sge(healthySrc, 0, 8).remote(healthyDst.address(), healthyDst.rkey())));
            final CompletionBatch done = new CompletionBatch(1);
            ShmTestSupport.pollOne(healthyCq, done);
            assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name(done.status(0)), "healthy connection");
            assertEquals(value, healthyDst.getLong(0));
            assertEquals(QpState.RTS, healthyServer.state());
            assertNotNull(healthyClient);
        }

        public void close()
        {
            progressThread.shutdownNow();
            shmLogger.removeHandler(logWatch);
            MappedMemory.unmap(clientTableMemory);
            healthyDevice.close();
            clientDevice.close();
            serverDevice.close();
            ShmTestSupport.deleteDir(dir);
        }
    }

    private static void fillPattern(final MemoryRegion region, final long from, final int length, final byte value)
    {
        for (int i = 0; i < length; i++)
        {
            region.putByte(from + i, value);
        }
    }

    private static void checkPattern(
        final MemoryRegion region, final long from, final int length, final byte value, final String what)
    {
        for (int i = 0; i < length; i++)
        {
            if (value != region.getByte(from + i))
            {
                fail("write outside what the peer may write: " + what + ", byte " + i + " changed");
            }
        }
    }
}
