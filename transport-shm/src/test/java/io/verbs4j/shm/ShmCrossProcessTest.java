// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
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
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.launch.ChildJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real separate processes: a child JVM ({@link ShmChildProcess}) serves one queue pair; this JVM drives WRITE,
 * READ, cross-process atomics and SEND, then kills the child with SIGKILL and checks detection and cleanup.
 */
@Timeout(60)
class ShmCrossProcessTest
{
    private static final int CHILD_ADDS = 200_000;

    private Path dir;
    private ChildJvm child;
    private Device device;

    @BeforeEach
    void createDir()
    {
        dir = ShmTestSupport.newDir("xproc");
    }

    @AfterEach
    void cleanUp()
    {
        if (null != child)
        {
            child.close();
        }
        if (null != device)
        {
            device.close();
        }
        ShmTestSupport.deleteDir(dir);
    }

    private ChildJvm startChild(final String name)
    {
        return startChild(name, true);
    }

    private ChildJvm startChild(final String name, final boolean progressThread)
    {
        final ChildJvm process = ChildJvm.builder("shm child " + name, ShmChildProcess.class)
            .jvmArgs(List.of("-Xmx256m"))
            .args(List.of(dir.toString(), name, Integer.toString(CHILD_ADDS), Boolean.toString(progressThread)))
            .mergeStderr()
            .echo(System.out, "[child] ")
            .start();
        try
        {
            process.awaitLine("LISTENING", ChildJvm.CALL_TIMEOUT_MS);
        }
        catch (final RuntimeException ex)
        {
            process.close();
            throw ex;
        }
        return process;
    }

    @Test
    void shouldRunEveryVerbAcrossProcessesAndDetectKill() throws Exception
    {
        child = startChild("xp");
        device = ShmTestSupport.open(dir, true);
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final CompletionQueue cq = device.createCompletionQueue(256);
        final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(64).recvDepth(16));
        qp.modify(QpState.INIT);
        final MemoryRegion local = pd.allocate(4 << 20, Access.LOCAL_WRITE);
        final CompletionBatch batch = new CompletionBatch(16);
        final RecvRequest recv = new RecvRequest(1);
        qp.postRecv(recv.clearSges().wrId(1000).sge(local, 2 << 20, 1 << 20));
        final byte[] info = device.connectionManager().connect(qp, "shm://xp", new byte[0],
            java.time.Duration.ofSeconds(20));
        final ByteBuffer infoBuffer = ByteBuffer.wrap(info).order(ByteOrder.LITTLE_ENDIAN);
        final long remoteAddress = infoBuffer.getLong();
        final int rkey = infoBuffer.getInt();

