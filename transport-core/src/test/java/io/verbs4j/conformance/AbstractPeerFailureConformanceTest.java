// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.MemoryRegion;
import io.verbs4j.Opcode;
import io.verbs4j.QpState;
import io.verbs4j.QueuePair;
import io.verbs4j.SendRequest;
import io.verbs4j.WcStatus;
import io.verbs4j.config.CoreConfiguration;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer process killed with SIGKILL: the survivor's queue pair goes to ERROR within the peer timeout, the oldest
 * outstanding request fails with RETRY_EXC_ERR and the rest flush; nothing hangs. Needs a child process, so it
 * always runs cross-process, with a peer of its own for each test.
 */
public abstract class AbstractPeerFailureConformanceTest extends AbstractConformanceTest
{
    /** @return the bound the provider promises for noticing a dead peer (default: the configured peer timeout). */
    protected long peerTimeoutMs()
    {
        return Long.getLong(CoreConfiguration.PEER_TIMEOUT_PROP_NAME, CoreConfiguration.PEER_TIMEOUT_DEFAULT_MS);
    }

    @Override
    protected boolean crossProcess()
    {
        return true;
    }

    @Test
    void shouldMoveToErrorAndFlushWhenThePeerIsKilled()
    {
        final RemotePeer victim = new RemotePeer(providerName(), deviceProperties());
        try
        {
            final String victimEndpoint = victim.listen(uniqueName());
            victim.acceptAsync(0, 1, 7, new byte[0]);
            final QueuePair qp = pd.createQueuePair(defaultConfig());
            device.connectionManager().connect(qp, victimEndpoint, new byte[0], Duration.ofSeconds(10));
            victim.awaitAccepted(WAIT_MS);
            final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
            // SENDs with no receive posted wait for ever (infinite RNR retry): outstanding work at the kill.
            for (int i = 0; i < 5; i++)
            {
                post(qp, new SendRequest(1).wrId(i).opcode(Opcode.SEND).sge(mr, 0, 8));
            }
            final long killedAt = System.nanoTime();
            victim.kill();
            final List<Peer.Completion> cs = await(cq, 5);
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            assertStatus(WcStatus.RETRY_EXC_ERR, cs.get(0));
            for (int i = 1; i < 5; i++)
            {
                assertStatus(WcStatus.WR_FLUSH_ERR, cs.get(i));
                assertEquals(i, cs.get(i).wrId());
            }
            assertEquals(QpState.ERROR, qp.state());
            // Generous margin over the promised bound: CI machines are shared and noisy.
            assertTrue(detectedMs < 4 * peerTimeoutMs() + 2_000, "noticed the dead peer after " + detectedMs + " ms");
            post(qp, new SendRequest(1).wrId(9).sge(mr, 0, 8));
            assertStatus(WcStatus.WR_FLUSH_ERR, awaitOne(cq));
        }
        finally
        {
            victim.kill();
        }
    }

    @Test
    void shouldKeepOtherConnectionsWorkingWhenOnePeerDies()
    {
        final RemotePeer victim = new RemotePeer(providerName(), deviceProperties());
        try
        {
            final String victimEndpoint = victim.listen(uniqueName());
            victim.acceptAsync(0, 1, 7, new byte[0]);
            final QueuePair doomed = pd.createQueuePair(defaultConfig());
            device.connectionManager().connect(doomed, victimEndpoint, new byte[0], Duration.ofSeconds(10));
            victim.awaitAccepted(WAIT_MS);
            final QueuePair healthy = connect(1, 64);
            victim.kill();
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (QpState.ERROR != doomed.state() && System.nanoTime() < deadline)
            {
                cq.poll((w, s, o, b, i, f, q) -> { }, 16);
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            assertEquals(QpState.ERROR, doomed.state());
            final MemoryRegion mr = allocate(64, Access.LOCAL_WRITE);
            post(healthy, new SendRequest(1).wrId(1).sge(mr, 0, 8));
            assertStatus(WcStatus.SUCCESS, awaitOne(cq));
            assertEquals(1, peer.pollRecv(1, WAIT_MS).length);
        }
        finally
        {
            victim.kill();
        }
    }
}
