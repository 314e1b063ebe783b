// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.CompletionBatch;
import io.verbs4j.CompletionQueue;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.QueuePairConfig;
import io.verbs4j.RecvRequest;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.shm.protocol.DeviceSegmentDescriptor;
import io.verbs4j.spi.MappedMemory;
import io.verbs4j.spi.RegionMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The progress agent driven by hand ({@code doWork()}, no thread), and many threads posting at once.
 */
@Timeout(60)
class ShmProgressTest extends ShmPairFixture
{
    @Test
    void shouldDoReceiveAckAndHeartbeatWorkInDoWork()
    {
        setUp(ShmTestSupport.context(dir(), false), (s, c) -> { });
        final ShmProgress serverAgent = (ShmProgress)((ShmDevice)serverDevice).progress();
        final ShmProgress clientAgent = (ShmProgress)((ShmDevice)clientDevice).progress();
        assertTrue(serverAgent.roleName().startsWith("verbs4j-shm-progress-"));
        sleep(5);
        serverAgent.doWork();
        clientAgent.doWork();
        assertEquals(0, serverAgent.doWork(), "idle");
        assertEquals(0, clientAgent.doWork(), "idle");

        final MemoryRegion src = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        fill(src, 0, 100, 3);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 4096));
        // The posting thread writes the record itself; nothing is received until the server's agent runs.
        check(client.postSend(new SendRequest(1).wrId(2).sge(src, 0, 100)), client);
        assertTrue(serverAgent.doWork() >= 1, "the record is received");
        check(dst, 0, 100, 3);
        assertTrue(clientAgent.doWork() >= 1, "the acknowledgement completes the send");
        assertEquals(0, clientAgent.doWork());
        expect(serverCq, 1, WcStatus.SUCCESS, Opcode.RECV);
        expect(clientCq, 2, WcStatus.SUCCESS, Opcode.SEND);

        // A progress-less device does not claim a heartbeat, yet doWork still advances it for its peers.
        final ShmDevice device = (ShmDevice)serverDevice;
        final RegionMemory segment = MappedMemory.open(device.segmentFile(), DeviceSegmentDescriptor.TABLE_OFFSET);
        try
        {
            final long address = segment.addressOf(DeviceSegmentDescriptor.HEARTBEAT_OFFSET);
            final long before = org.agrona.UnsafeApi.getLongVolatile(null, address);
            sleep(60);
            serverAgent.doWork();
            assertTrue(org.agrona.UnsafeApi.getLongVolatile(null, address) > before, "heartbeat advanced");
            assertEquals(0, org.agrona.UnsafeApi.getInt(segment.addressOf(DeviceSegmentDescriptor.FLAGS_OFFSET)) &
                DeviceSegmentDescriptor.FLAG_HEARTBEAT);
        }
        finally
        {
            MappedMemory.unmap(segment);
        }
    }

    @Test
    void shouldKnowWhoIsInsideTheProgress()
    {
        assumeTrue(ShmProgress.class.desiredAssertionStatus(), "the holder is kept only with assertions on");
        setUp(ShmTestSupport.context(dir(), false), (s, c) -> { });
        final ShmDevice device = (ShmDevice)serverDevice;
        assertFalse(device.holdsProgress(), "outside");
        final boolean[] inside = new boolean[1];
        device.progressExclusive(() ->
        {
            inside[0] = device.holdsProgress();
            // Waiting for the progress from inside it would wait for ever: refused by the assertion instead.
            assertThrows(AssertionError.class, () -> device.progressExclusive(() -> { }));
        });
        assertTrue(inside[0], "inside an exclusive task");
        assertFalse(device.holdsProgress(), "outside again");
        // A receive round entered outside the progress is refused by the receive side's assertion.
        final ShmQueuePair qp = (ShmQueuePair)server;
        assertThrows(AssertionError.class, qp::doWork);
        // The same round through the progress passes it (and finds nothing to do but housekeeping).
        device.progress().progress();
        assertFalse(device.holdsProgress(), "left after the round");
    }

    @Test
    void shouldLetOnlyTheAgentDriveADedicatedDevice()
    {
        assumeTrue(ShmProgress.class.desiredAssertionStatus(), "asserted only with assertions on");
        setUp(ShmTestSupport.context(dir(), true).threadingMode(io.verbs4j.config.ThreadingMode.DEDICATED),
            (s, c) -> { });
        final ShmDevice device = (ShmDevice)serverDevice;
        final MemoryRegion src = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        fill(src, 0, 100, 9);
        server.postRecv(new RecvRequest(1).wrId(1).sge(dst, 0, 4096));
        check(client.postSend(new SendRequest(1).wrId(2).sge(src, 0, 100)), client);
        // The polls take what the agents completed; they drive nothing.
        expect(serverCq, 1, WcStatus.SUCCESS, Opcode.RECV);
        expect(clientCq, 2, WcStatus.SUCCESS, Opcode.SEND);
        check(dst, 0, 100, 9);
        // Another thread entering the progress of a DEDICATED device is refused. Retried while the agent is inside
        // (the try-lock then returns without entering).
        final ShmProgress progress = (ShmProgress)device.progress();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        AssertionError refused = null;
        while (null == refused && System.nanoTime() < deadline)
        {
            try
            {
                progress.progress();
            }
            catch (final AssertionError ex)
            {
                refused = ex;
            }
        }
        assertTrue(null != refused && refused.getMessage().contains("DEDICATED"), String.valueOf(refused));
        assertFalse(device.holdsProgress(), "the refused thread left the progress");
    }

    @Test
    void shouldCarryTrafficOnASingleThreadDeviceAndCatchASecondThreadInside() throws Exception
    {
        setUp(ShmTestSupport.context(dir(), false).threadingMode(io.verbs4j.config.ThreadingMode.SINGLE_THREAD),
            (s, c) -> { });
        final ShmDevice device = (ShmDevice)serverDevice;
        assertTrue(device.singleThreaded(), "shm honours SINGLE_THREAD");
        assertFalse(device.context().progressThread(), "no agent");
        final MemoryRegion src = clientPd.allocate(4096, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(4096, Access.LOCAL_WRITE);
        for (int i = 0; i < 50; i++)
        {
            fill(src, 0, 100, i);
            server.postRecv(new RecvRequest(1).wrId(i).sge(dst, 0, 4096));
            check(client.postSend(new SendRequest(1).wrId(1000 + i).sge(src, 0, 100)), client);
            // Each poll drives its own device's progress: the receive, then the acknowledgement.
            expect(serverCq, i, WcStatus.SUCCESS, Opcode.RECV);
            expect(clientCq, 1000 + i, WcStatus.SUCCESS, Opcode.SEND);
            check(dst, 0, 100, i);
        }
        assumeTrue(ShmProgress.class.desiredAssertionStatus(), "the second thread is caught with assertions on");
        final Throwable[] caught = new Throwable[1];
        device.progressExclusive(() ->
        {
            final Thread other = new Thread(() ->
            {
                try
                {
                    device.progress().progress();
                }
                catch (final Throwable ex)
                {
                    caught[0] = ex;
                }
            });
            other.start();
            try
            {
                other.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(caught[0] instanceof AssertionError && caught[0].getMessage().contains("SINGLE_THREAD"),
            String.valueOf(caught[0]));
        // The device still works from its one thread.
        fill(src, 0, 100, 77);
        server.postRecv(new RecvRequest(1).wrId(77).sge(dst, 0, 4096));
        check(client.postSend(new SendRequest(1).wrId(1077).sge(src, 0, 100)), client);
        expect(serverCq, 77, WcStatus.SUCCESS, Opcode.RECV);
        expect(clientCq, 1077, WcStatus.SUCCESS, Opcode.SEND);
        check(dst, 0, 100, 77);
    }

    @Test
    void shouldCarryConcurrentPostsOnSeveralQueuePairs() throws Exception
    {
        setUpConnected();
        final int pairs = 3;
        final int messages = 3000;
        final List<QueuePair[]> qps = new ArrayList<>();
        final List<CompletionQueue[]> cqs = new ArrayList<>();
        for (int p = 0; p < pairs; p++)
        {
            final CompletionQueue scq = serverDevice.createCompletionQueue(1024);
            final CompletionQueue ccq = clientDevice.createCompletionQueue(1024);
            final QueuePair s = serverPd.createQueuePair(new QueuePairConfig(scq).sendDepth(16).recvDepth(256));
            final QueuePair c = clientPd.createQueuePair(new QueuePairConfig(ccq).sendDepth(256).recvDepth(16)
                .maxInlineLength(64));
            s.modify(QpState.INIT);
            ShmTestSupport.connect(serverDevice, s, c, "multi" + p + "-" + System.nanoTime(), new byte[0], new byte[0]);
            qps.add(new QueuePair[]{s, c});
            cqs.add(new CompletionQueue[]{scq, ccq});
        }
        final MemoryRegion src = clientPd.allocate(pairs * 256L * 65536, Access.LOCAL_WRITE);
        final MemoryRegion dst = serverPd.allocate(pairs * 256L * 65536, Access.LOCAL_WRITE);
        final List<CompletableFuture<Void>> tasks = new ArrayList<>();
        for (int p = 0; p < pairs; p++)
        {
            final int pair = p;
            final long base = pair * 256L * 65536;
            final QueuePair s = qps.get(p)[0];
            final QueuePair c = qps.get(p)[1];
            final CompletionQueue scq = cqs.get(p)[0];
            final CompletionQueue ccq = cqs.get(p)[1];
            // One thread posts and reaps the sends of the pair's client QP ...
            tasks.add(CompletableFuture.runAsync(() ->
            {
                final SendRequest send = new SendRequest(1);
                final CompletionBatch completions = new CompletionBatch(64);
                int posted = 0;
                int done = 0;
                while (done < messages)
                {
                    final int length = messageLength(pair, posted);
                    final long offset = base + (posted % 256) * 65536L;
                    if (posted < messages && c.sendQueueFree() > 0)
                    {
                        src.putInt(offset, posted);
                        final int flags = length <= 64 ? SendRequest.SIGNALED | SendRequest.INLINE :
                            SendRequest.SIGNALED;
                        if (QueuePair.OK == c.postSend(send.clearSges().wrId(posted).flags(flags)
                            .sge(src, offset, length)))
                        {
                            posted++;
                        }
                    }
                    completions.clear();
                    ccq.poll(completions, 64);
                    for (int i = 0; i < completions.size(); i++)
                    {
                        if (WcStatus.SUCCESS != completions.status(i) || done != completions.wrId(i))
                        {
                            throw new AssertionError("pair " + pair + ": send " + completions.wrId(i) + " " +
                                WcStatus.name(completions.status(i)) + ", expected " + done);
                        }
                        done++;
                    }
                }
            }));
            // ... another posts receives on the server QP and checks what arrives, in order.
            tasks.add(CompletableFuture.runAsync(() ->
            {
                final RecvRequest recv = new RecvRequest(1);
                final CompletionBatch completions = new CompletionBatch(64);
                int posted = 0;
                int received = 0;
                while (received < messages)
                {
                    while (posted < messages && posted - received < 256 && QueuePair.OK == s.postRecv(
                        recv.clearSges().wrId(posted).sge(dst, base + (posted % 256) * 65536L, 65536)))
                    {
                        posted++;
                    }
                    completions.clear();
                    scq.poll(completions, 64);
                    for (int i = 0; i < completions.size(); i++)
                    {
                        final long wrId = completions.wrId(i);
                        if (WcStatus.SUCCESS != completions.status(i) || received != wrId ||
                            messageLength(pair, received) != completions.byteLength(i) ||
                            received != dst.getInt(base + (wrId % 256) * 65536L))
                        {
                            throw new AssertionError("pair " + pair + ": receive " + wrId + " " +
                                WcStatus.name(completions.status(i)) + " of " + completions.byteLength(i) +
                                " bytes, expected " + received);
                        }
                        received++;
                    }
                }
            }));
        }
        CompletableFuture.allOf(tasks.toArray(new CompletableFuture[0])).get(50, TimeUnit.SECONDS);
    }

    private static int messageLength(final int pair, final int n)
    {
        // Inline, eager and rendezvous sizes mixed.
        final int kind = (n + pair) % 8;
        return 0 == kind ? 40_000 : 1 == kind ? 5000 : 8 + (n % 57);
    }
}
