// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
import io.verbs4j.Capabilities;
import io.verbs4j.MemoryRegion;
import io.verbs4j.QueuePair;
import io.verbs4j.RemoteAccessException;
import io.verbs4j.RemoteMemory;
import io.verbs4j.WcStatus;
import io.verbs4j.config.CoreConfiguration;
import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link QueuePair#mapRemote} ({@link Capabilities#DIRECT_PEER_ACCESS}) with the peer in another process: loads,
 * stores, atomics and copies reach the peer's region; the verbs checks (rkey, access, bounds) come first; a view
 * fails cleanly once the peer deregisters, the view is closed or the peer dies, and its raw buffer never faults. A
 * provider that does not advertise the capability must refuse the call.
 */
public abstract class AbstractPeerMemoryConformanceTest extends AbstractConformanceTest
{
    private static final int ALL_REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ |
        Access.REMOTE_ATOMIC;
    private static final int RW = Access.REMOTE_READ | Access.REMOTE_WRITE;

    private boolean advertised()
    {
        return device.capabilities().has(Capabilities.DIRECT_PEER_ACCESS);
    }

    @Test
    void shouldRefuseWhenNotAdvertised()
    {
        assumeTrue(!advertised(), "the device advertises DIRECT_PEER_ACCESS");
        final QueuePair qp = connect(0, 0);
        final Peer.RegionInfo remote = peer.allocate(4096, ALL_REMOTE, false);
        final UnsupportedOperationException ex = assertThrows(UnsupportedOperationException.class,
            () -> qp.mapRemote(remote.address(), remote.rkey(), 4096, RW));
        assertTrue(ex.getMessage().contains("DIRECT_PEER_ACCESS"), ex.getMessage());
    }

    @Test
    void shouldStoreAndLoadThePeersMemory()
    {
        assumeTrue(advertised(), "no DIRECT_PEER_ACCESS");
        final QueuePair qp = connect(0, 0);
        final Peer.RegionInfo remote = peer.allocate(8192, ALL_REMOTE, false);
        try (RemoteMemory view = qp.mapRemote(remote.address() + 4096, remote.rkey(), 4096, RW))
        {
            assertTrue(view.isValid());
            assertEquals(remote.address() + 4096, view.remoteAddress());
            assertEquals(4096, view.length());
            final byte[] data = pattern(1000, 3);
            view.putBytes(24, data, 0, data.length);
            view.putLongRelease(8, 0x1122334455667788L);
            assertArrayEquals(data, peer.read(remote.id(), 4096 + 24, data.length));
            assertEquals(0x1122334455667788L, peer.getLongVolatile(remote.id(), 4096 + 8));
            assertArrayEquals(new byte[4096], peer.read(remote.id(), 0, 4096), "bytes before the window changed");

            final byte[] theirs = pattern(512, 11);
            peer.write(remote.id(), 4096 + 2048, theirs);
            final byte[] got = new byte[512];
            view.getBytes(2048, got, 0, 512);
            assertArrayEquals(theirs, got);
            assertEquals(0x1122334455667788L, view.getLongAcquire(8));

            final MemoryRegion local = allocate(1024, Access.LOCAL_WRITE);
            local.putBytes(0, pattern(1024, 5), 0, 1024);
            view.copyFrom(3072, local, 0, 1024);
            assertArrayEquals(pattern(1024, 5), peer.read(remote.id(), 4096 + 3072, 1024));
            final MemoryRegion back = allocate(512, Access.LOCAL_WRITE);
            view.copyTo(2048, back, 0, 512);
            final byte[] copied = new byte[512];
            back.getBytes(0, copied, 0, 512);
            assertArrayEquals(theirs, copied);

            final AtomicBuffer raw = view.buffer();
            raw.putLongRelease(16, 42);
            assertEquals(42, peer.getLongVolatile(remote.id(), 4096 + 16));
        }
    }