        // WRITE then READ back 64 KiB.
        for (int i = 0; i < 65536; i++)
        {
            local.putByte(i, (byte)(i * 7));
        }
        final SendRequest send = new SendRequest(1);
        qp.postSend(send.clearSges().wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 65536)
            .remote(remoteAddress + 4096, rkey));
        expect(cq, batch, 1, WcStatus.SUCCESS);
        qp.postSend(send.clearSges().wrId(2).opcode(Opcode.RDMA_READ).sge(local, 65536, 65536)
            .remote(remoteAddress + 4096, rkey));
        expect(cq, batch, 2, WcStatus.SUCCESS);
        for (int i = 0; i < 65536; i += 97)
        {
            assertEquals((byte)(i * 7), local.getByte(65536 + i));
        }

        // Cross-process atomics: the child adds with CPU atomics while this side posts FETCH_AND_ADDs.
        local.putByte(1 << 20, (byte)'A');
        qp.postSend(send.clearSges().wrId(3).opcode(Opcode.SEND).sge(local, 1 << 20, 1));
        expect(cq, batch, 3, WcStatus.SUCCESS);
        final int adds = 2000;
        boolean childDone = false;
        for (int i = 0; i < adds; i++)
        {
            qp.postSend(send.clearSges().wrId(10_000 + i).opcode(Opcode.ATOMIC_FETCH_AND_ADD).sge(local, 8, 8)
                .remote(remoteAddress, rkey).atomic(1, 0));
            ShmTestSupport.pollOne(cq, batch);
            if (1000 == batch.wrId(0))
            {
                childDone = true;  // the child's answer: its adds are done
                ShmTestSupport.pollOne(cq, batch);
            }
            assertEquals(WcStatus.SUCCESS, batch.status(0));
            assertEquals(10_000 + i, batch.wrId(0));
        }
        if (!childDone)
        {
            expect(cq, batch, 1000, WcStatus.SUCCESS);
        }
        qp.postSend(send.clearSges().wrId(4).opcode(Opcode.RDMA_READ).sge(local, 16, 8).remote(remoteAddress, rkey));
        expect(cq, batch, 4, WcStatus.SUCCESS);
        assertEquals(CHILD_ADDS + adds, local.getLong(16));

        // SEND echo of a rendezvous-sized message.
        final int length = 300_000;
        for (int i = 0; i < length; i++)
        {
            local.putByte((1 << 20) + i, (byte)(i % 251));
        }
        local.putByte(1 << 20, (byte)'E');
        qp.postRecv(recv.clearSges().wrId(1001).sge(local, 2 << 20, 1 << 20));
        qp.postSend(send.clearSges().wrId(5).opcode(Opcode.SEND).sge(local, 1 << 20, length));
        // The send's ack and the echo race: take the two completions in either order.
        int echoLength = -1;
        for (int n = 0; n < 2; n++)
        {
            ShmTestSupport.pollOne(cq, batch);
            assertEquals(WcStatus.SUCCESS, batch.status(0), "wrId " + batch.wrId(0));
            assertTrue(5 == batch.wrId(0) || 1001 == batch.wrId(0), "wrId " + batch.wrId(0));
            if (1001 == batch.wrId(0))
            {
                echoLength = batch.byteLength(0);
            }
        }
        assertEquals(length, echoLength);
        for (int i = 1; i < length; i += 13)
        {
            assertEquals((byte)(i % 251), local.getByte((2 << 20) + i));
        }

        // Make a SEND wait on RNR, then kill -9 the child: RETRY_EXC_ERR, then flushes, within the timeout.
        local.putByte(1 << 20, (byte)'S');
        qp.postSend(send.clearSges().wrId(6).opcode(Opcode.SEND).sge(local, 1 << 20, 1));
        expect(cq, batch, 6, WcStatus.SUCCESS);
        for (int i = 0; i < 3; i++)
        {
            // Use up the child's other receives, which it no longer replaces.
            qp.postSend(send.clearSges().wrId(20 + i).opcode(Opcode.SEND).sge(local, 1 << 20, 1));
            expect(cq, batch, 20 + i, WcStatus.SUCCESS);
        }
        for (int i = 0; i < 4; i++)
        {
            qp.postSend(send.clearSges().wrId(7 + i).opcode(Opcode.SEND).sge(local, 1 << 20, 1));
        }
        Thread.sleep(100);
        assertEquals(0, cq.poll(batch, 1), "sends must wait on RNR");
        qp.postRecv(recv.clearSges().wrId(1002).sge(local, 2 << 20, 1 << 20));
        final long killedAt = System.nanoTime();
        child.kill();
        expect(cq, batch, 7, WcStatus.RETRY_EXC_ERR);
        final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        assertTrue(detectedMs < 5_000, "detected after " + detectedMs + " ms");
        for (int i = 1; i < 4; i++)
        {
            expect(cq, batch, 7 + i, WcStatus.WR_FLUSH_ERR);
        }
        expect(cq, batch, 1002, WcStatus.WR_FLUSH_ERR);
        assertEquals(QpState.ERROR, qp.state());
        device.close();
        device = null;
        assertEquals(0, ShmTestSupport.fileCount(dir), "files left behind: " + java.util.Arrays.toString(
            ShmTestSupport.fileNames(dir)));
    }

    @Test
    void shouldWorkAcrossProcessesWithProgressThreadsOff() throws Exception
    {
        child = startChild("xp-poll", false);
        device = ShmTestSupport.open(dir, false);
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final CompletionQueue cq = device.createCompletionQueue(256);
        final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(64).recvDepth(16));
        qp.modify(QpState.INIT);
        final MemoryRegion local = pd.allocate(4 << 20, Access.LOCAL_WRITE);
        final CompletionBatch batch = new CompletionBatch(16);
        final byte[] info = device.connectionManager().connect(qp, "shm://xp-poll", new byte[0],
            java.time.Duration.ofSeconds(20));
        final ByteBuffer infoBuffer = ByteBuffer.wrap(info).order(ByteOrder.LITTLE_ENDIAN);
        final long remoteAddress = infoBuffer.getLong();
        final int rkey = infoBuffer.getInt();
        for (int i = 0; i < 65536; i++)
        {
            local.putByte(i, (byte)(i * 5));
        }
        final SendRequest send = new SendRequest(1);
        qp.postSend(send.clearSges().wrId(1).opcode(Opcode.RDMA_WRITE).sge(local, 0, 65536)
            .remote(remoteAddress + 4096, rkey));
        expect(cq, batch, 1, WcStatus.SUCCESS);
        qp.postSend(send.clearSges().wrId(2).opcode(Opcode.RDMA_READ).sge(local, 65536, 65536)
            .remote(remoteAddress + 4096, rkey));
        expect(cq, batch, 2, WcStatus.SUCCESS);
        for (int i = 0; i < 65536; i += 89)
        {
            assertEquals((byte)(i * 5), local.getByte(65536 + i));
        }
        // SEND echo: the child's poll loop is its only progress, this side's polls are ours.
        final int length = 100_000;
        for (int i = 0; i < length; i++)
        {
            local.putByte((1 << 20) + i, (byte)(i % 241));
        }
        local.putByte(1 << 20, (byte)'E');
        qp.postRecv(new RecvRequest(1).wrId(1001).sge(local, 2 << 20, 1 << 20));
        qp.postSend(send.clearSges().wrId(5).opcode(Opcode.SEND).sge(local, 1 << 20, length));
        int echoLength = -1;
        for (int n = 0; n < 2; n++)
        {
            ShmTestSupport.pollOne(cq, batch);
            assertEquals(WcStatus.SUCCESS, batch.status(0), "wrId " + batch.wrId(0));
            if (1001 == batch.wrId(0))
            {
                echoLength = batch.byteLength(0);
            }
        }
        assertEquals(length, echoLength);
        for (int i = 1; i < length; i += 13)
        {
            assertEquals((byte)(i % 241), local.getByte((2 << 20) + i));
        }
    }

    @Test
    void shouldDetectAStoppedPeerWithinTheTimeout() throws Exception
    {
        child = startChild("xp-stop", true);
        device = ShmTestSupport.open(dir, true);
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final CompletionQueue cq = device.createCompletionQueue(256);
        final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(16).recvDepth(16));
        qp.modify(QpState.INIT);
        final MemoryRegion local = pd.allocate(1 << 20, Access.LOCAL_WRITE);
        device.connectionManager().connect(qp, "shm://xp-stop", new byte[0], java.time.Duration.ofSeconds(20));
        final CompletionBatch batch = new CompletionBatch(16);
        Thread.sleep(100);
        child.stop();
        try
        {
            final long stoppedAt = System.nanoTime();
            local.putByte(0, (byte)'x');
            qp.postSend(new SendRequest(1).wrId(1).opcode(Opcode.SEND).sge(local, 0, 1));
            qp.postSend(new SendRequest(1).wrId(2).opcode(Opcode.SEND).sge(local, 0, 1));
            expect(cq, batch, 1, WcStatus.RETRY_EXC_ERR);
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
            // Timeout 300 ms, checked every timeout/8: a stopped (not dead) peer is caught by its heartbeat.
            assertTrue(detectedMs < 5_000, "hung peer detected after " + detectedMs + " ms");
            expect(cq, batch, 2, WcStatus.WR_FLUSH_ERR);
            assertEquals(QpState.ERROR, qp.state());
            assertTrue(child.isAlive(), "the peer was only stopped");
        }
        finally
        {
            child.resume();
        }
    }

    @Test
    void shouldSweepTheFilesOfAKilledProcessWhenTheNextDeviceOpens() throws Exception
    {
        child = startChild("xp-kill", true);
        final String[] before = ShmTestSupport.fileNames(dir);
        assertTrue(null != before && before.length >= 4, "child's device, regions and listener files: " +
            java.util.Arrays.toString(before));
        child.kill();
        assertTrue(!child.isAlive(), "SIGKILL ended the child");
        assertEquals(before.length, ShmTestSupport.fileCount(dir), "SIGKILL leaves the files");
        ShmTestSupport.open(dir, false).close();
        assertEquals(0, ShmTestSupport.fileCount(dir),
            "left: " + java.util.Arrays.toString(ShmTestSupport.fileNames(dir)));
    }

    private static void expect(final CompletionQueue cq, final CompletionBatch batch, final long wrId, final int status)
    {
        ShmTestSupport.pollOne(cq, batch);
        assertEquals(WcStatus.name(status), WcStatus.name(batch.status(0)), "wrId " + batch.wrId(0));
        assertEquals(wrId, batch.wrId(0));
    }
}
