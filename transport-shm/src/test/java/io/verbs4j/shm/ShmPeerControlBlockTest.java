// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
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
import io.verbs4j.shm.protocol.ConnectionSegmentDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reproducers for what the fuzz targets found in how a queue pair trusts its peer's control block (the peer's
 * acknowledgement counters in the shared connection segment). Regression tests of the fix; see docs/FUZZING.md.
 */
@Timeout(30)
class ShmPeerControlBlockTest
{
    private Path dir;
    private Device serverDevice;
    private Device clientDevice;
    private boolean progressStuck;

    @AfterEach
    void close()
    {
        if (progressStuck)
        {
            // Closing would wait for the stuck progress forever; leak the devices (the JVM exits anyway).
            return;
        }
        if (null != clientDevice)
        {
            clientDevice.close();
        }
        if (null != serverDevice)
        {
            serverDevice.close();
        }
        ShmTestSupport.deleteDir(dir);
    }

    @Test
    void shouldNotCompleteMoreSendsThanThePeerCouldHaveAcknowledged() throws Exception
    {
        final QueuePair[] pair = connectedPair();
        final QueuePair server = pair[0];
        final QueuePair client = pair[1];
        final CompletionQueue serverCq = server.config().sendCq();
        final MemoryRegion src = server.protectionDomain().allocate(64, Access.LOCAL_WRITE);
        assertEquals(QueuePair.OK, server.postSend(new SendRequest(1).wrId(1).opcode(Opcode.SEND).sge(src, 0, 8)));

        // The peer claims to have received 1,000,000 messages; one was sent.
        final ShmConnection peerSide = ((ShmQueuePair)client).connection();
        peerSide.segment.putLongRelease(ConnectionSegmentDescriptor.controlOffset(peerSide.side) +
            ConnectionSegmentDescriptor.ACKED_MSN_OFFSET, 1_000_000L);

        final CompletionBatch batch = new CompletionBatch(64);
        final CompletableFuture<Integer> polled = CompletableFuture.supplyAsync(() ->
        {
            int count = 0;
            for (int i = 0; i < 100; i++)
            {
                batch.clear();
                count += serverCq.poll(batch, batch.capacity());
            }
            return count;
        });
        final int completions = await(polled);
        assertTrue(completions <= 1, completions + " completions for 1 posted SEND");
        assertEquals(QpState.ERROR, server.state(), "an impossible ack is a protocol error");
    }

    @Test
    void shouldNotHangOnAHugeAckFromThePeer() throws Exception
    {
        final QueuePair[] pair = connectedPair();
        final QueuePair server = pair[0];
        final ShmConnection peerSide = ((ShmQueuePair)pair[1]).connection();
        peerSide.segment.putLongRelease(ConnectionSegmentDescriptor.controlOffset(peerSide.side) +
            ConnectionSegmentDescriptor.ACKED_MSN_OFFSET, Long.MAX_VALUE);
        final CompletionQueue serverCq = server.config().sendCq();
        final CompletableFuture<Integer> polled = CompletableFuture.supplyAsync(
            () -> serverCq.poll(new CompletionBatch(64), 64));
        await(polled);
    }

    private int await(final CompletableFuture<Integer> polled) throws Exception
    {
        try
        {
            return polled.get(5, TimeUnit.SECONDS);
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            progressStuck = true;
            throw new AssertionError("hang: the device's progress did not return within 5 s", ex);
        }
    }

    private QueuePair[] connectedPair()
    {
        dir = ShmTestSupport.newDir("ctl");
        serverDevice = ShmTestSupport.open(dir, false);
        clientDevice = ShmTestSupport.open(dir, false);
        final ProtectionDomain serverPd = serverDevice.allocateProtectionDomain();
        final ProtectionDomain clientPd = clientDevice.allocateProtectionDomain();
        final QueuePair server = serverPd.createQueuePair(new QueuePairConfig(serverDevice.createCompletionQueue(256)));
        final QueuePair client = clientPd.createQueuePair(new QueuePairConfig(clientDevice.createCompletionQueue(256)));
        server.modify(QpState.INIT);
        client.modify(QpState.INIT);
        ShmTestSupport.connect(serverDevice, server, client, "ctl" + System.nanoTime(), new byte[0], new byte[0]);
        return new QueuePair[]{server, client};
    }
}