    @Test
    void shouldBeAtomicWithThePeersOwnAtomics()
    {
        assumeTrue(advertised(), "no DIRECT_PEER_ACCESS");
        final QueuePair qp = connect(0, 0);
        final Peer.RegionInfo remote = peer.allocate(64, ALL_REMOTE, false);
        try (RemoteMemory view = qp.mapRemote(remote.address(), remote.rkey(), 64, Access.REMOTE_ATOMIC |
            Access.REMOTE_READ))
        {
            final int n = 200_000;
            peer.startLocalAdds(remote.id(), 0, n);
            for (int i = 0; i < n; i++)
            {
                view.getAndAddLong(0, 1);
            }
            peer.awaitLocalAdds();
            assertEquals(2L * n, view.getLongVolatile(0));
            assertTrue(view.compareAndSetLong(0, 2L * n, 7));
            assertFalse(view.compareAndSetLong(0, 2L * n, 9));
            assertEquals(7, view.getAndSetLong(0, 8));
            assertEquals(8, peer.getLongVolatile(remote.id(), 0));
        }
    }

    @Test
    void shouldCheckKeyAccessAndBoundsLikeAOneSidedVerb()
    {
        assumeTrue(advertised(), "no DIRECT_PEER_ACCESS");
        final QueuePair qp = connect(0, 0);
        final Peer.RegionInfo remote = peer.allocate(4096, Access.LOCAL_WRITE | Access.REMOTE_READ, false);
        final Peer.RegionInfo otherPd = peer.allocate(4096, ALL_REMOTE, true);
        expectRefusal(WcStatus.REM_ACCESS_ERR, () -> qp.mapRemote(remote.address(), remote.rkey() ^ 0x5a5a5a, 64,
            Access.REMOTE_READ));
        expectRefusal(WcStatus.REM_ACCESS_ERR, () -> qp.mapRemote(remote.address(), remote.rkey(), 64, RW));
        expectRefusal(WcStatus.REM_ACCESS_ERR, () -> qp.mapRemote(remote.address() + 4000, remote.rkey(), 128,
            Access.REMOTE_READ));
        expectRefusal(WcStatus.REM_ACCESS_ERR, () -> qp.mapRemote(remote.address() - 8, remote.rkey(), 64,
            Access.REMOTE_READ));
        expectRefusal(WcStatus.REM_ACCESS_ERR, () -> qp.mapRemote(otherPd.address(), otherPd.rkey(), 64,
            Access.REMOTE_READ));
        assertThrows(IllegalArgumentException.class, () -> qp.mapRemote(remote.address(), remote.rkey(), 0,
            Access.REMOTE_READ));
        assertThrows(IllegalArgumentException.class, () -> qp.mapRemote(remote.address(), remote.rkey(), 64, 0));
        assertThrows(IllegalArgumentException.class, () -> qp.mapRemote(remote.address(), remote.rkey(), 64,
            Access.LOCAL_WRITE));
        assertThrows(IllegalStateException.class, () -> pd.createQueuePair(defaultConfig()).mapRemote(
            remote.address(), remote.rkey(), 64, Access.REMOTE_READ), "an unconnected queue pair");

        try (RemoteMemory view = qp.mapRemote(remote.address(), remote.rkey(), 4096, Access.REMOTE_READ))
        {
            expectRefusal(WcStatus.REM_ACCESS_ERR, () -> view.putLong(0, 1));
            expectRefusal(WcStatus.REM_ACCESS_ERR, () -> view.getAndAddLong(0, 1));
            expectRefusal(WcStatus.REM_ACCESS_ERR, () -> view.getLong(4090));
            expectRefusal(WcStatus.REM_ACCESS_ERR, () -> view.getLong(-8));
            assertArrayEquals(new byte[4096], peer.read(remote.id(), 0, 4096), "refused accesses touched memory");
            assertTrue(view.isValid(), "a refused access does not spoil the view");
            assertEquals(0, view.getLong(0));
        }
    }

