// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.system;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.verbs4j.Access;
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
import io.verbs4j.launch.ChildJvm;
import io.verbs4j.system.support.Messages;
import io.verbs4j.system.support.SystemTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rkeys are bound to their protection domain and unguessable. Across processes: a {@link FaultPeerMain} accepts
 * connections alternately into the protection domain of its patterned region and into another domain; the region's
 * rkey works over a connection of its domain and fails with REM_ACCESS_ERR for WRITE, READ and both atomics over
 * a connection of the other domain, with the region untouched (read back over a good connection) and nothing
 * written locally by a refused READ. In one process: thousands of keys over several domains and devices are
 * distinct, non-zero, not sequential, and each bit is set about half the time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RkeyIsolationSystemTest
{
    private static final int REGION = 1 << 16;
    private Path shmDir;

    @BeforeAll
    void dir()
    {
        shmDir = SystemTests.newShmDir("rkeys");
    }

    @AfterAll
    void removeDir()
    {
        SystemTests.deleteDir(shmDir);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void anRkeyWorksOnlyOverAConnectionOfItsProtectionDomain(final String provider)
    {
        final int[] opcodes = {Opcode.RDMA_WRITE, Opcode.RDMA_READ, Opcode.ATOMIC_FETCH_AND_ADD,
            Opcode.ATOMIC_CMP_AND_SWP};
        final int connections = 2 * opcodes.length + 2;
        try (ChildJvm child = new ChildJvm("rkey peer", SystemTests.SMALL_CHILD, FaultPeerMain.class,
            SystemTests.peerArgs(provider, shmDir));
            Device device = Verbs.open(provider, SystemTests.context(provider, shmDir)))
        {
            final String endpoint = child.call("LISTEN rk-" + ProcessHandle.current().pid() + "-" + provider);
            final String[] r = child.call("SERVE " + connections + " 4 64 " + REGION + " 1 alt").split(" ");
            final long address = Long.parseLong(r[0]);
            final int rkey = Integer.parseInt(r[1]);
            final ProtectionDomain pd = device.allocateProtectionDomain();
            final CompletionQueue cq = device.createCompletionQueue(1024);
            final MemoryRegion mr = pd.allocate(REGION, Access.LOCAL_WRITE);
            final List<QueuePair> qps = new ArrayList<>();
            for (int i = 0; i < connections; i++)
            {
                final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq).sendDepth(8).recvDepth(1));
                device.connectionManager().connect(qp, endpoint, new byte[0], Duration.ofSeconds(30));
                qps.add(qp); // even: peer QP in the region's domain; odd: in the other domain
            }
            final QueuePair good = qps.get(0);
            final List<String> refused = new ArrayList<>();
            for (int k = 0; k < opcodes.length; k++)
            {
                final QueuePair foreign = qps.get(2 * k + 1);
                mr.setMemory(0, 4096, (byte)0x5A);
                final SendRequest request = new SendRequest(1).wrId(100 + k).opcode(opcodes[k])
                    .sge(mr, 0, Opcode.RDMA_WRITE == opcodes[k] || Opcode.RDMA_READ == opcodes[k] ? 4096 : 8)
                    .remote(address + 8192, rkey).atomic(1, 2);
                assertEquals(QueuePair.OK, foreign.postSend(request));
                final long[] c = awaitOne(cq);
                assertEquals(100 + k, c[0]);
                assertEquals(WcStatus.name(WcStatus.REM_ACCESS_ERR), WcStatus.name((int)c[1]),
                    Opcode.name(opcodes[k]) + " over a connection of another domain");
                assertEquals(QpState.ERROR, foreign.state());
                for (int i = 0; i < 4096; i++)
                {
                    assertEquals((byte)0x5A, mr.getByte(i), "a refused " + Opcode.name(opcodes[k]) +
                        " wrote nothing locally");
                }
                refused.add(Opcode.name(opcodes[k]));
                // The same rkey still works over a connection of its own domain, and the target is untouched.
                final QueuePair own = qps.get(2 * k + 2);
                assertEquals(QueuePair.OK, own.postSend(new SendRequest(1).wrId(200 + k).opcode(Opcode.RDMA_READ)
                    .sge(mr, 0, 4096).remote(address + 8192, rkey)));
                final long[] ok = awaitOne(cq);
                assertEquals(WcStatus.name(WcStatus.SUCCESS), WcStatus.name((int)ok[1]));
                assertEquals(-1, Messages.firstPatternMismatch(mr, 0, 8192, 4096), "target untouched");
            }
            assertEquals(QpState.RTS, good.state());
            SystemTests.report("security.txt", provider + ": rkey over a connection of another PD refused for " +
                refused + " (REM_ACCESS_ERR, target and local memory untouched); same rkey works over its own PD");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void keysAreDistinctAndLookRandom(final String provider)
    {
        final List<Integer> keys = new ArrayList<>();
        for (int d = 0; d < 2; d++)
        {
            try (Device device = Verbs.open(provider, SystemTests.context(provider, shmDir)))
            {
                for (int p = 0; p < 2; p++)
                {
                    final ProtectionDomain pd = device.allocateProtectionDomain();
                    final List<MemoryRegion> open = new ArrayList<>();
                    for (int i = 0; i < 500; i++)
                    {
                        final MemoryRegion mr = pd.allocate(64, Access.ALL);
                        keys.add(mr.rkey());
                        open.add(mr);
                    }
                    open.forEach(MemoryRegion::close);
                    pd.close();
                }
            }
        }
        final Set<Integer> distinct = new HashSet<>(keys);
        assertTrue(distinct.size() >= keys.size() - 2, "rkeys repeat: " + (keys.size() - distinct.size()) +
            " of " + keys.size());
        assertTrue(!keys.contains(0), "0 is never an rkey");
        int close = 0;
        for (int i = 1; i < keys.size(); i++)
        {
            if (Math.abs((long)keys.get(i) - keys.get(i - 1)) < 65536)
            {
                close++;
            }
        }
        assertTrue(close < 10, "successive rkeys close together " + close + " times: sequential?");
        for (int bit = 0; bit < 32; bit++)
        {
            int set = 0;
            for (final int k : keys)
            {
                set += (k >>> bit) & 1;
            }
            final double share = set / (double)keys.size();
            assertTrue(share > 0.44 && share < 0.56, "bit " + bit + " set in " + share + " of the rkeys");
        }
        SystemTests.report("security.txt", provider + ": " + keys.size() + " rkeys over 2 devices x 2 PDs: " +
            distinct.size() + " distinct, " + close +
                " successive pairs within 65536, every bit set 44-56% of the time");
    }

    private static long[] awaitOne(final CompletionQueue cq)
    {
        final long[] out = new long[2];
        try
        {
            final int n = cq.poll((w, s, o, b, i, f, q) ->
            {
                out[0] = w;
                out[1] = s;
            }, 1, 10, TimeUnit.SECONDS);
            assertEquals(1, n, "a completion within 10 s");
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return out;
    }
}