    @Test
    void shouldFailCleanlyOnceThePeerDeregistersOrTheViewIsClosed()
    {
        assumeTrue(advertised(), "no DIRECT_PEER_ACCESS");
        final QueuePair qp = connect(0, 0);
        final Peer.RegionInfo remote = peer.allocate(4096, ALL_REMOTE, false);
        final RemoteMemory view = qp.mapRemote(remote.address(), remote.rkey(), 4096, RW);
        final RemoteMemory second = qp.mapRemote(remote.address(), remote.rkey(), 4096, RW);
        view.putLong(0, 5);
        peer.deregister(remote.id());
        assertFalse(view.isValid());
        expectRefusal(WcStatus.REM_ACCESS_ERR, () -> view.putLong(0, 6));
        expectRefusal(WcStatus.REM_ACCESS_ERR, () -> view.getLongAcquire(0));
        // The raw buffer checks nothing, and must not fault: the mapping is the view's own.
        view.buffer().putLong(8, 9);
        assertEquals(9, view.buffer().getLong(8));
        expectRefusal(WcStatus.REM_ACCESS_ERR, () -> qp.mapRemote(remote.address(), remote.rkey(), 64, RW));
        view.close();
        view.close();
        assertFalse(view.isValid());
        expectRefusal(WcStatus.WR_FLUSH_ERR, () -> view.getLong(0));
        second.close();
        assertEquals(9, second.buffer().getLong(8), "a closed view's buffer stays mapped while reachable");
    }

    @Test
    void shouldFailCleanlyWhenThePeerDies()
    {
        assumeTrue(advertised(), "no DIRECT_PEER_ACCESS");
        final RemotePeer victim = new RemotePeer(providerName(), deviceProperties());
        try
        {
            final String victimEndpoint = victim.listen(uniqueName());
            final Peer.RegionInfo remote = victim.allocate(4096, ALL_REMOTE, false);
            victim.acceptAsync(0, 1, 7, new byte[0]);
            final QueuePair qp = pd.createQueuePair(defaultConfig());
            device.connectionManager().connect(qp, victimEndpoint, new byte[0], Duration.ofSeconds(10));
            victim.awaitAccepted(WAIT_MS);
            try (RemoteMemory view = qp.mapRemote(remote.address(), remote.rkey(), 4096, RW))
            {
                view.putLongRelease(0, 1);
                assertEquals(1, victim.getLongVolatile(remote.id(), 0));
                view.buffer().putLong(8, 3);
                victim.kill();
                final long timeoutMs = Long.getLong(CoreConfiguration.PEER_TIMEOUT_PROP_NAME,
                    CoreConfiguration.PEER_TIMEOUT_DEFAULT_MS);
                final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4 * timeoutMs + 5_000);
                while (view.isValid() && System.nanoTime() < deadline)
                {
                    cq.poll((wrId, status, opcode, byteLength, imm, flags, qpNumber) -> { }, 16);
                    view.buffer().putLong(8, 3);
                    Thread.onSpinWait();
                }
                assertFalse(view.isValid(), "the view still looks valid after the peer was killed");
                final RemoteAccessException ex = assertThrows(RemoteAccessException.class, () -> view.putLong(0, 2));
                assertTrue(WcStatus.RETRY_EXC_ERR == ex.status() || WcStatus.REM_ACCESS_ERR == ex.status(),
                    ex.getMessage());
                assertEquals(3, view.buffer().getLong(8), "the dead peer's memory stays mapped for this view");
            }
        }
        finally
        {
            victim.kill();
        }
    }

    private static void expectRefusal(final int status, final org.junit.jupiter.api.function.Executable call)
    {
        final RemoteAccessException ex = assertThrows(RemoteAccessException.class, call);
        assertEquals(WcStatus.name(status), WcStatus.name(ex.status()), ex.getMessage());
    }
}
